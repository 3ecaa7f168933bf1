"""A loaded problem package as plain frozen values: limits, test cases, groups, programs.

The loaders (`kattis.py`, `polygon.py`) make one `Package`; everything after them reads only
these values. Paths are absolute. A test case is named by its path under `data/` without `.in`
(`secret/group1/03-max`), a group by its folder, a submission by its path under `submissions/`
(`accepted/sol.py`) or, for Polygon, the package root (`solutions/main.cpp`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pipeline.errors import PackageError
from pipeline.programs.contained import wall_cap_s
from pipeline.programs.program import Convention, Program, Role  # noqa: F401 (the package's)
from pipeline.verdicts import Verdict

Format = Literal["legacy", "2023-07", "2025-09", "polygon"]


@dataclass(frozen=True)
class ProblemType:
    """The package's problem type: pass-fail or scoring, plus the ways of running."""

    scoring: bool = False
    interactive: bool = False
    multi_pass: bool = False
    submit_answer: bool = False

    @property
    def name(self) -> str:
        parts = ["scoring" if self.scoring else "pass-fail"]
        parts += [word for word, on in (("interactive", self.interactive),
                                        ("multi-pass", self.multi_pass),
                                        ("submit-answer", self.submit_answer)) if on]
        return " ".join(parts)


@dataclass(frozen=True)
class Limits:
    """Limits on submissions and on the package's own programs.

    `time_s` is None while the limit is to be derived (`time_source == "derive"`).
    `ac_to_time_limit` and `time_limit_to_tle` are the safety factors (`time_multipliers`, or
    legacy `time_multiplier` and `time_safety_margin`); `time_from` names the contest's
    `problems.yaml` entry when the limit is the contest's.
    """

    time_s: float | None
    time_source: Literal["given", "derive"]
    ac_to_time_limit: float
    time_limit_to_tle: float
    time_resolution_s: float = 1.0
    memory_mb: int = 2048
    output_mb: int = 8
    code_kb: int = 128
    compilation_time_s: float = 60.0
    compilation_memory_mb: int = 2048
    validation_time_s: float = 60.0
    validation_memory_mb: int = 2048
    validation_output_mb: int = 8
    validation_passes: int = 2
    time_from: str = ""    # where a time limit not in the package comes from: "problems.yaml:12"


@dataclass(frozen=True)
class TestCase:
    """One test case: its input and answer files and the arguments its programs get."""

    name: str                               # path under data/ without .in: "secret/g1/03"
    group: str                              # the folder it sits in: "secret/g1"
    input_path: Path
    answer_path: Path | None
    sample: bool
    args: tuple[str, ...] = ()              # command-line arguments for the submission
    input_validator_args: tuple[str, ...] = ()
    input_validator_args_by_name: tuple[tuple[str, tuple[str, ...]], ...] | None = None
    output_validator_args: tuple[str, ...] = ()
    points: float | None = None             # Polygon: the test's points
    max_score: float | None = None          # Kattis scoring: the case's maximum (None: none,
                                            # or unbounded when `scored`)
    scored: bool = False                    # Kattis scoring: the case is in a sum/min group
    interaction: Path | None = None         # .interaction sample log, when present
    files_dir: Path | None = None           # .files folder, when present
    generated_by: str | None = None         # Polygon: the generator command that made it

    def validator_args(self, validator_name: str) -> tuple[str, ...]:
        """The arguments the input validator `validator_name` gets on this case."""
        if self.input_validator_args_by_name is not None:
            return next((args for name, args in self.input_validator_args_by_name
                         if name == validator_name), ())
        return self.input_validator_args


@dataclass(frozen=True)
class ValidatorTest:
    """A case of data/invalid_* or valid_output: a test the package's validators must pass."""

    case: TestCase
    kind: Literal["invalid_input", "invalid_answer", "invalid_output", "valid_output"]
    output_path: Path | None = None         # the .out of invalid_output / valid_output
    answer_validator_args: tuple[str, ...] = ()


