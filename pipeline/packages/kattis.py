"""Loading an ICPC / Kattis problem package folder: legacy, 2023-07 and 2025-09.

The version is `problem.yaml`'s `problem_format_version` (absent, `legacy` or `legacy-icpc`:
legacy; `2023-07`, `2023-07-draft`: 2023-07; `2025-09`, `2025-09-draft`, `draft`: 2025-09).

- Legacy (spec/legacy.md, problemtools): `type` pass-fail or scoring, `validation` default or
  `custom [score] [interactive]`, `validator_flags`, `limits.time_multiplier` (5) and
  `limits.time_safety_margin` (2): the time limit is derived from the accepted submissions;
  a DOMjudge `.timelimit` file at the root gives it instead. `data/**/testdata.yaml` settings
  (on_reject, grading, grader_flags, input/output_validator_flags, accept_score, reject_score,
  range) are inherited key by key from the closest ancestor. `output_validators/` holds the
  custom validator; submissions are judged by their folder (accepted, partially_accepted,
  wrong_answer, time_limit_exceeded, run_time_error).
- 2023-07 / 2025-09 (spec/2025-09.md): `type` a string or a list (pass-fail, scoring,
  interactive, multi-pass, submit-answer), `limits.time_limit` or `limits.time_multipliers`
  (`ac_to_time_limit` 2.0, `time_limit_to_tle` 1.5) with `time_resolution`; `test_group.yaml`
  (the drafts' `testdata.yaml` is read when it is absent) with `args`, `input_validator_args`,
  `output_validator_args` inherited, and scoring (`max_score`, `score_aggregation`,
  `require_pass`, or the 2023-07 draft's `scoring:` map) per group; per-case `<name>.yaml`;
  `output_validator/` (the legacy `output_validators/` is read too); `submissions.yaml` rules on
  top of the default folder rules.

Both: `data/sample` and `data/secret` (nested groups; made by `generators/generators.yaml`
when the package has one, see `generators_yaml`), `.in` with its `.ans`, `.interaction`
and `.files` noted; `data/invalid_*` and `valid_output` read as the validators' tests; `input_validators/` (or `input_format_validators/`); `include/`; a
DOMjudge `@EXPECTED_RESULTS@:` line in a submission's source replaces its folder's rule.
A package needs an accepted submission only when it gives no time limit (the limit is derived
from the accepted ones then); one without test data loads with a note saying it has none (a
run has nothing to do), as BAPCtools' `bt run` takes both.
Anything wrong is a `PackageError` naming the file, the line where known, and the rule.
"""

from __future__ import annotations

import fnmatch
import math
import re
import shlex
from dataclasses import replace
from pathlib import Path

from pipeline.packages.errors import PackageError
from pipeline.packages.generators_yaml import (default_sources_dir, generated_data,
                                               problem_constants, with_constants)
from pipeline.programs.languages import detect_language
from pipeline.packages.model import (Expectation, Format, KattisGroupScoring, LegacyGrading,
                                     Limits, Package, ProblemType, Program, Requirement,
                                     TestCase, TestGroup)
from pipeline.packages.validator_tests import invalid_cases
from pipeline.packages.yamlfile import Lines, load_yaml, relative

KATTIS_VERDICTS = {"AC": "AC", "WA": "WA", "TLE": "TLE", "RTE": "RE"}
ALL_KATTIS = frozenset({"AC", "WA", "TLE", "RE"})

# 2023-07 / 2025-09 default folder rules (spec "Default directories"), in pipeline verdicts.
DEFAULT_RULES: dict[str, dict] = {
    "accepted": {"permitted": frozenset({"AC"})},
    "rejected": {"required": frozenset({"RE", "TLE", "WA"})},
    "wrong_answer": {"permitted": frozenset({"AC", "WA"}), "required": frozenset({"WA"})},
    "time_limit_exceeded": {"permitted": frozenset({"AC", "TLE"}), "required": frozenset({"TLE"})},
    "run_time_error": {"permitted": frozenset({"AC", "RE"}), "required": frozenset({"RE"})},
    "brute_force": {"permitted": frozenset({"AC", "RE", "TLE"}),
                    "required": frozenset({"RE", "TLE"}), "use_for_time_limit": False},
}
# Legacy folders: the overall verdict (problemtools' final verdict) they must get.
LEGACY_FOLDERS = {"accepted": "AC", "partially_accepted": "AC", "wrong_answer": "WA",
                  "time_limit_exceeded": "TLE", "run_time_error": "RE"}
# DOMjudge @EXPECTED_RESULTS@ names.
DOMJUDGE_RESULTS = {"CORRECT": "AC", "WRONG-ANSWER": "WA", "NO-OUTPUT": "WA",
                    "TIMELIMIT": "TLE", "RUN-ERROR": "RE", "MEMORY-LIMIT": "MLE",
                    "OUTPUT-LIMIT": "OLE", "COMPILER-ERROR": "CE"}
_EXPECTED_RESULTS = re.compile(rb"@EXPECTED_RESULTS@\s*:\s*([A-Za-z ,_-]+)")

LEGACY_KEYS = {"problem_format_version", "type", "name", "uuid", "author", "source",
               "source_url", "license", "rights_owner", "limits", "validation",
               "validator_flags", "grading", "keywords", "languages", "libraries"}
MODERN_KEYS = {"problem_format_version", "type", "name", "uuid", "version", "credits", "source",
               "license", "rights_owner", "embargo_until", "limits", "keywords", "languages",
               "allow_file_writing", "constants"}
