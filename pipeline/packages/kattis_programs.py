"""The programs of an ICPC / Kattis package: which of its files are part of it at all
(`visible`, not `disabled`), the files of one program (a file or a folder) and its language,
every program in a folder of programs (validators), and the submissions, each with what it
expects: a legacy folder's overall verdict; the 2023-07 / 2025-09 folder rules with
`submissions.yaml`'s on top; a DOMjudge `@EXPECTED_RESULTS@:` line, which replaces its folder's
rule; and the `include/` files it is built with. A file among programs that is no program is
noted in `NOT_PROGRAMS` for the package being loaded (`kattis.load_kattis` opens and collects it).
"""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

from pipeline.errors import PackageError
from pipeline.packages.kattis_config import ignore_unknown
from pipeline.packages.model import Expectation, Format, Limits, Program, Requirement, Role
from pipeline.packages.yamlfile import Lines, load_yaml, relative
from pipeline.programs.languages import detect_language
from pipeline.verdicts import FOLDER_RULES, SPELLINGS, Verdict


def visible(path: Path) -> bool:
    """Files and folders starting with a dot or dash are not part of the package."""
    return not path.name.startswith((".", "-"))


# BAPCtools (and DOMjudge's packages) keep a file or folder out of the package by ending its
# name in one of these (BAPCtools' util.glob skips them wherever it lists files).
DISABLED_SUFFIXES = (".disabled", ".template")


def disabled(path: Path) -> bool:
    return path.suffix in DISABLED_SUFFIXES


def files_of(path: Path) -> tuple[Path, ...]:
    if path.is_file():
        return (path,)
    return tuple(sorted(p for p in path.rglob("*") if p.is_file() and all(
        visible(Path(part)) and not disabled(Path(part)) for part in p.relative_to(path).parts)))


# Files of the package being loaded that are no program though they sit among programs
# (innermost load last): (path, why) for one note per package.
NOT_PROGRAMS: list[list[tuple[str, str]]] = []


def not_a_program(path: Path, root: Path, why: str) -> None:
    if NOT_PROGRAMS:
        NOT_PROGRAMS[-1].append((relative(path, root), why))


def _candidates(folder: Path, root: Path) -> list[Path]:
    """The visible entries of a folder of programs, the disabled ones noted and left out."""
    found = []
    for entry in sorted(folder.iterdir()) if folder.is_dir() else ():
        if visible(entry) and disabled(entry):
            not_a_program(entry, root, "disabled")
        elif visible(entry):
            found.append(entry)
    return found


def programs_in(folder: Path, role: Role, root: Path) -> list[Program]:
    """Every program in a folder of programs, as problemtools finds them (a README.txt is none;
    `*.disabled` / `*.template` are skipped)."""
    programs = []
    for entry in _candidates(folder, root):
        program = program_at(entry, role, entry.name, root)
        if program.language is None:
            not_a_program(entry, root, "no program")
            continue
        programs.append(program)
    return programs


def program_at(path: Path, role: Role, name: str, root: Path, **extra) -> Program:
    files = files_of(path)
    language = None  # a validator of one file may be in a validation language
    if role in ("input_validator", "answer_validator") and len(files) == 1:
        language = {".ctd": "checktestdata", ".viva": "viva"}.get(files[0].suffix)
    return Program(name=name, role=role, path=path, files=files,
                   language=language or detect_language(list(files)), convention="kattis",
                   **extra)


# -- submissions ------------------------------------------------------------------------------

_EXPECTED_RESULTS = re.compile(rb"@EXPECTED_RESULTS@\s*:\s*([A-Za-z ,_-]+)")


def _expand_braces(pattern: str) -> list[str]:
    match = re.search(r"\{([^{}]*)\}", pattern)
    if not match:
        return [pattern]
    head, tail = pattern[:match.start()], pattern[match.end():]
    # each alternative without the spaces around it, as BAPCtools reads `{ 4 }` (`4`)
    return [x for option in match.group(1).split(",")
            for x in _expand_braces(head + option.strip() + tail)]


def glob_matches(pattern: str, path: str) -> bool:
    """The spec's glob: `*` within one name, braces expanded; a path's parents match too."""
    parts = path.split("/")
    globs = [option.split("/") for option in _expand_braces(pattern)]
    # each matched against the path's first names
    return any(len(glob) <= len(parts) and all(map(fnmatch.fnmatchcase, parts, glob))
               for glob in globs)


