"""Loading an ICPC / Kattis problem package folder: legacy, 2023-07 and 2025-09.

The version is `problem.yaml`'s `problem_format_version` (docs/packages.md): legacy follows
problemtools, 2023-07 and 2025-09 spec/2025-09.md. Anything wrong is a `PackageError` naming
the file, the line where known, and the rule. The parts read by concern: `kattis_config`
(problem.yaml), `kattis_programs` (validators, submissions) and `kattis_data`.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from pipeline.errors import PackageError, closest_name
from pipeline.packages.contest import ContestLimit
from pipeline.packages.generators_yaml import (
    default_sources_dir,
    generated_data,
    problem_constants,
    with_constants,
)
from pipeline.packages.kattis_config import (
    IGNORED,
    LEGACY_KEYS,
    MODERN_KEYS,
    format_version,
    ignore_unknown,
    read_limits,
    read_problem_type,
    title,
    unknown_keys,
    words,
)
from pipeline.packages.kattis_data import NO_SECRET_NOTE, Data, invalid_cases
from pipeline.packages.kattis_programs import (
    NOT_PROGRAMS,
    program_at,
    programs_in,
    submissions,
    visible,
)
from pipeline.packages.model import Format, LegacyGrading, Package, ProblemType, Program
from pipeline.packages.yamlfile import Lines, load_yaml, relative


def load_kattis(root: Path, short_name: str | None = None,
                build_dir: Path | None = None, contest: ContestLimit | None = None) -> Package:
    """Load the Kattis / ICPC package in `root` (`build_dir`: where generators.yaml's data is
    made; `contest`: the contest's time limit, taken when the package gives none)."""
    IGNORED.append([])
    NOT_PROGRAMS.append([])
    try:
        package = _load_kattis(Path(root).resolve(), short_name, build_dir, contest)
    finally:
        ignored = IGNORED.pop()
        skipped = NOT_PROGRAMS.pop()
    return replace(package, notes=(*package.notes, *ignored, *_skipped_notes(skipped),
                                   *_unread_at_root(Path(root))))


# What the Kattis formats (legacy, 2023-07, 2025-09) and BAPCtools read at a package's root.
READ_AT_ROOT = frozenset({
    "problem.yaml", ".timelimit", "problem_statement", "statement", "solution", "attachments",
    "data", "generators", "include", "submissions", "input_validators",
    "input_format_validators", "output_validators", "output_validator", "answer_validators",
    "static_validator", "graders", "input_visualizer", "output_visualizer", "visualizers"})


def _unread_at_root(root: Path) -> list[str]:
    """One note naming the files and folders at the root that neither the format nor
    BAPCtools reads (with a read folder whose name is close), or none."""
    try:
        entries = sorted(p for p in root.iterdir() if visible(p) and p.name not in READ_AT_ROOT)
    except OSError:
        return []
    if not entries:
        return []
    named = []
    for entry in entries:
        name = entry.name + ("/" if entry.is_dir() else "")
        close = closest_name(entry.name, sorted(n for n in READ_AT_ROOT if "." not in n))
        if close is not None and entry.is_dir():
            name += f" (did you mean {close}/?)"
        elif entry.suffix == ".ini":
            name += " (DOMjudge's own settings: not read)"
        named.append(name)
    shown = ", ".join(named[:8]) + (f" and {len(named) - 8} more" if len(named) > 8 else "")
    return [f"ignored {len(named)} file(s) or folder(s) at the package's root that the "
            f"package format does not read: {shown}"]


def _skipped_notes(skipped: list[tuple[str, str]]) -> list[str]:
    """One note for the files that are no program, one for the disabled ones."""
    notes = []
    for why, text in (("no program", "not programs (no language is told by their names; "
                       "problemtools and BAPCtools skip them too)"),
                      ("disabled", "disabled (*.disabled / *.template, which BAPCtools skips)")):
        names = [path for path, reason in skipped if reason == why]
        if names:
            shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5
                                            else "")
            notes.append(f"skipped {len(names)} {text}: {shown}")
    return notes