LEGACY_TESTDATA_KEYS = {"on_reject", "grading", "grader_flags", "input_validator_flags",
                        "output_validator_flags", "accept_score", "reject_score", "range"}
GROUP_KEYS = {"max_score", "score_aggregation", "static_validation_score", "require_pass",
              "args", "input_validator_args", "static_validator_args", "output_validator_args",
              "input_visualizer_args", "output_visualizer_args", "full_feedback", "scoring",
              "static_validation", "hint", "description"}
CASE_KEYS = {"args", "input_validator_args", "output_validator_args", "input_visualizer_args",
             "output_visualizer_args", "full_feedback", "hint", "description"}
INHERITED = ("args", "input_validator_args", "output_validator_args")


def format_version(value: object, file: str, line: int | None) -> Format:
    text = "legacy" if value is None else str(value)
    if text in ("legacy", "legacy-icpc"):
        return "legacy"
    if text in ("2023-07", "2023-07-draft"):
        return "2023-07"
    if text in ("2025-09", "2025-09-draft", "draft"):
        return "2025-09"
    raise PackageError(file, "problem_format_version", f"unknown problem_format_version "
                       f"{text!r}; known: legacy, 2023-07(-draft), 2025-09(-draft)", line=line)


def visible(path: Path) -> bool:
    """Files and folders starting with a dot or dash are not part of the package."""
    return not path.name.startswith((".", "-"))


def _number(value: object, file: str, key: str, line: int | None, *, minimum: float = 0.0,
            strict: bool = True, integer: bool = False) -> float:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if ok:
        ok = value > minimum if strict else value >= minimum
    if ok and integer:
        ok = float(value).is_integer()
    if not ok:
        kind = "an integer" if integer else "a number"
        bound = f"> {minimum:g}" if strict else f">= {minimum:g}"
        raise PackageError(file, key, f"{key} must be {kind} {bound}, got {value!r}", line=line)
    return float(value)


def _words(value: object, file: str, key: str, line: int | None) -> tuple[str, ...]:
    """A sequence of strings (or, as the drafts and legacy wrote them, one string of words)."""
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(shlex.split(value))
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        return tuple(str(v) for v in value)
    raise PackageError(file, key, f"{key} must be a sequence of strings, got {value!r}", line=line)


def _validator_args(value: object, file: str, key: str, line: int | None):
    """(args for every validator, args by validator name or None)."""
    if isinstance(value, dict):
        return (), tuple((str(name), _words(args, file, f"{key}.{name}", line))
                         for name, args in value.items())
    return _words(value, file, key, line), None


# BAPCtools (and DOMjudge's packages) keep a file or folder out of the package by ending its
# name in one of these (BAPCtools' util.glob skips them wherever it lists files).
DISABLED_SUFFIXES = (".disabled", ".template")


def disabled(path: Path) -> bool:
    return path.suffix in DISABLED_SUFFIXES


def _files_of(path: Path) -> tuple[Path, ...]:
    if path.is_file():
        return (path,)
    return tuple(sorted(p for p in path.rglob("*") if p.is_file()
                        and all(visible(part) and not disabled(part)
                                for part in p.relative_to(path).parents
                                if part != Path(".")) and visible(p) and not disabled(p)))


# Files of the package being loaded that are no program though they sit among programs
# (innermost load last): (path, why) for one note per package.
_NOT_PROGRAMS: list[list[tuple[str, str]]] = []


def _not_a_program(path: Path, root: Path, why: str) -> None:
    if _NOT_PROGRAMS:
        _NOT_PROGRAMS[-1].append((relative(path, root), why))


def _programs_in(folder: Path, role: str, root: Path) -> list[Program]:
    """Every program in a folder of programs (each file or subfolder is one). As problemtools
    and BAPCtools find them: a file or folder whose language is not told by its names (no
    known extension, no `#!` line, no build/run script: a README.txt) is no program, and one
    named `*.disabled` / `*.template` is skipped."""
    if not folder.is_dir():
        return []
    programs = []
    for entry in sorted(folder.iterdir()):
        if not visible(entry):
            continue
        if disabled(entry):
            _not_a_program(entry, root, "disabled")
            continue
        program = _program(entry, role, entry.name, root)
        if program.language is None:
            _not_a_program(entry, root, "no program")
            continue
        programs.append(program)
    return programs


def _program(path: Path, role: str, name: str, root: Path, **extra) -> Program:
    files = _files_of(path)
    language = _validator_language(files) if role in ("input_validator",
                                                      "answer_validator") else None
    return Program(name=name, role=role, path=path, files=files,
                   language=language or detect_language(list(files)), convention="kattis",
                   **extra)


def _validator_language(files: tuple[Path, ...]) -> str | None:
    if len(files) == 1 and files[0].suffix == ".ctd":
        return "checktestdata"
    if len(files) == 1 and files[0].suffix == ".viva":
        return "viva"
    return None


# -- problem.yaml -------------------------------------------------------------------------------