@dataclass(frozen=True)
class KattisGroupScoring:
    """2023-07 / 2025-09 scoring of a group: aggregation, maximum score, dependencies."""

    aggregation: Literal["pass-fail", "sum", "min"]
    max_score: float | None                 # None: unbounded
    max_score_given: bool
    require_pass: tuple[str, ...] = ()


@dataclass(frozen=True)
class LegacyGrading:
    """Legacy `testdata.yaml` grading: the default grader's flags and the case scores."""

    on_reject: Literal["break", "continue"] = "break"
    grading: Literal["default", "custom"] = "default"
    grader_flags: tuple[str, ...] = ()
    accept_score: float = 1.0
    reject_score: float = 0.0
    score_range: tuple[float, float] = (float("-inf"), float("inf"))


@dataclass(frozen=True)
class PolygonGroupScoring:
    """A Polygon group: its points, how they are earned, and the groups it depends on."""

    points: float | None
    points_policy: Literal["each-test", "complete-group"] = "complete-group"
    feedback_policy: str = "complete"
    dependencies: tuple[str, ...] = ()


GroupScoring = KattisGroupScoring | LegacyGrading | PolygonGroupScoring


@dataclass(frozen=True)
class TestGroup:
    """A test data group: a folder under data/ (or a Polygon group) and its settings."""

    name: str                               # "sample", "secret", "secret/g1"; legacy root "data"
    parent: str | None
    cases: tuple[str, ...]                  # direct test cases, in judging order
    subgroups: tuple[str, ...]              # direct subgroups, in judging order
    scoring: GroupScoring | None
    settings_file: Path | None = None       # the test_group.yaml / testdata.yaml that applied


@dataclass(frozen=True)
class Requirement:
    """One rule on a submission's verdicts, as submissions.yaml states them (`scope`: a glob under
    data/, '' every case; `final_verdict` legacy's, `final_any_of` `@EXPECTED_RESULTS@`)."""

    scope: str = ""
    permitted: frozenset[Verdict] | None = None
    required: frozenset[Verdict] | None = None
    score: tuple[float, float] | None = None
    message: str | None = None
    use_for_time_limit: bool | Literal["lower", "upper"] | None = None
    final_verdict: Verdict | None = None
    final_any_of: frozenset[Verdict] | None = None
    partially: bool = False                 # legacy partially_accepted: AC but not full score


@dataclass(frozen=True)
class Expectation:
    """What a submission is expected to get, and where that expectation was written."""

    label: str                              # "accepted", "wrong_answer", Polygon tag, ...
    source: str                             # "folder", "submissions.yaml", "tag", ...
    requirements: tuple[Requirement, ...]


def requirements_of(program: Program) -> tuple[Requirement, ...]:
    """The rules of a submission's `Expectation` (which `Program` knows only as `Expected`)."""
    expectation = program.expectation
    return expectation.requirements if isinstance(expectation, Expectation) else ()