def _load_kattis(root: Path, short_name: str | None, build_dir: Path | None = None,
                 contest: ContestLimit | None = None) -> Package:
    config_path = root / "problem.yaml"
    if not config_path.is_file():
        raise PackageError("problem.yaml", "missing-problem-yaml", "a Kattis package needs a "
                           "problem.yaml at its root")
    config, lines = load_yaml(config_path, root)
    file = "problem.yaml"
    version = format_version(config.get("problem_format_version"), file,
                             lines("problem_format_version"))
    unknown_keys(config, LEGACY_KEYS if version == "legacy" else MODERN_KEYS, file, file, lines,
                 prefix=())
    if version != "legacy" and "name" not in config:
        raise PackageError(file, "name", "problem.yaml must give the problem's name")
    problem_type, custom_scoring = read_problem_type(config, version, file, lines)
    if problem_type.submit_answer:
        raise PackageError(file, "type", "submit-answer problems are not supported",
                           line=lines("type"))
    limits = read_limits(config, version, root, file, lines, contest)
    validator_flags = words(config.get("validator_flags"), file, "validator_flags",
                            lines("validator_flags")) if version == "legacy" else ()

    generated = generated_data(root, build_dir, config, problem_type)
    data = Data(root, version, problem_type, config,
                generated.data_dir if generated else root / "data")
    data.walk()

    validators_dir = root / "input_validators"
    if not validators_dir.is_dir() and (root / "input_format_validators").is_dir():
        validators_dir = root / "input_format_validators"
    # BAPCtools fills the constants into validators' sources (not into submissions')
    constants = problem_constants(config) if version != "legacy" else {}
    sources = build_dir if build_dir is not None else default_sources_dir()
    input_validators = tuple(with_constants(p, constants, sources)
                             for p in programs_in(validators_dir, "input_validator", root))
    answer_validators = tuple(with_constants(p, constants, sources) for p in
                              programs_in(root / "answer_validators", "answer_validator", root))
    output_validator = _output_validator(root, version, config, problem_type, lines)
    if output_validator is not None:
        output_validator = with_constants(output_validator, constants, sources)
    notes = [*(generated.notes if generated else ()), *data.notes]
    if not input_validators:
        notes.append("no input validators: inputs are not checked")
    if any(case.files_dir for case in data.cases):
        notes.append("test case .files folders are not copied to the submission's directory")
    custom = [g.name for g in data.groups if isinstance(g.scoring, LegacyGrading)
              and g.scoring.grading == "custom"]
    if custom or (root / "graders").is_dir():
        where = (f"the groups {', '.join(custom[:3])}{' and more' if len(custom) > 3 else ''} "
                 "(grading: custom) are" if custom else "every group is")
        notes.append(f"custom graders are not supported: {where} graded by the default grader")
    programs, unjudged = submissions(root, version, limits)
    rejects = (*(generated.rejects if generated else ()), *data.rejects, *unjudged)
    if any((e.case or e.file.removeprefix("data/")).startswith("secret/") for e in rejects):
        # secret cases the package holds were not judged: not a package of samples only
        notes = [n for n in notes if not n.startswith(NO_SECRET_NOTE)]
    return Package(
        short_name=short_name or root.name, title=title(config) or root.name, format=version,
        root=root, type=problem_type, limits=limits, cases=tuple(data.cases),
        groups=tuple(data.groups), input_validators=input_validators,
        answer_validators=answer_validators,
        output_validator=output_validator, output_validator_flags=validator_flags,
        submissions=tuple(programs), custom_scoring=custom_scoring, notes=tuple(notes),
        rejects=rejects, validator_tests=invalid_cases(data.data_dir, root))


def _output_validator(root: Path, version: Format, config: dict, problem_type: ProblemType,
                      lines: Lines) -> Program | None:
    single = root / "output_validator"
    many = root / "output_validators"
    folder = single if single.is_dir() and any(visible(p) for p in single.iterdir()) else many
    programs = [program_at(single, "output_validator", "output_validator", root)] \
        if folder == single else programs_in(many, "output_validator", root)
    if version == "legacy":
        custom = str(config.get("validation", "default")).split()[0] == "custom"
        if custom and not programs:
            raise PackageError("problem.yaml", "missing-output-validator", "validation is custom "
                               "but output_validators/ holds no validator",
                               line=lines("validation"))
        if not custom and programs:  # problemtools reports it and judges by the default
            ignore_unknown("problem.yaml", "rule unused-output-validator: validation is "
                           f"default, so {relative(folder, root)}/ is not used: the default "
                           "output validator judges, as problemtools does", lines("validation"))
            return None
    if problem_type.interactive and not programs:
        raise PackageError("output_validator", "missing-output-validator", "an interactive "
                           "problem needs a custom output validator")
    if len(programs) > 1:
        raise PackageError(relative(many, root), "several-output-validators", "more than one "
                           f"output validator ({', '.join(p.name for p in programs)}) is not "
                           "supported; keep one")
    return programs[0] if programs else None