def _problem_type(config: dict, version: Format, file: str, lines: Lines) -> tuple[ProblemType, bool]:
    """(type, custom scoring by the validator)."""
    if version == "legacy":
        kind = config.get("type", "pass-fail")
        if kind not in ("pass-fail", "scoring"):
            raise PackageError(file, "type", f"type must be pass-fail or scoring, got {kind!r}",
                               line=lines("type"))
        validation = str(config.get("validation", "default")).split()
        if not validation or validation[0] not in ("default", "custom"):
            raise PackageError(file, "validation", "validation must begin with default or "
                               f"custom, got {config.get('validation')!r}",
                               line=lines("validation"))
        params = validation[1:]
        if validation[0] == "default" and params:
            raise PackageError(file, "validation", f"validation: default takes no parameters, "
                               f"got {' '.join(params)!r}", line=lines("validation"))
        unknown = [p for p in params if p not in ("score", "interactive")]
        if unknown:
            raise PackageError(file, "validation", f"unknown validation parameter "
                               f"{unknown[0]!r}; known: score, interactive",
                               line=lines("validation"))
        return ProblemType(scoring=kind == "scoring", interactive="interactive" in params), \
            "score" in params
    value = config.get("type", "pass-fail")
    kinds = [value] if isinstance(value, str) else value
    known = {"pass-fail", "scoring", "multi-pass", "interactive", "submit-answer"}
    if not isinstance(kinds, list) or not kinds or any(k not in known for k in kinds):
        raise PackageError(file, "type", f"type must be one or more of {sorted(known)}, got "
                           f"{value!r}", line=lines("type"))
    if len(set(kinds)) != len(kinds):
        raise PackageError(file, "type", f"type repeats a value: {kinds}", line=lines("type"))
    for a, b in (("pass-fail", "scoring"), ("multi-pass", "submit-answer"),
                 ("interactive", "submit-answer")):
        if a in kinds and b in kinds:
            raise PackageError(file, "type", f"type cannot be both {a} and {b}",
                               line=lines("type"))
    problem_type = ProblemType(scoring="scoring" in kinds, interactive="interactive" in kinds,
                               multi_pass="multi-pass" in kinds,
                               submit_answer="submit-answer" in kinds)
    return problem_type, problem_type.scoring


def _limits(config: dict, version: Format, root: Path, file: str, lines: Lines) -> Limits:
    limits = config.get("limits") or {}
    if not isinstance(limits, dict):
        raise PackageError(file, "limits", "limits must be a mapping", line=lines("limits"))

    def get(key: str, default, **rules):
        if key not in limits:
            return default
        return _number(limits[key], file, f"limits.{key}", lines("limits", key), **rules)

    common = dict(
        memory_mb=int(get("memory", 2048, integer=True)),
        output_mb=int(get("output", 8, integer=True)),
        code_kb=int(get("code", 128, integer=True)),
        compilation_time_s=get("compilation_time", 60.0),
        compilation_memory_mb=int(get("compilation_memory", 2048, integer=True)),
        validation_time_s=get("validation_time", 60.0),
        validation_memory_mb=int(get("validation_memory", 2048, integer=True)),
        validation_output_mb=int(get("validation_output", 8, integer=True)))
    if version == "legacy":
        known = {"time_multiplier", "time_safety_margin", "memory", "output", "code",
                 "compilation_time", "compilation_memory", "validation_time",
                 "validation_memory", "validation_output"}
        _unknown_keys(limits, known, file, "limits", lines)
        given = _timelimit_file(root)
        return Limits(time_s=given, time_source="given" if given is not None else "derive",
                      ac_to_time_limit=get("time_multiplier", 5.0),
                      time_limit_to_tle=get("time_safety_margin", 2.0), **common)
    known = {"time_multipliers", "time_limit", "time_resolution", "memory", "output", "code",
             "compilation_time", "compilation_memory", "validation_time", "validation_memory",
             "validation_output", "validation_passes"}
    _unknown_keys(limits, known, file, "limits", lines)
    multipliers = limits.get("time_multipliers") or {}
    if not isinstance(multipliers, dict):
        raise PackageError(file, "limits.time_multipliers", "time_multipliers must be a mapping",
                           line=lines("limits", "time_multipliers"))
    _unknown_keys(multipliers, {"ac_to_time_limit", "time_limit_to_tle"}, file,
                  "limits.time_multipliers", lines, ("limits", "time_multipliers"))

    def factor(key: str, default: float) -> float:
        if key not in multipliers:
            return default
        return _number(multipliers[key], file, f"limits.time_multipliers.{key}",
                       lines("limits", "time_multipliers", key), minimum=1.0, strict=False)

    time_limit = get("time_limit", None)
    return Limits(time_s=time_limit, time_source="given" if time_limit is not None else "derive",
                  ac_to_time_limit=factor("ac_to_time_limit", 2.0),
                  time_limit_to_tle=factor("time_limit_to_tle", 1.5),
                  time_resolution_s=get("time_resolution", 1.0),
                  validation_passes=int(get("validation_passes", 2, minimum=2, strict=False,
                                            integer=True)), **common)


def _timelimit_file(root: Path) -> float | None:
    """DOMjudge's `.timelimit` file (seconds), which legacy packages from BAPCtools carry."""
    path = root / ".timelimit"
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8").strip()
    try:
        value = float(text)
    except ValueError:
        raise PackageError(".timelimit", "timelimit", f"must hold a number of seconds, got "
                           f"{text[:40]!r}", line=1) from None
    if not value > 0:
        raise PackageError(".timelimit", "timelimit", f"must be > 0, got {value:g}", line=1)
    return value


# What the package being loaded holds that the pipeline does not know (innermost load last):
# an unknown key is read past with a note, as problemtools warns and goes on, so that a
# package written for a newer or another tool still loads.
_IGNORED: list[list[str]] = []


def _ignore_unknown(file: str, message: str, line: int | None) -> None:
    if _IGNORED:
        _IGNORED[-1].append(f"{file}{f':{line}' if line else ''}: {message} (ignored)")


def _unknown_keys(mapping: dict, known: set[str], file: str, where: str, lines: Lines,
                  prefix: tuple[str, ...] | None = None) -> None:
    path = prefix if prefix is not None else tuple(where.split("."))
    for key in mapping:
        if key not in known:
            _ignore_unknown(file, f"unknown key {key!r} in {where}; known: "
                               f"{', '.join(sorted(known))}", lines(*path, str(key)))