@dataclass(frozen=True)
class Package:
    """Everything the pipeline knows about one problem package, in one value."""

    short_name: str
    title: str
    format: Format
    root: Path
    type: ProblemType
    limits: Limits
    cases: tuple[TestCase, ...]
    groups: tuple[TestGroup, ...]
    input_validators: tuple[Program, ...]
    output_validator: Program | None        # None: the default output validator
    output_validator_flags: tuple[str, ...]  # legacy validator_flags (all cases)
    checker: Program | None = None          # Polygon testlib checker
    interactor: Program | None = None       # Polygon interactor
    generators: tuple[Program, ...] = ()
    submissions: tuple[Program, ...] = ()
    custom_scoring: bool = False            # legacy "validation: custom score"
    treat_points_as_percent: bool = False   # Polygon judging attribute
    answer_validators: tuple[Program, ...] = ()  # answer_validators/: run on every .ans
    notes: tuple[str, ...] = field(default=())  # parts of the package read but not acted on
    # Parts the package holds that are not judged, each with its file, line and rule (a case
    # not made or without its partner file, an unknown @EXPECTED_RESULTS@ word).
    rejects: tuple[PackageError, ...] = ()
    validator_tests: tuple[ValidatorTest, ...] = ()  # data/invalid_*, data/valid_output
    # Files of the package never read (a link out of it, a pipe: `tree.copy_package`), each
    # with its file and rule.
    left_out: tuple[PackageError, ...] = field(default=())

    @property
    def unjudged_cases(self) -> tuple[PackageError, ...]:
        """The test cases the package holds but that are not judged, one error each (a file
        without its partner, one left out unread, one generators.yaml could not make)."""
        found: dict[str, PackageError] = {}
        for error in (*self.rejects, *self.left_out):
            path = Path(error.file)
            if error.case:
                found.setdefault(f"data/{error.case}", error)
            elif path.parts[:1] == ("data",) and path.suffix in (".in", ".ans") \
                    and error.rule != "case-left-out":
                found.setdefault(str(path.with_suffix("")), error)
        return tuple(found.values())

    def case(self, name: str) -> TestCase:
        return self._named(self.cases, name, "test case")

    def group(self, name: str) -> TestGroup:
        return self._named(self.groups, name, "test group")

    def submission(self, name: str) -> Program:
        return self._named(self.submissions, name, "submission", "; submissions: " + ", ".join(
            p.name for p in self.submissions))

    def _named(self, items: tuple, name: str, what: str, known: str = ""):
        found = next((item for item in items if item.name == name), None)
        if found is None:
            raise KeyError(f"package {self.short_name} has no {what} {name!r}{known}")
        return found

    @property
    def programs(self) -> tuple[Program, ...]:
        own = [*self.input_validators, *self.answer_validators, *self.generators,
               *self.submissions]
        own += [p for p in (self.output_validator, self.checker, self.interactor) if p]
        return tuple(own)


@dataclass(frozen=True)
class RunLimits:
    """Limits for one run: judged at `time_s` (CPU s), run to `kill_after_s` (at least `time_s`),
    so that it can be judged again at any limit up to it."""

    # How far past the limit it is run to a run is stopped in CPU time, so that a stopped
    # run's CPU time is over that limit (TLE there) and costs only a few ms more.
    CPU_CAP_PAST_S = 0.01

    time_s: float
    memory_mb: int = 2048
    output_mb: int = 8
    kill_after_s: float | None = None

    @property
    def wall_s(self) -> float:
        return wall_cap_s(self.cpu_cap_s)

    @property
    def cpu_cap_s(self) -> float:
        return max(self.kill_after_s or 0.0, self.time_s) + self.CPU_CAP_PAST_S


@dataclass(frozen=True)
class CaseResult:
    """One submission on one case: the verdict (at `time_limit_s`) and what it came from.
    `untimed_verdict` is what it got with time not counted; `validator_first_wa`: an
    interactive validator rejected it before it ran out of time (problemtools: WA, not TLE).
    """

    case: str
    verdict: Verdict
    untimed_verdict: Verdict
    score: float | None = None
    message: str = ""
    cpu_s: float = 0.0
    wall_s: float = 0.0
    peak_rss_kb: int = 0
    time_limit_s: float = 0.0
    timed_out: bool = False
    validator_first_wa: bool = False
    raw_score: float | None = None         # score.txt / checker points as the checker gave it
    score_multiplier: float | None = None
    answer: str | None = None              # the submission's output (batch problems)
    programs_cpu_s: float = 0.0            # every program's CPU time: all passes, the judges
    elapsed_s: float = 0.0                 # the wall time over them all, first start to last end


def case_result(judgement: object) -> CaseResult:
    """The `CaseResult` a package judge recorded as a run's `Outcome.judgement`."""
    assert isinstance(judgement, CaseResult)
    return judgement
