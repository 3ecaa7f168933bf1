"""Loading a Polygon package: problem.xml, tests/, files/, solutions/.

From `problem.xml`: names, the `tests` testset (limits, path patterns, tests and groups), the
checker, interactor and validators, the tagged solutions, generators and resources. A test
listed as generated whose file is missing is made as Polygon makes it (`gen args > $`, the
answer by the main solution), under `build_dir/polygon-tests/<hash>/`, renamed into place.
"""

from __future__ import annotations

import os
import shlex
import shutil
import weakref
import xml.etree.ElementTree as ElementTree
from dataclasses import replace
from pathlib import Path
from xml.parsers import expat

from pipeline.errors import PackageError
from pipeline.packages.generators_yaml import building, tree_digest
from pipeline.packages.model import (
    Expectation,
    Limits,
    Package,
    PolygonGroupScoring,
    ProblemType,
    Program,
    Requirement,
    Role,
    TestCase,
    TestGroup,
)
from pipeline.packages.yamlfile import MAX_YAML_BYTES
from pipeline.programs.languages import build_program, detect_language, launch, polygon_language
from pipeline.programs.procs import describe_failure, run_limited
from pipeline.untrusted import excerpt
from pipeline.verdicts import POLYGON_TAGS

# The most bytes a problem.xml may have (Polygon's are a few KB)
MAX_XML_BYTES = MAX_YAML_BYTES

# The line of problem.xml each element starts on (for the messages naming it).
_LINES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _line_of(element: ElementTree.Element | None) -> int | None:
    return _LINES.get(element) if element is not None else None


def _parse(root: Path) -> ElementTree.Element:
    """problem.xml as an element tree, the line of every element kept (`_line_of`)."""
    path = root / "problem.xml"
    if not path.is_file():
        raise PackageError("problem.xml", "missing-problem-xml", "a Polygon package needs a "
                           "problem.xml at its root")
    size = path.stat().st_size
    if size > MAX_XML_BYTES:  # refused unread, as a YAML file of a package over its limit is
        raise PackageError("problem.xml", "too-large", f"{size:,} bytes, more than the "
                           f"{MAX_XML_BYTES:,} a problem.xml may have")
    builder = ElementTree.TreeBuilder()
    parser = expat.ParserCreate()

    def start(tag: str, attributes: dict[str, str]) -> None:
        _LINES[builder.start(tag, attributes)] = parser.CurrentLineNumber

    parser.StartElementHandler = start
    parser.EndElementHandler = builder.end
    parser.CharacterDataHandler = builder.data
    parser.buffer_text = True
    try:
        parser.Parse(path.read_bytes(), True)
        return builder.close()
    except expat.ExpatError as error:
        raise PackageError("problem.xml", "xml-syntax", f"not well-formed XML: "
                           f"{expat.ErrorString(error.code)}", line=error.lineno) from None


def _inside(root: Path, rel: str, what: str, element: ElementTree.Element | None) -> Path:
    """`root / rel` when that stays inside the package, else a `PackageError`."""
    normal = os.path.normpath(rel)
    path = root / normal
    if os.path.isabs(rel) or normal == ".." or normal.startswith(".." + os.sep) or \
            not (path.resolve() == root or root in path.resolve().parents):
        raise PackageError("problem.xml", "path-outside-package", f"{what} {rel!r} leads "
                           "outside the package; paths in problem.xml are relative to its "
                           "folder and stay inside it", line=_line_of(element))
    return path


def _int(element: ElementTree.Element | None, what: str, default: int | None = None) -> int:
    if element is None or element.text is None:
        if default is None:
            raise PackageError("problem.xml", what, f"problem.xml gives no <{what}>")
        return default
    try:
        return int(element.text.strip())
    except ValueError:
        raise PackageError("problem.xml", what, f"<{what}> must be an integer, got "
                           f"{element.text.strip()!r}") from None


def _source(element: ElementTree.Element, root: Path, what: str) -> tuple[Path, str | None]:
    source = element.find("source")
    named = source.get("path") if source is not None else None
    if source is None or not named:
        raise PackageError("problem.xml", f"{what}-source", f"the {what} has no <source path=...>",
                           line=_line_of(element))
    path = _inside(root, named, f"the {what}'s <source path>", source)
    if not path.is_file():
        raise PackageError(named, f"missing-{what}", f"the {what} source "
                           f"{named} named in problem.xml (line "
                           f"{_line_of(source)}) is not in the package")
    return path, source.get("type")


def _program(path: Path, declared: str | None, role: Role, name: str,
             resources: tuple[Path, ...],
             **extra) -> Program:
    language, _ = polygon_language(declared) if declared else (None, None)
    return Program(name=name, role=role, path=path, files=(path,),
                   language=language or detect_language([path]), convention="testlib",
                   declared_type=declared, include_files=resources, **extra)