def _title(config: dict) -> str:
    name = config.get("name")
    if isinstance(name, dict):
        return str(name.get("en") or next(iter(name.values()), ""))
    return str(name or "")


# -- test data ----------------------------------------------------------------------------------

# A package without test data loads (BAPCtools' own config tests are such packages): its
# submissions have nothing to be run on, so a run has nothing to do (`bt run` skips it too).
NO_CASES_NOTE = ("the package has no test cases ({why}): there is nothing to run, as BAPCtools' "
                 "bt run skips it")


class _Data:
    """Walks data/ into groups and cases, carrying inherited settings down."""

    def __init__(self, root: Path, version: Format, problem_type: ProblemType,
                 problem_config: dict, data_dir: Path | None = None) -> None:
        self.root = root
        self.data_dir = data_dir or root / "data"   # generators.yaml's data is made elsewhere
        self.notes: list[str] = []
        self.version = version
        self.type = problem_type
        self.problem_config = problem_config
        self.cases: list[TestCase] = []
        self.groups: list[TestGroup] = []

    def settings_path(self, folder: Path) -> Path | None:
        names = ["testdata.yaml"] if self.version == "legacy" else ["test_group.yaml",
                                                                    "testdata.yaml"]
        for name in names:
            if (folder / name).is_file():
                return folder / name
        return None

    def walk(self) -> None:
        data = self.data_dir
        if not data.is_dir():
            self.notes.append(NO_CASES_NOTE.format(why="no data/ folder"))
            return
        for entry in sorted(data.iterdir()):
            if visible(entry) and entry.is_file() and entry.suffix in (".in", ".ans"):
                raise PackageError(relative(entry, self.root), "top-level-case",
                                   "test cases must be in data/sample or data/secret, "
                                   "not directly in data/")
        if self.version == "legacy":
            root_settings = self._legacy_settings(data, None)
            names = [n for n in ("sample", "secret") if (data / n).is_dir()]
            self.groups.append(TestGroup("data", None, (), tuple(names),
                                         self._legacy_grading(root_settings),
                                         self.settings_path(data)))
            for name in names:
                self._legacy_group(data / name, name, "data", root_settings)
        else:
            inherited = self._modern_settings(data, {}, None)[0] if self.settings_path(data) \
                else {}
            for name in ("sample", "secret"):
                if (data / name).is_dir():
                    self._modern_group(data / name, name, None, inherited)
        if not self.cases:
            self.notes.append(NO_CASES_NOTE.format(
                why="no .in file with its .ans in data/sample or data/secret"))
        elif not any(case.group.startswith("secret") for case in self.cases):
            self.notes.append("data/secret holds no test case: only the samples are judged "
                              "(as BAPCtools' bt run does)")

    # legacy

    def _legacy_settings(self, folder: Path, parent: dict | None) -> dict:
        settings = dict(parent or {})
        path = self.settings_path(folder)
        if path is None:
            return settings
        file = relative(path, self.root)
        config, lines = load_yaml(path, self.root)
        for key in config:
            if key not in LEGACY_TESTDATA_KEYS:
                _ignore_unknown(file, f"unknown key {key!r} in testdata.yaml; "
                                   f"known: {', '.join(sorted(LEGACY_TESTDATA_KEYS))}",
                                   lines(str(key)))
        if not self.type.scoring:
            for key in ("accept_score", "reject_score", "range"):
                if key in config:
                    raise PackageError(file, "scoring-only-key", f"{key} is only for scoring "
                                       "problems; this one is pass-fail", line=lines(key))
        for key, value in config.items():
            settings[key] = (value, file, lines(str(key)))
        return settings

    def _legacy_grading(self, settings: dict) -> LegacyGrading:
        def value(key, default):
            return settings[key][0] if key in settings else default

        def where(key):
            return (settings[key][1], settings[key][2]) if key in settings else ("testdata.yaml", None)

        grading_config = self.problem_config.get("grading") or {}
        on_reject = value("on_reject", {"first_error": "break", "grade": "continue"}.get(
            grading_config.get("on_reject"), "break"))
        if on_reject not in ("break", "continue"):
            raise PackageError(*where("on_reject")[:1], "on_reject", f"on_reject must be break "
                               f"or continue, got {on_reject!r}", line=where("on_reject")[1])
        grading = value("grading", "default")
        if grading not in ("default", "custom"):
            raise PackageError(where("grading")[0], "grading", f"grading must be default or "
                               f"custom, got {grading!r}", line=where("grading")[1])
        score_range = value("range", grading_config.get("range", "-inf +inf"))
        try:
            low, high = (float(part) for part in str(score_range).split())
        except ValueError:
            raise PackageError(where("range")[0], "range", f"range must be two numbers, got "
                               f"{score_range!r}", line=where("range")[1]) from None
        accept = value("accept_score", grading_config.get("accept_score", 1.0))
        reject = value("reject_score", grading_config.get("reject_score", 0.0))
        for key, number in (("accept_score", accept), ("reject_score", reject)):
            if not isinstance(number, (int, float)) or isinstance(number, bool):
                raise PackageError(where(key)[0], key, f"{key} must be a number, got {number!r}",
                                   line=where(key)[1])
        return LegacyGrading(on_reject=on_reject, grading=grading,
                             grader_flags=tuple(str(value("grader_flags", "")).split()),
                             accept_score=float(accept), reject_score=float(reject),
                             score_range=(low, high))

    def _legacy_group(self, folder: Path, name: str, parent: str, inherited: dict) -> None:
        settings = self._legacy_settings(folder, inherited)
        grading = self._legacy_grading(settings)
        cases, subgroups = self._entries(folder, name)
        iv_args, iv_by_name = (), None
        if "input_validator_flags" in settings:
            value, file, line = settings["input_validator_flags"]
            iv_args, iv_by_name = _validator_args(value, file, "input_validator_flags", line)
        ov_args: tuple[str, ...] = ()
        if "output_validator_flags" in settings:
            value, file, line = settings["output_validator_flags"]
            ov_args = _words(value, file, "output_validator_flags", line)
        case_names = []
        for base in cases:
            case = self._case(base, name, iv_args, iv_by_name, ov_args, ())
            self.cases.append(case)
            case_names.append(case.name)
        self.groups.append(TestGroup(name, parent, tuple(case_names),
                                     tuple(f"{name}/{s.name}" for s in subgroups), grading,
                                     self.settings_path(folder)))
        for sub in subgroups:
            self._legacy_group(sub, f"{name}/{sub.name}", name, settings)

    # 2023-07 / 2025-09

    def _modern_settings(self, folder: Path, inherited: dict,
                         parent_scoring: KattisGroupScoring | None) -> tuple[dict, dict, str | None, Lines]:
        path = self.settings_path(folder)
        settings = dict(inherited)
        if path is None:
            return settings, {}, None, Lines({})
        file = relative(path, self.root)
        config, lines = load_yaml(path, self.root)
        for key in config:
            if key not in GROUP_KEYS:
                _ignore_unknown(file, f"unknown key {key!r} in "
                                   f"{path.name}; known: {', '.join(sorted(GROUP_KEYS))}",
                                   lines(str(key)))
        for key in INHERITED:
            if key in config:
                settings[key] = (config[key], file, lines(key))
        return settings, config, file, lines

    def _modern_scoring(self, name: str, config: dict, file: str | None, lines: Lines,
                        parent: KattisGroupScoring | None,
                        share: float | None) -> KattisGroupScoring | None:
        keys = {"max_score", "score_aggregation", "require_pass", "scoring"} & set(config)
        if not self.type.scoring:
            if keys:
                key = sorted(keys)[0]
                raise PackageError(file or name, "scoring-only-key", f"{key} is only for scoring "
                                   "problems; this one is pass-fail", line=lines(key))
            return None
        if name == "sample":
            if keys:
                key = sorted(keys)[0]
                raise PackageError(file or name, "sample-scoring", f"{key} is not permitted in "
                                   "data/sample", line=lines(key))
            return None
        draft = config.get("scoring") if isinstance(config.get("scoring"), dict) else {}
        aggregation = config.get("score_aggregation", draft.get("aggregation",
                                                                "sum" if name == "secret" else "pass-fail"))
        if aggregation not in ("pass-fail", "sum", "min"):
            raise PackageError(file or name, "score_aggregation", f"score_aggregation must be "
                               f"pass-fail, sum or min, got {aggregation!r}",
                               line=lines("score_aggregation") or lines("scoring"))
        raw = config.get("max_score", draft.get("score"))
        given = raw is not None
        if raw == "unbounded":
            max_score = None
        elif given:
            max_score = _number(raw, file or name, "max_score", lines("max_score") or lines("scoring"),
                                strict=False)
        elif name == "secret":
            max_score = 100.0
        elif parent is not None and parent.max_score is None:
            max_score = None
        elif self.version == "2025-09" and parent is not None and parent.aggregation != "pass-fail":
            raise PackageError(file or f"data/{name}", "max_score", f"test group {name} needs a "
                               f"max_score: secret's maximum is bounded "
                               f"({parent.max_score:g}), so its groups must give theirs")
        else:
            max_score = share
        if aggregation == "pass-fail" and max_score is None:
            raise PackageError(file or f"data/{name}", "unbounded-pass-fail", f"group {name} has "
                               "pass-fail aggregation and so needs a bounded max_score")
        require = config.get("require_pass", draft.get("require_pass", ()))
        require_pass = (require,) if isinstance(require, str) else tuple(require or ())
        return KattisGroupScoring(aggregation=aggregation, max_score=max_score,
                                  max_score_given=given, require_pass=require_pass)

    def _modern_group(self, folder: Path, name: str, parent: KattisGroupScoring | None,
                      inherited: dict, share: float | None = None,
                      parent_name: str | None = None) -> None:
        settings, config, file, lines = self._modern_settings(folder, inherited, parent)
        scoring = self._modern_scoring(name, config, file, lines, parent, share)
        cases, subgroups = self._entries(folder, name)
        if name == "secret" and cases and subgroups:  # BAPCtools' own packages do it
            self.notes.append("data/secret holds both test cases and test groups (the format "
                              "allows one or the other; read as BAPCtools reads it)")
        args = self._inherited_words(settings, "args")
        ov_args = self._inherited_words(settings, "output_validator_args")
        iv_args, iv_by_name = (), None
        if "input_validator_args" in settings:
            value, where, line = settings["input_validator_args"]
            iv_args, iv_by_name = _validator_args(value, where, "input_validator_args", line)
        child_share = None
        if scoring is not None and scoring.max_score is not None:
            if scoring.aggregation == "min":
                child_share = scoring.max_score
            else:
                given = 0.0
                unknown = 0
                for sub in subgroups:
                    sub_config = self._peek_score(sub)
                    if sub_config is None:
                        unknown += 1
                    elif sub_config != "unbounded":
                        given += sub_config
                count = unknown + len(cases)
                if given > scoring.max_score + 1e-9:
                    raise PackageError(file or relative(folder, self.root), "max_score",
                                       f"the max_scores of the groups of {name} add up to "
                                       f"{given:g}, more than its own {scoring.max_score:g}")
                child_share = (scoring.max_score - given) / count if count else 0.0
        scored = scoring is not None and scoring.aggregation in ("sum", "min")
        case_names = []
        for base in cases:
            case = self._case(base, name, iv_args, iv_by_name, ov_args, args)
            if scored:
                case = replace(case, scored=True, max_score=child_share)
            self.cases.append(case)
            case_names.append(case.name)
        sub_names = tuple(f"{name}/{s.name}" for s in subgroups)
        self.groups.append(TestGroup(name, parent_name, tuple(case_names), sub_names, scoring,
                                     folder / Path(file).name if file else None))
        for sub in subgroups:
            self._modern_group(sub, f"{name}/{sub.name}", scoring, settings, child_share, name)

    def _peek_score(self, folder: Path):
        path = self.settings_path(folder)
        if path is None:
            return None
        config, _ = load_yaml(path, self.root)
        draft = config.get("scoring") if isinstance(config.get("scoring"), dict) else {}
        raw = config.get("max_score", draft.get("score"))
        if raw is None or raw == "unbounded":
            return raw
        return float(raw) if isinstance(raw, (int, float)) else None

    def _inherited_words(self, settings: dict, key: str) -> tuple[str, ...]:
        if key not in settings:
            return ()
        value, file, line = settings[key]
        return _words(value, file, key, line)

    # shared

    def _entries(self, folder: Path, group: str) -> tuple[list[Path], list[Path]]:
        """(case base paths, subgroup folders) of a group folder, in lexicographic order."""
        cases, subgroups = [], []
        for entry in sorted(folder.iterdir()):
            if not visible(entry):
                continue
            if entry.is_dir():
                if entry.suffix == ".files" and (entry.with_suffix(".in")).is_file():
                    continue
                if entry.name.endswith(".in"):
                    raise PackageError(relative(entry, self.root), "case-is-folder",
                                       "a test case input must be a file, not a folder")
                if group == "sample" and self.version != "legacy":
                    raise PackageError(relative(entry, self.root), "sample-groups",
                                       "data/sample must not contain test groups")
                subgroups.append(entry)
            elif entry.suffix == ".in":
                if not entry.with_suffix(".ans").is_file():
                    raise PackageError(relative(entry, self.root), "missing-answer",
                                       f"test case {self._name(entry)} has no answer file "
                                       f"{entry.with_suffix('.ans').name}")
                cases.append(entry.with_suffix(""))
            elif entry.suffix == ".ans" and not entry.with_suffix(".in").is_file():
                raise PackageError(relative(entry, self.root), "missing-input",
                                   f"answer file {entry.name} has no input file "
                                   f"{entry.with_suffix('.in').name}")
        return cases, subgroups

    def _name(self, path: Path) -> str:
        return str(path.with_suffix("").relative_to(self.data_dir))

    def _case(self, base: Path, group: str, iv_args, iv_by_name, ov_args, args) -> TestCase:
        input_path = _beside(base, ".in")
        name = self._name(input_path)
        case_yaml = _beside(base, ".yaml")
        if self.version != "legacy" and case_yaml.is_file():
            file = relative(case_yaml, self.root)
            config, lines = load_yaml(case_yaml, self.root)
            for key in config:
                if key not in CASE_KEYS:
                    _ignore_unknown(file, f"unknown key {key!r} in a test case "
                                       f"file; known: {', '.join(sorted(CASE_KEYS))}",
                                       lines(str(key)))
            if "args" in config:
                args = _words(config["args"], file, "args", lines("args"))
            if "output_validator_args" in config:
                ov_args = _words(config["output_validator_args"], file, "output_validator_args",
                                 lines("output_validator_args"))
            if "input_validator_args" in config:
                iv_args, iv_by_name = _validator_args(config["input_validator_args"], file,
                                                      "input_validator_args",
                                                      lines("input_validator_args"))
        interaction = _beside(base, ".interaction")
        files_dir = Path(str(base) + ".files")
        return TestCase(name=name, group=group, input_path=input_path,
                        answer_path=_beside(base, ".ans"), sample=group.startswith("sample"),
                        args=tuple(args), input_validator_args=tuple(iv_args),
                        input_validator_args_by_name=iv_by_name,
                        output_validator_args=tuple(ov_args),
                        interaction=interaction if interaction.is_file() else None,
                        files_dir=files_dir if files_dir.is_dir() else None)