def _verdict_set(value, file: str, key: str, line: int | None) -> frozenset[Verdict]:
    items = [value] if isinstance(value, str) else value
    known = SPELLINGS["submissions.yaml"]
    if not isinstance(items, list) or any(v not in known for v in items):
        raise PackageError(file, key, f"{key} must be a list of {', '.join(known)}, got "
                           f"{value!r}", line=line)
    return frozenset(Verdict.from_string(v, "submissions.yaml") for v in items)


def _requirement(config: dict, scope: str, file: str, lines: Lines,
                 prefix: tuple[str, ...]) -> Requirement:
    score = None
    if "score" in config:
        raw = config["score"]  # a number is the range of it alone
        pair = [raw, raw] if isinstance(raw, (int, float)) and not isinstance(raw, bool) else raw
        if not (isinstance(pair, list) and len(pair) == 2
                and all(isinstance(v, (int, float)) for v in pair)):
            raise PackageError(file, "score", f"score must be a number or [low, high], got {raw!r}",
                               line=lines(*prefix, "score"))
        score = (float(pair[0]), float(pair[1]))
    use = config.get("use_for_time_limit")
    if use not in (None, True, False, "lower", "upper"):
        raise PackageError(file, "use_for_time_limit", f"use_for_time_limit must be true, "
                           f"false, lower or upper, got {use!r}",
                           line=lines(*prefix, "use_for_time_limit"))
    permitted, required = (_verdict_set(config[key], file, key, lines(*prefix, key))
                           if key in config else None for key in ("permitted", "required"))
    # the spec: `lower` is a `permitted: [AC, WA, RTE]` constraint, `upper` a `required: [TLE]`
    if use == "lower" and permitted is None:
        permitted = USE_LOWER_PERMITS
    if use == "upper" and required is None:
        required = frozenset({Verdict.TLE})
    return Requirement(scope=scope, permitted=permitted, required=required, score=score,
                       message=config.get("message"), use_for_time_limit=use)


USE_LOWER_PERMITS = frozenset({Verdict.AC, Verdict.WA, Verdict.RE})


SUBMISSION_KEYS = {"language", "entrypoint", "authors", "model_solution", "permitted", "required",
                   "score", "message", "use_for_time_limit"}
REQUIREMENT_KEYS = {"permitted", "required", "score", "message", "use_for_time_limit"}


def _submissions_yaml(root: Path) -> tuple[dict, str, Lines] | None:
    path = root / "submissions" / "submissions.yaml"
    if not path.is_file():
        return None
    config, lines = load_yaml(path, root)
    file = relative(path, root)
    for pattern, rules in config.items():
        if not isinstance(rules, dict):
            raise PackageError(file, "submission-rules", f"the rules for {pattern!r} must be a "
                               "mapping", line=lines(str(pattern)))
        for key, value in rules.items():
            if key in SUBMISSION_KEYS:
                continue
            if not isinstance(value, dict):
                ignore_unknown(file, f"unknown key {key!r} for {pattern!r}; "
                               f"known: {', '.join(sorted(SUBMISSION_KEYS))} or a test data "
                               "group", lines(str(pattern), str(key)))
                continue
            for inner in value:
                if inner not in REQUIREMENT_KEYS:
                    ignore_unknown(file, f"unknown key {inner!r} under "
                                   f"{pattern!r} / {key!r}; known: "
                                   f"{', '.join(sorted(REQUIREMENT_KEYS))}",
                                   lines(str(pattern), str(key), str(inner)))
    return config, file, lines


def _expected_results(files: tuple[Path, ...], root: Path) -> Expectation | None:
    """The rule of the first `@EXPECTED_RESULTS@:` line in the submission's files, or None;
    PackageError for a word neither DOMjudge nor BAPCtools reads there."""
    for path in files:
        text = path.read_bytes()[:64 * 1024]
        match = _EXPECTED_RESULTS.search(text)
        if not match:
            continue
        names = [n.strip().upper() for n in match.group(1).decode().split(",") if n.strip()]
        known = SPELLINGS["@EXPECTED_RESULTS@"]
        unknown = [n for n in names if n not in known]
        if unknown or not names:
            raise PackageError(relative(path, root), "expected-results", f"unknown result "
                               f"{(unknown or [''])[0]!r} in @EXPECTED_RESULTS@; known: "
                               f"{', '.join(known)}; this submission is not judged",
                               line=text.count(b"\n", 0, match.start()) + 1)
        return Expectation(label="@EXPECTED_RESULTS@: " + ", ".join(names), source="source",
                           requirements=(Requirement(final_any_of=frozenset(
                               Verdict.from_string(n, "@EXPECTED_RESULTS@") for n in names)),))
    return None