def _resources(root: Path, xml: ElementTree.Element) -> tuple[Path, ...]:
    found: dict[str, Path] = {}
    for item in xml.findall("./files/resources/file"):
        path = _inside(root, item.get("path") or "", "the resource <file path>", item)
        if path.is_file() and path.suffix in (".h", ".hpp", ".hh", ".py"):
            found[path.name] = path
    files = root / "files"
    if files.is_dir():
        for path in sorted(files.glob("*.h")):
            found.setdefault(path.name, path)
    return tuple(found.values())


def _expand(pattern: str, index: int) -> str:
    try:
        return pattern % index
    except (TypeError, ValueError):
        raise PackageError("problem.xml", "path-pattern", f"path pattern {pattern!r} does not "
                           "take a test number (like tests/%02d)") from None


def load_polygon(root: Path, build_dir: Path, short_name: str | None = None) -> Package:
    root = Path(root).resolve()
    xml = _parse(root)
    title = next((n.get("value") for n in xml.findall("./names/name") if n.get("value")), "")
    testsets = xml.findall("./judging/testset")
    if not testsets:
        raise PackageError("problem.xml", "testset", "problem.xml has no <judging><testset>")
    testset = next((t for t in testsets if t.get("name") == "tests"), testsets[0])
    time_ms = _int(testset.find("time-limit"), "time-limit")
    memory_bytes = _int(testset.find("memory-limit"), "memory-limit")
    input_pattern = (testset.findtext("input-path-pattern") or "tests/%02d").strip()
    answer_pattern = (testset.findtext("answer-path-pattern") or "tests/%02d.a").strip()
    for tag, pattern in (("input-path-pattern", input_pattern),
                         ("answer-path-pattern", answer_pattern)):
        for index in range(1, max(1, len(testset.findall("./tests/test"))) + 1):
            _inside(root, _expand(pattern, index), f"<{tag}> {pattern!r}: the test path",
                    testset.find(tag))
    resources = _resources(root, xml)
    judging = xml.find("judging")

    generators = {}
    for executable in xml.findall("./files/executables/executable"):
        path, declared = _source(executable, root, "executable")
        generators[path.stem] = _program(path, declared, "generator", path.stem, resources)

    def asset(node: ElementTree.Element | None, what: str, role: Role) -> Program | None:
        if node is None:
            return None
        path, declared = _source(node, root, what)
        return _program(path, declared, role, path.name, resources)

    checker = asset(xml.find("./assets/checker"), "checker", "checker")
    interactor = asset(xml.find("./assets/interactor"), "interactor", "interactor")
    validators = [asset(node, "validator", "input_validator")
                  for node in xml.findall("./assets/validators/validator")]

    submissions = []
    for node in xml.findall("./assets/solutions/solution"):
        tag = node.get("tag") or ""
        if tag not in POLYGON_TAGS:
            raise PackageError("problem.xml", "solution-tag", f"unknown solution tag {tag!r}; "
                               f"known: {', '.join(POLYGON_TAGS)}", line=_line_of(node))
        path, declared = _source(node, root, "solution")
        rules = tuple(Requirement(**rule) for rule in POLYGON_TAGS[tag])
        submissions.append(_program(path, declared, "submission", str(path.relative_to(root)),
                                    (), expectation=Expectation(tag, "tag", rules) if rules
                                    else None))
    if not any(p.expectation and p.expectation.label == "main" for p in submissions):
        raise PackageError("problem.xml", "main-solution", "problem.xml names no solution with "
                           "tag main")

    limits = Limits(time_s=time_ms / 1000, time_source="given", ac_to_time_limit=2.0,
                    time_limit_to_tle=2.0, memory_mb=max(1, memory_bytes // (1024 * 1024)),
                    output_mb=64)
    shell = Package(short_name=short_name or xml.get("short-name") or root.name,
                    title=title or root.name, format="polygon", root=root,
                    type=ProblemType(interactive=interactor is not None), limits=limits,
                    cases=(), groups=(), input_validators=tuple(v for v in validators if v),
                    output_validator=None, output_validator_flags=(), checker=checker,
                    interactor=interactor, generators=tuple(generators.values()),
                    submissions=tuple(submissions),
                    treat_points_as_percent=(judging is not None and judging.get(
                        "treat-points-from-checker-as-percent") == "true"))
    tests = testset.findall("./tests/test")
    count = _int(testset.find("test-count"), "test-count", len(tests))
    if count != len(tests):
        raise PackageError("problem.xml", "test-count", f"<test-count> says {count} but "
                           f"{len(tests)} <test> elements follow",
                           line=_line_of(testset.find("test-count")))
    cases = _tests(shell, tests, input_pattern, answer_pattern, generators, Path(build_dir))
    groups = _groups(testset, cases)
    return replace(shell, cases=tuple(cases), groups=tuple(groups))


def _tests(package: Package, tests, input_pattern: str, answer_pattern: str,
           generators: dict[str, Program], build_dir: Path) -> list[TestCase]:
    root = package.root
    missing = []
    for index, test in enumerate(tests, start=1):
        input_path = root / _expand(input_pattern, index)
        if not input_path.is_file():
            if test.get("method") != "generated" or not test.get("cmd"):
                raise PackageError(_expand(input_pattern, index), "missing-test",
                                   f"test {index} is not in the package and problem.xml gives no "
                                   "generator command for it")
            missing.append(index)
        elif not (root / _expand(answer_pattern, index)).is_file():
            missing.append(index)
    made = _generate(package, tests, missing, input_pattern, answer_pattern, generators,
                     build_dir) if missing else None
    cases = []
    for index, test in enumerate(tests, start=1):
        base = made if made is not None and index in missing else root
        input_path = base / _expand(input_pattern, index)
        answer_path = base / _expand(answer_pattern, index)
        points = test.get("points")
        cases.append(TestCase(
            name=f"tests/{index:02d}", group=test.get("group") or "tests",
            input_path=input_path, answer_path=answer_path,
            sample=test.get("sample") == "true",
            points=float(points) if points not in (None, "") else None,
            generated_by=test.get("cmd") if test.get("method") == "generated" else None))
    return cases


def _groups(testset, cases: list[TestCase]) -> list[TestGroup]:
    declared = {g.get("name"): g for g in testset.findall("./groups/group")}
    groups = []
    for name in dict.fromkeys(case.group for case in cases):
        node = declared.get(name)
        scoring = PolygonGroupScoring(None, "each-test")  # a group problem.xml does not declare
        if node is not None:
            points = node.get("points")
            scoring = PolygonGroupScoring(
                float(points) if points not in (None, "") else None,
                node.get("points-policy") or "complete-group",
                node.get("feedback-policy") or "complete",
                tuple(d.get("group") for d in node.findall("./dependencies/dependency")))
        groups.append(TestGroup(name, None, tuple(c.name for c in cases if c.group == name), (),
                                scoring))
    return groups


def _generate(package: Package, tests, missing: list[int], input_pattern: str,
              answer_pattern: str, generators: dict[str, Program], build_dir: Path) -> Path:
    """Generate the missing tests (and answers) into a content-addressed folder."""
    final = build_dir / "polygon-tests" / f"{package.short_name}-{tree_digest(package.root)[:24]}"
    if (final / ".complete").is_file():
        return final
    with building(final) as work:
        main = next(p for p in package.submissions if p.expectation and
                    p.expectation.label == "main")
        main_build = None
        for index in missing:
            test = tests[index - 1]
            input_rel = _expand(input_pattern, index)
            target = work / input_rel
            target.parent.mkdir(parents=True, exist_ok=True)
            existing = package.root / input_rel
            if existing.is_file():
                shutil.copy2(existing, target)
            else:
                _run_generator(test.get("cmd"), generators, target, build_dir, input_rel)
            answer = work / _expand(answer_pattern, index)
            if main_build is None:
                main_build = build_program(main, build_dir)
                if not main_build.ok:
                    raise PackageError(main.name, "main-solution-build", "the main solution "
                                       f"did not build, so answers cannot be made: "
                                       f"{main_build.message[:300]}")
            run = launch(main_build, package.limits.memory_mb)
            done = run_limited(run.argv, cwd=work / ".run", stdin=target, stdout=answer,
                               # (Polygon's problem.xml always gives a time limit)
                               time_s=max(10.0, (package.limits.time_s or 0.0) * 10),
                               memory_mb=run.memory_mb)
            if done.exit_code != 0:
                raise PackageError(main.name, "main-solution-run", f"the main solution failed on "
                                   f"generated test {index}: {describe_failure(done, 'it')}")
        shutil.rmtree(work / ".run", ignore_errors=True)
    return final


def _run_generator(cmd: str, generators: dict[str, Program], target: Path, build_dir: Path,
                   where: str) -> None:
    try:
        words = shlex.split(cmd)
    except ValueError as error:  # an unclosed quote
        raise PackageError("problem.xml", "generator-command", f"the generator command "
                           f"`{cmd}` of {where} cannot be split into words: {error}") from None
    if len(words) >= 2 and words[-2] == ">":  # a script line `gen 1 2 > $`
        words = words[:-2]
    if not words:
        raise PackageError("problem.xml", "generator-command", f"empty generator command for "
                           f"{where}")
    name, args = words[0], words[1:]
    program = generators.get(name) or generators.get(Path(name).stem)
    if program is None:
        raise PackageError("problem.xml", "unknown-generator", f"test {where} is generated by "
                           f"{name!r}, which is not among the package's executables "
                           f"({', '.join(generators) or 'none'})")
    build = build_program(program, build_dir)
    source = program.path
    assert source is not None  # a package's generator is a file of it
    if not build.ok:
        raise PackageError(str(source.name), "generator-build", f"generator {name} did not "
                           f"build: {build.message[:300]}")
    run = launch(build, 2048)
    done = run_limited([*run.argv, *args], cwd=target.parent / ".gen", stdout=target,
                       time_s=60.0, memory_mb=run.memory_mb)
    shutil.rmtree(target.parent / ".gen", ignore_errors=True)
    if done.exit_code != 0:
        raise PackageError(str(source.name), "generator-run", f"`{cmd}` failed for "
                           f"{where}: {describe_failure(done, 'the generator')}: "
                           f"{excerpt(done.stderr, 300)}")