# -- submissions --------------------------------------------------------------------------------

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
    prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    for option in _expand_braces(pattern):
        depth = option.count("/") + 1
        for prefix in prefixes:
            if prefix.count("/") + 1 == depth and all(
                    fnmatch.fnmatchcase(a, b) for a, b in zip(prefix.split("/"), option.split("/"))):
                return True
    return False


def _verdict_set(value, file: str, key: str, line: int | None) -> frozenset[str]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or any(v not in KATTIS_VERDICTS for v in items):
        raise PackageError(file, key, f"{key} must be a list of AC, WA, TLE, RTE, got {value!r}",
                           line=line)
    return frozenset(KATTIS_VERDICTS[v] for v in items)


def _requirement(config: dict, scope: str, file: str, lines: Lines, prefix: tuple[str, ...]) -> Requirement:
    score = None
    if "score" in config:
        raw = config["score"]
        if isinstance(raw, (int, float)) and not isinstance(raw, bool):
            score = (float(raw), float(raw))
        elif isinstance(raw, list) and len(raw) == 2 and all(isinstance(v, (int, float)) for v in raw):
            score = (float(raw[0]), float(raw[1]))
        else:
            raise PackageError(file, "score", f"score must be a number or [low, high], got {raw!r}",
                               line=lines(*prefix, "score"))
    use = config.get("use_for_time_limit")
    if use not in (None, True, False, "lower", "upper"):
        raise PackageError(file, "use_for_time_limit", f"use_for_time_limit must be true, "
                           f"false, lower or upper, got {use!r}",
                           line=lines(*prefix, "use_for_time_limit"))
    return Requirement(
        scope=scope,
        permitted=_verdict_set(config["permitted"], file, "permitted",
                               lines(*prefix, "permitted")) if "permitted" in config else None,
        required=_verdict_set(config["required"], file, "required",
                              lines(*prefix, "required")) if "required" in config else None,
        score=score, message=config.get("message"), use_for_time_limit=use)


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
                _ignore_unknown(file, f"unknown key {key!r} for {pattern!r}; "
                                   f"known: {', '.join(sorted(SUBMISSION_KEYS))} or a test data "
                                   "group", lines(str(pattern), str(key)))
                continue
            for inner in value:
                if inner not in REQUIREMENT_KEYS:
                    _ignore_unknown(file, f"unknown key {inner!r} under "
                                       f"{pattern!r} / {key!r}; known: "
                                       f"{', '.join(sorted(REQUIREMENT_KEYS))}",
                                       lines(str(pattern), str(key), str(inner)))
    return config, file, lines