def _modern_expectation(name: str, folder: str,
                        rules: tuple[dict, str, Lines] | None) -> Expectation | None:
    config, file, lines = rules if rules is not None else ({}, "", Lines({}))
    base = dict(FOLDER_RULES.get(folder, {}))
    if folder in config:  # overriding the folder's default rule
        override = _requirement(config[folder], "", file, lines, (folder,))
        base.update({key: getattr(override, key) for key in
                     ("permitted", "required", "use_for_time_limit")
                     if getattr(override, key) is not None})
    requirements = [Requirement(**base)] if base else []
    matched = folder in config
    for pattern, settings in config.items():
        if not glob_matches(str(pattern), name):
            continue
        matched = True
        top = {k: v for k, v in settings.items() if k in REQUIREMENT_KEYS}
        if top and str(pattern) != folder:  # the folder's own: in its rule above
            requirements.append(_requirement(top, "", file, lines, (str(pattern),)))
        for key, value in settings.items():
            if key not in SUBMISSION_KEYS and isinstance(value, dict):
                requirements.append(_requirement(value, str(key), file, lines,
                                                 (str(pattern), str(key))))
    if not requirements:
        return None
    sources = [source for source, used in (("folder", base), ("submissions.yaml", matched))
               if used]
    return Expectation(label=folder, source=" + ".join(sources), requirements=tuple(requirements))


def _submission_settings(name: str, rules) -> dict:
    """language / entrypoint given for a submission by submissions.yaml."""
    found: dict = {}
    for pattern, settings in (rules[0] if rules is not None else {}).items():
        if glob_matches(str(pattern), name):
            found.update({k: settings[k] for k in ("language", "entrypoint") if k in settings})
    return found


def _include_files(root: Path, language: str | None, version: Format) -> tuple[Path, ...]:
    include = root / "include"  # (none: no folder under it is one)
    for folder in ([include / language] if language else []) + (
            [include / "default"] if version != "legacy" else []):
        if folder.is_dir():
            return files_of(folder)
    return ()


def submissions(root: Path, version: Format,
                limits: Limits) -> tuple[list[Program], list[PackageError]]:
    """The submissions, each with what it expects, and the errors of those not judged; an accepted
    one is needed only when no time limit is given."""
    folder = root / "submissions"
    rules = None if version == "legacy" or not folder.is_dir() else _submissions_yaml(root)
    programs = []
    rejected: list[PackageError] = []
    for verdict_dir in sorted(folder.iterdir()) if folder.is_dir() else ():
        if not verdict_dir.is_dir() or not visible(verdict_dir):
            continue
        for entry in _candidates(verdict_dir, root):
            name = f"{verdict_dir.name}/{entry.name}"
            files = files_of(entry)
            settings = _submission_settings(name, rules)
            language = settings.get("language") or detect_language(list(files))
            if language is None:
                not_a_program(entry, root, "no program")
                continue
            try:
                expectation = _expected_results(files, root)
            except PackageError as error:
                rejected.append(error)
                continue
            if expectation is None:
                if version == "legacy":
                    verdict = SPELLINGS["folder"].get(verdict_dir.name)
                    expectation = None if verdict is None else Expectation(
                        label=verdict_dir.name, source="folder", requirements=(Requirement(
                            final_verdict=verdict,
                            partially=verdict_dir.name == "partially_accepted"),))
                else:
                    expectation = _modern_expectation(name, verdict_dir.name, rules)
            programs.append(Program(
                name=name, role="submission", path=entry, files=files, language=language,
                entrypoint=settings.get("entrypoint"), expectation=expectation,
                include_files=_include_files(root, language, version)))
    if limits.time_s is None and not any(p.name.startswith("accepted/") for p in programs):
        given = ("a legacy package gives it in a .timelimit file at its root, in seconds, as "
                 "DOMjudge reads it" if version == "legacy" else "limits.time_limit")
        raise PackageError("problem.yaml", "missing-accepted", "the package gives no time "
                           "limit and submissions/accepted/ holds no submission to derive one "
                           f"from: add an accepted submission or give the time limit ({given})")
    return programs, rejected
