"""Walking a Kattis package's test data into test groups and cases (`Data`): legacy
`testdata.yaml` inherited key by key, `test_group.yaml` with its arguments inherited and scoring
per group, a case's `<name>.yaml`, `.interaction` and `.files`. Anything wrong is a
`PackageError` naming the file, the line where known, and the rule.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from pipeline.errors import PackageError
from pipeline.packages.kattis_config import (
    checked_number,
    unknown_keys,
    validator_args,
    words,
)
from pipeline.packages.kattis_programs import visible
from pipeline.packages.model import (
    Format,
    KattisGroupScoring,
    LegacyGrading,
    ProblemType,
    TestCase,
    TestGroup,
    ValidatorTest,
)
from pipeline.packages.yamlfile import Lines, load_yaml, relative

LEGACY_TESTDATA_KEYS = {"on_reject", "grading", "grader_flags", "input_validator_flags",
                        "output_validator_flags", "accept_score", "reject_score", "range"}
GROUP_KEYS = {"max_score", "score_aggregation", "static_validation_score", "require_pass",
              "args", "input_validator_args", "static_validator_args", "output_validator_args",
              "input_visualizer_args", "output_visualizer_args", "full_feedback", "scoring",
              "static_validation", "hint", "description"}
CASE_KEYS = {"args", "input_validator_args", "output_validator_args", "input_visualizer_args",
             "output_visualizer_args", "full_feedback", "hint", "description"}
INHERITED = ("args", "input_validator_args", "output_validator_args")

NO_SECRET_NOTE = "data/secret holds no test case"
# A package without test data loads (BAPCtools' own config tests are such packages): its
# submissions have nothing to be run on, so a run has nothing to do (`bt run` skips it too).
NO_CASES_NOTE = ("the package has no test cases ({why}): there is nothing to run, as BAPCtools' "
                 "bt run skips it")


@dataclass
class Data:
    """Walks data/ into groups and cases, carrying inherited settings down."""

    root: Path
    version: Format
    type: ProblemType
    problem_config: dict
    data_dir: Path              # the package's data/, or where generators.yaml's is made
    notes: list[str] = field(default_factory=list)
    rejects: list[PackageError] = field(default_factory=list)  # cases held but not judged
    cases: list[TestCase] = field(default_factory=list)
    groups: list[TestGroup] = field(default_factory=list)

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
        root_settings = self._settings(data, {})[0]
        names = [n for n in ("sample", "secret") if (data / n).is_dir()]
        legacy = self.version == "legacy"
        if legacy:  # legacy's data/ is a group of its own
            self.groups.append(TestGroup("data", None, (), tuple(names),
                                         self._legacy_grading(root_settings),
                                         settings_file(data, self.version)))
        for name in names:
            self._group(data / name, name, "data" if legacy else None, root_settings)
        if not self.cases:
            self.notes.append(NO_CASES_NOTE.format(
                why="no .in file with its .ans in data/sample or data/secret"))
        elif not any(case.group.startswith("secret") for case in self.cases):
            self.notes.append(f"{NO_SECRET_NOTE}: only the samples are judged (as "
                              "BAPCtools' bt run does)")

    def _settings(self, folder: Path, inherited: dict) -> tuple[dict, dict, str | None, Lines]:
        """(settings inherited down, each `(value, file, line)`: legacy's every key, else
        `INHERITED`; the keys of the folder's settings file, its name and lines)."""
        settings = dict(inherited)
        path = settings_file(folder, self.version)
        if path is None:
            return settings, {}, None, Lines({})
        file = relative(path, self.root)
        config, lines = load_yaml(path, self.root)
        legacy = self.version == "legacy"
        unknown_keys(config, LEGACY_TESTDATA_KEYS if legacy else GROUP_KEYS, file, path.name,
                     lines, prefix=())
        if legacy and not self.type.scoring:
            for key in ("accept_score", "reject_score", "range"):
                if key in config:
                    raise PackageError(file, "scoring-only-key", f"{key} is only for scoring "
                                       "problems; this one is pass-fail", line=lines(key))
        for key in config if legacy else INHERITED:
            if key in config:
                settings[key] = (config[key], file, lines(str(key)))
        return settings, config, file, lines

    # legacy

    def _legacy_grading(self, settings: dict) -> LegacyGrading:
        def value(key, default):
            return settings[key][0] if key in settings else default

        def refused(key: str, what: str, given: object) -> PackageError:
            file, line = settings[key][1:] if key in settings else ("testdata.yaml", None)
            return PackageError(file, key, f"{key} must be {what}, got {given!r}", line=line)

        grading_config = self.problem_config.get("grading") or {}
        legacy: dict[object, str] = {"first_error": "break", "grade": "continue"}
        on_reject = value("on_reject", legacy.get(grading_config.get("on_reject"), "break"))
        grading = value("grading", "default")
        for key, given, choices in (("on_reject", on_reject, ("break", "continue")),
                                    ("grading", grading, ("default", "custom"))):
            if given not in choices:
                raise refused(key, f"{choices[0]} or {choices[1]}", given)
        score_range = value("range", grading_config.get("range", "-inf +inf"))
        try:
            low, high = (float(part) for part in str(score_range).split())
        except ValueError:
            raise refused("range", "two numbers", score_range) from None
        accept = value("accept_score", grading_config.get("accept_score", 1.0))
        reject = value("reject_score", grading_config.get("reject_score", 0.0))
        for key, number in (("accept_score", accept), ("reject_score", reject)):
            if not isinstance(number, (int, float)) or isinstance(number, bool):
                raise refused(key, "a number", number)
        return LegacyGrading(on_reject=on_reject, grading=grading,
                             grader_flags=tuple(str(value("grader_flags", "")).split()),
                             accept_score=float(accept), reject_score=float(reject),
                             score_range=(low, high))

    # 2023-07 / 2025-09

    def _modern_scoring(self, name: str, config: dict, file: str | None, lines: Lines,
                        parent: KattisGroupScoring | None,
                        share: float | None) -> KattisGroupScoring | None:
        keys = {"max_score", "score_aggregation", "require_pass", "scoring"} & set(config)
        if not self.type.scoring or name == "sample":  # no scoring: none of its keys either
            rule, why = ("scoring-only-key", "is only for scoring problems; this one is "
                         "pass-fail") if not self.type.scoring else (
                "sample-scoring", "is not permitted in data/sample")
            if keys:
                raise PackageError(file or name, rule, f"{min(keys)} {why}", line=lines(min(keys)))
            return None
        draft = _draft_scoring(config)
        aggregation = config.get("score_aggregation", draft.get(
            "aggregation", "sum" if name == "secret" else "pass-fail"))
        if aggregation not in ("pass-fail", "sum", "min"):
            raise PackageError(file or name, "score_aggregation", f"score_aggregation must be "
                               f"pass-fail, sum or min, got {aggregation!r}",
                               line=lines("score_aggregation") or lines("scoring"))
        raw = _max_score_given(config)
        given = raw is not None
        if raw == "unbounded":
            max_score = None
        elif given:
            max_score = checked_number(raw, file or name, "max_score",
                                       lines("max_score") or lines("scoring"), strict=False)
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

    # every format

    def _group(self, folder: Path, name: str, parent_name: str | None, inherited: dict,
               parent: KattisGroupScoring | None = None, share: float | None = None) -> None:
        """Group `name` and its subgroups: legacy's grading, or the modern formats' scoring
        (`share`: the group's part of its `parent`'s max_score when it gives none)."""
        settings, config, file, lines = self._settings(folder, inherited)
        grading = self._legacy_grading(settings) if self.version == "legacy" else None
        scoring = None if grading else self._modern_scoring(name, config, file, lines, parent,
                                                            share)
        cases, subgroups = self._entries(folder, name)
        # legacy's `*_flags` are the modern formats' `*_args`; legacy has no submission args
        suffix = "flags" if grading else "args"
        if not grading and name == "secret" and cases and subgroups:  # BAPCtools' packages do it
            self.notes.append("data/secret holds both test cases and test groups (the format "
                              "allows one or the other; read as BAPCtools reads it)")
        args = () if grading else _inherited(settings, "args", words, ())
        iv_args, iv_by_name = _inherited(settings, f"input_validator_{suffix}", validator_args,
                                         ((), None))
        ov_args = _inherited(settings, f"output_validator_{suffix}", words, ())
        child_share = None
        if scoring is not None and scoring.max_score is not None:
            if scoring.aggregation == "min":
                child_share = scoring.max_score
            else:
                peeked = [self._peek_score(sub) for sub in subgroups]
                given = sum((p for p in peeked if p not in (None, "unbounded")), 0.0)
                count = peeked.count(None) + len(cases)
                if given > scoring.max_score + 1e-9:
                    raise PackageError(file or relative(folder, self.root), "max_score",
                                       f"the max_scores of the groups of {name} add up to "
                                       f"{given:g}, more than its own {scoring.max_score:g}")
                child_share = (scoring.max_score - given) / count if count else 0.0
        scored = scoring is not None and scoring.aggregation in ("sum", "min")
        made = [self._case(base, name, iv_args, iv_by_name, ov_args, args) for base in cases]
        if scored:
            made = [replace(case, scored=True, max_score=child_share) for case in made]
        self.cases += made
        self.groups.append(TestGroup(name, parent_name, tuple(case.name for case in made),
                                     tuple(f"{name}/{s.name}" for s in subgroups),
                                     grading or scoring, settings_file(folder, self.version)))
        for sub in subgroups:
            self._group(sub, f"{name}/{sub.name}", name, settings, scoring, child_share)

    def _peek_score(self, folder: Path):
        """A subgroup's max_score as given: a number, "unbounded" or None (none, or no number)."""
        path = settings_file(folder, self.version)
        if path is None:
            return None
        raw = _max_score_given(load_yaml(path, self.root)[0])
        if raw is None or raw == "unbounded":
            return raw
        return float(raw) if isinstance(raw, (int, float)) else None

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
                    # that one case is not judged, the rest are (`bt run` warns and skips it)
                    self.rejects.append(PackageError(
                        relative(entry, self.root), "missing-answer", f"test case "
                        f"{self._name(entry)} has no answer file "
                        f"{entry.with_suffix('.ans').name}: it is not judged"))
                    continue
                cases.append(entry.with_suffix(""))
            elif entry.suffix == ".ans" and not entry.with_suffix(".in").is_file():
                # that one case is not judged, the rest are (as `bt run` judges what it has)
                self.rejects.append(PackageError(
                    relative(entry, self.root), "missing-input", f"answer file {entry.name} "
                    f"has no input file {entry.with_suffix('.in').name}: test case "
                    f"{self._name(entry)} is not judged"))
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
            unknown_keys(config, CASE_KEYS, file, "a test case file", lines, prefix=())
            own = {key: (value, file, lines(str(key))) for key, value in config.items()}
            args = _inherited(own, "args", words, args)
            ov_args = _inherited(own, "output_validator_args", words, ov_args)
            iv_args, iv_by_name = _inherited(own, "input_validator_args", validator_args,
                                             (iv_args, iv_by_name))
        interaction = _beside(base, ".interaction")
        files_dir = Path(str(base) + ".files")
        return TestCase(name=name, group=group, input_path=input_path,
                        answer_path=_beside(base, ".ans"), sample=group.startswith("sample"),
                        args=tuple(args), input_validator_args=tuple(iv_args),
                        input_validator_args_by_name=iv_by_name,
                        output_validator_args=tuple(ov_args),
                        interaction=interaction if interaction.is_file() else None,
                        files_dir=files_dir if files_dir.is_dir() else None)


def _draft_scoring(config: dict) -> dict:
    """The drafts' `scoring:` mapping of a group's settings ({} when none)."""
    scoring = config.get("scoring")
    return scoring if isinstance(scoring, dict) else {}


def _max_score_given(config: dict) -> object:
    return config.get("max_score", _draft_scoring(config).get("score"))


def _inherited(settings: dict, key: str, read: Callable[..., Any], default: Any) -> Any:
    """What `read` makes of setting `key` ((value, file, line) in `settings`), else `default`."""
    if key not in settings:
        return default
    value, file, line = settings[key]
    return read(value, file, key, line)


def settings_file(folder: Path, version: Format) -> Path | None:
    """A group folder's settings file: `test_group.yaml`, else `testdata.yaml` (legacy's only)."""
    names = ("testdata.yaml",) if version == "legacy" else ("test_group.yaml", "testdata.yaml")
    return next((folder / name for name in names if (folder / name).is_file()), None)


def _beside(base: Path, extension: str) -> Path:
    """The file of case `base` with `extension` (`a.b` gives `a.b.in`; `with_suffix` would not)."""
    return base.with_name(base.name + extension)


# -- the validator tests: data/invalid_* and valid_output, each with the arguments inherited
# down its folders and its own `<name>.yaml` (`invalid` holds the validators to them)

Kind = Literal["invalid_input", "invalid_answer", "invalid_output", "valid_output"]
KINDS: tuple[Kind, ...] = ("invalid_input", "invalid_answer", "invalid_output", "valid_output")
ARG_KEYS = ("input_validator_args", "output_validator_args", "answer_validator_args")


def _any_words(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(shlex.split(value))
    if isinstance(value, list):
        return tuple(str(v) for v in value)
    return ()


def _with_args(settings: dict, path: Path | None, root: Path) -> dict:
    """`settings` with the validator arguments the YAML file at `path` (if any) gives."""
    settings = dict(settings)
    if path is not None and path.is_file():
        config, _ = load_yaml(path, root)
        settings.update((key, config[key]) for key in ARG_KEYS if key in config)
    return settings


def _test(input_path: Path, data_dir: Path, kind: Kind, settings: dict,
          root: Path) -> ValidatorTest:
    settings = _with_args(settings, input_path.with_suffix(".yaml"), root)
    iv = settings.get("input_validator_args")
    by_name = tuple((str(k), _any_words(v)) for k, v in iv.items()) if isinstance(iv, dict) \
        else None
    answer = input_path.with_suffix(".ans")
    output = input_path.with_suffix(".out")
    case = TestCase(name=str(input_path.with_suffix("").relative_to(data_dir)),
                    group=str(input_path.parent.relative_to(data_dir)),
                    input_path=input_path, answer_path=answer if answer.is_file() else None,
                    sample=False,
                    input_validator_args=() if by_name is not None else _any_words(iv),
                    input_validator_args_by_name=by_name,
                    output_validator_args=_any_words(settings.get("output_validator_args")))
    return ValidatorTest(case, kind, output if output.is_file() else None,
                         _any_words(settings.get("answer_validator_args")))


def invalid_cases(data_dir: Path, root: Path) -> tuple[ValidatorTest, ...]:
    """The validator tests under `data_dir` (the package's data/ or generators.yaml's)."""

    def walk(folder: Path, kind: Kind, inherited: dict) -> Iterator[ValidatorTest]:
        settings = _with_args(inherited, settings_file(folder, "2023-07"), root)
        for entry in sorted(folder.iterdir()):
            if entry.is_dir() and visible(entry):
                yield from walk(entry, kind, settings)
            elif entry.suffix == ".in" and entry.is_file() and visible(entry):
                yield _test(entry, data_dir, kind, settings, root)

    top = _with_args({}, settings_file(data_dir, "2023-07"), root) if data_dir.is_dir() else {}
    return tuple(test for kind in KINDS if (data_dir / kind).is_dir()
                 for test in walk(data_dir / kind, kind, top))