def _expected_results(files: tuple[Path, ...], root: Path) -> Expectation | None:
    for path in files:
        match = _EXPECTED_RESULTS.search(path.read_bytes()[:64 * 1024])
        if not match:
            continue
        names = [n.strip().upper() for n in match.group(1).decode().split(",") if n.strip()]
        unknown = [n for n in names if n not in DOMJUDGE_RESULTS]
        if unknown or not names:
            raise PackageError(relative(path, root), "expected-results", f"unknown result "
                               f"{(unknown or [''])[0]!r} in @EXPECTED_RESULTS@; known: "
                               f"{', '.join(DOMJUDGE_RESULTS)}")
        return Expectation(label="@EXPECTED_RESULTS@: " + ", ".join(names), source="source",
                           requirements=(Requirement(final_any_of=frozenset(
                               DOMJUDGE_RESULTS[n] for n in names)),))
    return None


def _modern_expectation(name: str, folder: str, rules: tuple[dict, str, Lines] | None) -> Expectation | None:
    requirements: list[Requirement] = []
    base = dict(DEFAULT_RULES.get(folder, {}))
    sources = []
    if rules is not None:
        config, file, lines = rules
        if folder in config:  # overriding the folder's default rule
            override = _requirement(config[folder], "", file, lines, (folder,))
            for key in ("permitted", "required", "use_for_time_limit"):
                if getattr(override, key) is not None:
                    base[key] = getattr(override, key)
            sources.append("submissions.yaml")
    if base:
        requirements.append(Requirement(**base))
        sources.insert(0, "folder")
    if rules is not None:
        config, file, lines = rules
        for pattern, settings in config.items():
            if str(pattern) == folder or not glob_matches(str(pattern), name):
                continue
            top = {k: v for k, v in settings.items() if k in REQUIREMENT_KEYS}
            if top:
                requirements.append(_requirement(top, "", file, lines, (str(pattern),)))
            for key, value in settings.items():
                if key not in SUBMISSION_KEYS and isinstance(value, dict):
                    requirements.append(_requirement(value, str(key), file, lines,
                                                     (str(pattern), str(key))))
            if "submissions.yaml" not in sources:
                sources.append("submissions.yaml")
    if not requirements:
        return None
    return Expectation(label=folder, source=" + ".join(sources), requirements=tuple(requirements))


def _submission_settings(name: str, rules) -> dict:
    """language / entrypoint given for a submission by submissions.yaml."""
    found: dict = {}
    if rules is None:
        return found
    config, _, _ = rules
    for pattern, settings in config.items():
        if glob_matches(str(pattern), name):
            for key in ("language", "entrypoint"):
                if key in settings:
                    found[key] = settings[key]
    return found


def _include_files(root: Path, language: str | None, version: Format) -> tuple[Path, ...]:
    include = root / "include"
    if not include.is_dir():
        return ()
    for folder in ([include / language] if language else []) + (
            [include / "default"] if version != "legacy" else []):
        if folder.is_dir():
            return _files_of(folder)
    return ()


def _submissions(root: Path, version: Format, limits: Limits) -> list[Program]:
    """The submissions, each with what it expects. A package needs an accepted one unless it
    gives its time limit: the limit is derived from the accepted ones' times otherwise. With
    one given, a package of no accepted submission (BAPCtools' `hellounix`: run_time_error/
    only) or of no submissions/ at all loads, as `bt run` runs it."""
    folder = root / "submissions"
    rules = None if version == "legacy" or not folder.is_dir() else _submissions_yaml(root)
    programs = []
    for verdict_dir in sorted(folder.iterdir()) if folder.is_dir() else ():
        if not verdict_dir.is_dir() or not visible(verdict_dir):
            continue
        for entry in sorted(verdict_dir.iterdir()):
            if not visible(entry):
                continue
            if disabled(entry):
                _not_a_program(entry, root, "disabled")
                continue
            name = f"{verdict_dir.name}/{entry.name}"
            files = _files_of(entry)
            settings = _submission_settings(name, rules)
            if not settings.get("language") and detect_language(list(files)) is None:
                _not_a_program(entry, root, "no program")
                continue
            expectation = _expected_results(files, root)
            if expectation is None:
                if version == "legacy":
                    verdict = LEGACY_FOLDERS.get(verdict_dir.name)
                    expectation = None if verdict is None else Expectation(
                        label=verdict_dir.name, source="folder", requirements=(Requirement(
                            final_verdict=verdict,
                            partially=verdict_dir.name == "partially_accepted"),))
                else:
                    expectation = _modern_expectation(name, verdict_dir.name, rules)
            language = settings.get("language") or detect_language(list(files))
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
    return programs


def _beside(base: Path, extension: str) -> Path:
    """The file of test case `base` (its path without an extension) with `extension`: `a.b`
    gives `a.b.in`, where `with_suffix` would take `.b` for an extension."""
    return base.with_name(base.name + extension)


# -- the package --------------------------------------------------------------------------------

def load_kattis(root: Path, short_name: str | None = None,
                build_dir: Path | None = None) -> Package:
    """Load the Kattis / ICPC package in folder `root` (`build_dir`: where generators.yaml's
    data is made)."""
    _IGNORED.append([])
    _NOT_PROGRAMS.append([])
    try:
        package = _load_kattis(Path(root).resolve(), short_name, build_dir)
    finally:
        ignored = _IGNORED.pop()
        skipped = _NOT_PROGRAMS.pop()
    return replace(package, notes=(*package.notes, *ignored, *_skipped_notes(skipped)))


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


def _load_kattis(root: Path, short_name: str | None, build_dir: Path | None = None) -> Package:
    config_path = root / "problem.yaml"
    if not config_path.is_file():
        raise PackageError("problem.yaml", "missing-problem-yaml", "a Kattis package needs a "
                           "problem.yaml at its root")
    config, lines = load_yaml(config_path, root)
    file = "problem.yaml"
    version = format_version(config.get("problem_format_version"), file,
                             lines("problem_format_version"))
    known = LEGACY_KEYS if version == "legacy" else MODERN_KEYS
    for key in config:
        if key not in known:
            _ignore_unknown(file, f"unknown key {key!r} in problem.yaml; "
                               f"known: {', '.join(sorted(known))}", lines(str(key)))
    if version != "legacy" and "name" not in config:
        raise PackageError(file, "name", "problem.yaml must give the problem's name")
    problem_type, custom_scoring = _problem_type(config, version, file, lines)
    if problem_type.submit_answer:
        raise PackageError(file, "type", "submit-answer problems are not supported",
                           line=lines("type"))
    limits = _limits(config, version, root, file, lines)
    validator_flags = _words(config.get("validator_flags"), file, "validator_flags",
                             lines("validator_flags")) if version == "legacy" else ()

    generated = generated_data(root, build_dir, config, problem_type)
    data = _Data(root, version, problem_type, config, generated.data_dir if generated else None)
    data.walk()

    validators_dir = root / "input_validators"
    if not validators_dir.is_dir() and (root / "input_format_validators").is_dir():
        validators_dir = root / "input_format_validators"
    input_validators = tuple(_programs_in(validators_dir, "input_validator", root))
    answer_validators = tuple(_programs_in(root / "answer_validators", "answer_validator",
                                           root))

    output_validator = _output_validator(root, version, config, problem_type, lines)
    constants = problem_constants(config) if version != "legacy" else {}
    if constants:  # BAPCtools fills them into validators' sources (not into submissions')
        sources = build_dir if build_dir is not None else default_sources_dir()
        input_validators = tuple(with_constants(p, constants, sources) for p in input_validators)
        answer_validators = tuple(with_constants(p, constants, sources)
                                  for p in answer_validators)
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
    return Package(
        short_name=short_name or root.name, title=_title(config) or root.name, format=version,
        root=root, type=problem_type, limits=limits, cases=tuple(data.cases),
        groups=tuple(data.groups), input_validators=input_validators,
        answer_validators=answer_validators,
        output_validator=output_validator, output_validator_flags=validator_flags,
        submissions=tuple(_submissions(root, version, limits)), custom_scoring=custom_scoring,
        notes=tuple(notes), rejects=generated.rejects if generated else (),
        validator_tests=invalid_cases(data.data_dir, root))


def _output_validator(root: Path, version: Format, config: dict, problem_type: ProblemType,
                      lines: Lines) -> Program | None:
    single = root / "output_validator"
    many = root / "output_validators"
    programs: list[Program] = []
    if single.is_dir() and any(visible(p) for p in single.iterdir()):
        programs = [_program(single, "output_validator", "output_validator", root)]
    elif many.is_dir():
        programs = _programs_in(many, "output_validator", root)
    if version == "legacy":
        custom = str(config.get("validation", "default")).split()[0] == "custom"
        if custom and not programs:
            raise PackageError("problem.yaml", "missing-output-validator", "validation is custom "
                               "but output_validators/ holds no validator",
                               line=lines("validation"))
        if not custom and programs:
            raise PackageError("problem.yaml", "unused-output-validator", "validation is default "
                               "but output_validators/ holds a validator; say validation: custom",
                               line=lines("validation"))
    if problem_type.interactive and not programs:
        raise PackageError("output_validator", "missing-output-validator", "an interactive "
                           "problem needs a custom output validator")
    if len(programs) > 1:
        raise PackageError(relative(many, root), "several-output-validators", "more than one "
                           f"output validator ({', '.join(p.name for p in programs)}) is not "
                           "supported; keep one")
    return programs[0] if programs else None


