"""What a problem provides, as plain frozen dataclasses.

Every later layer talks to a problem only through a `Problem` value (parse, render, size,
solve with a stage, format and check answers). Cases are frozen dataclasses, equal by content,
so that `stress` can shrink a failing case and render it again. Constraint coverage: how the
cases reach each bound of the input (`BoundCoverage`), counted from a built-in problem's
declared `Bound`s (`coverage`) or told by a package's testlib validators, whose log says only
whether a case hit each end, so the ends and values reached are unknown (None) there.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pipeline.errors import BeyondLimits, UnknownName
from pipeline.fsutil import atomic_write_text
from pipeline.problems.tokens import check_tokens_equal
from pipeline.programs.jobs import Job, JobMap, Judgement, Outcome, SolverSpec
from pipeline.programs.program import Program

if TYPE_CHECKING:
    import polars as pl

Case = Any
Answer = Any


class JudgedLimit(Protocol):
    """The time limit a problem judges its submissions at (given, or derived from them)."""

    @property
    def time_s(self) -> float: ...


class HeldSubmissions(Protocol):
    """A problem's submissions held against what each is expected to get, after a run."""

    @property
    def agreements(self) -> Sequence[Any]: ...  # one per submission (and validator) held

    @property
    def not_held(self) -> str | None: ...  # why they could not be held (None: they were)

    @property
    def disagreements(self) -> Sequence[Any]: ...  # one per submission that got otherwise

    @property
    def judge_errors(self) -> Sequence[Any]: ...  # one per submission whose judge failed

    @property
    def partial(self) -> Sequence[Any]: ...  # agreeing on the cases judged, not on all

    @property
    def bugs(self) -> Sequence[Any]: ...  # the package's own bugs the run shows

    def table(self) -> str: ...  # one line per submission, for the run's summary


@dataclass(frozen=True)
class SubmissionJudging:
    """How a run judges a problem's submissions: the time limit, each one's `SolverSpec`, a
    note when the limit was derived now, and the (job, outcome) pairs deriving it judged
    already (repeat 0, judged at the limit: not to be run again)."""

    limit: JudgedLimit
    specs: list[SolverSpec]
    note: str | None
    done: list[tuple[Job, Outcome]]


class PackageJudge(Protocol):
    """The judge of a package's submissions: builds, runs and judges them on its cases by its
    own rules, derives the time limit where none is given, and holds each to its
    expectation. A run hands it its executor as a map over jobs (`JobMap`)."""

    def judging(self, names: tuple[str, ...], timeout_s: float | None,
                cases: Callable[[], pl.DataFrame], jobs: JobMap, holding: bool = False,
                fail_fast: bool = False) -> SubmissionJudging:
        """How the submissions `names` are judged: the limit (`timeout_s`, else derived now
        from `cases()` run on `jobs`). `holding`: `hold` follows, so the judge may start its
        own checks now; `fail_fast`: the run stops each at its first failure."""
        ...

    def hold(self, run_id: str, names: tuple[str, ...],
             judged: Mapping[str, Mapping[str, Judgement]], earlier: pl.DataFrame,
             inputs: Mapping[str, str], limit: JudgedLimit,
             cut_short: frozenset[str] = frozenset()) -> tuple[HeldSubmissions, list[dict]]:
        """After a run: each submission held against its expectation from its results
        (`judged` by name then case, plus `earlier`: a resumed run's stored rows, `inputs`
        by case id), and the `expectations` rows that keep it. Those in `cut_short` stopped
        at their first failure and are held to the cases they ran."""
        ...

    def run_job(self, job: Job) -> Outcome | None:
        """Run and judge `job` on one case; None for a job the judge does not judge."""
        ...

    def jobs(self, judging: SubmissionJudging, cases: pl.DataFrame, repeat: int,
             done: set[tuple[str, str, int]], first_key: int) -> list[Job]:
        """The jobs of `judging`'s specs on `cases`, `repeat` times each but those `done`
        (case id, name, repeat), keyed from `first_key`, in the order to start them."""
        ...

    def not_runnable(self, names: tuple[str, ...]) -> str | None:
        """Why one of the submissions `names` cannot be run (built now), or None."""
        ...

    def start_building(self, names: tuple[str, ...]) -> None:
        """Start building `names` as a run starts, so no worker waits for a compiler."""
        ...

    def start_holding(self, names: tuple[str, ...]) -> None:
        """Start the judge's own checks (validators on the invalid data) as a run starts."""
        ...

    def finish_building(self) -> None:
        """Wait for the judge's own programs, whose build checking the inputs started."""
        ...

    def check_after_ingest(self) -> list[str]:
        """After an ingest: the validators held to the invalid data (kept for the runs), a
        note for each disagreement."""
        ...

# A shrink pass: the cases one small edit simpler than the given one (drop a test, a leaf, a
# person; lower a number), for `stress` to try in order; they need not all be valid or simpler.
ShrinkPass = Callable[[Case], Iterable[Case]]
# A hunt mutation: a random edit of a case of about the same size (change a tree's shape, move
# coins, cluster people), or None when it does not apply; it must depend only on `rng`.
Mutation = Callable[[Case, random.Random], "Case | None"]

RecipeKind = Literal["tiny", "edge", "family", "max"]

# What a stage is for. `oracle`: searches the game's own states (the ground truth on small
# cases); `reference`: a middle oracle, checked against the oracle, trusted for expected answers
# beyond its reach; `method`: a published method transcribed as written (trusted once checked,
# not meant to meet the time limit); `fast`: the solution judged on speed; `known-wrong`: kept
# registered so that its counterexample keeps being checked.
Role = Literal["oracle", "reference", "method", "fast", "known-wrong"]
ROLES: tuple[Role, ...] = ("oracle", "reference", "method", "fast", "known-wrong")


@dataclass(frozen=True)
class Stage:
    """One way of solving a problem: a function case -> answer with declared limits.

    `refuses(case)`: None within the limits, else a short reason (calling the stage then
    raises `BeyondLimits`). `warm_up` pays a one-off start-up cost before a worker times
    cases. `counterexample` builds a known-wrong stage's smallest wrong case. `role`,
    `timeout_s` and `known_wrong` come from `problem.toml`.
    """

    name: str
    solve: Callable[[Case], Answer]
    description: str
    complexity: str
    limits: str = "none"
    refuses: Callable[[Case], str | None] = field(default=lambda case: None)
    warm_up: Callable[[], object] | None = None
    counterexample: Callable[[], Case] | None = None
    role: Role = "method"
    timeout_s: float | None = None
    known_wrong: str | None = None

    def __call__(self, case: Case) -> Answer:
        if (reason := self.refuses(case)) is not None:
            raise BeyondLimits(f"{self.name}: {reason}")
        return self.solve(case)

    def accepts(self, case: Case) -> bool:
        return self.refuses(case) is None

    @property
    def trusted(self) -> bool:
        return self.role != "known-wrong"

    @property
    def judged_on_speed(self) -> bool:
        """Whether a slowdown of this stage is a regression (others are there to be right)."""
        return self.role == "fast"


@dataclass(frozen=True)
class Recipe:
    """A named, seeded generator of cases: `make(rng)` must depend only on `rng`. `group`: the
    test group whose rules its cases are held to (empty: the parser decides)."""

    name: str
    kind: RecipeKind
    description: str
    make: Callable[[random.Random], Case]
    group: str = ""


def numpy_rng(rng: random.Random):
    """A NumPy generator seeded from `rng`, for a recipe that draws in bulk."""
    import numpy as np

    return np.random.default_rng(rng.getrandbits(64))


@dataclass(frozen=True)
class Growth:
    """The size ladder bench and report use: `make(size, seed)`, a case of about `size`."""

    sizes: tuple[int, ...]
    description: str
    make: Callable[[int, int], Case]


@dataclass(frozen=True)
class Bound:
    """One bound the parser enforces: `name` lies in `low`..`high`. `reach(case)`: the lowest
    and highest value the case takes of it (None: none), for constraint coverage."""

    name: str
    low: int
    high: int
    reach: Callable[[Case], tuple[int, int] | None]


def spread(values: Iterable[int]) -> tuple[int, int]:
    """(lowest, highest) of `values`: what a `Bound.reach` answers."""
    values = list(values)
    return min(values), max(values)


# Why a problem shows no coverage: a built-in problem's words (a package says its own).
NO_BOUNDS = ("the problem declares no input bounds (a built-in problem declares them in its "
             "case.py)")


@dataclass(frozen=True)
class BoundCoverage:
    name: str
    low: int | None            # the bound's ends (None: as the validator checks, unknown)
    high: int | None
    lowest: int | None         # over every case (None: no case has this quantity, or the
    highest: int | None        # values are unknown)
    at_low: int                # cases that take the bound's lowest allowed value
    at_high: int               # ... and its highest

    @property
    def unreached(self) -> list[str]:
        """The ends of the bound no case reaches ("low", "high")."""
        return [end for end, hits in (("low", self.at_low), ("high", self.at_high)) if not hits]


def coverage(problem: Problem, inputs: Iterable[str]) -> tuple[BoundCoverage, ...]:
    """Coverage of `problem.bounds` by the cases of `inputs` (each parsed by the problem;
    inputs it refuses are not cases and are left out)."""
    bounds = problem.bounds
    reached: list[list[tuple[int, int]]] = [[] for _ in bounds]  # per bound: (low, high) per case
    for text in inputs:
        try:
            case = problem.parse(text)
        except Exception:  # a stored input the parser now refuses is not a case of it
            continue
        for values, bound in zip(reached, bounds):
            if (found := bound.reach(case)) is not None:
                values.append((int(found[0]), int(found[1])))
    return tuple(BoundCoverage(b.name, b.low, b.high, min((low for low, _ in v), default=None),
                               max((high for _, high in v), default=None),
                               sum(low == b.low for low, _ in v),
                               sum(high == b.high for _, high in v))
                 for b, v in zip(bounds, reached))


@dataclass(frozen=True)
class Checker:
    """The program that judges a problem's answers, run as judges run it: a testlib checker
    or a Kattis output validator, as its `program`'s convention says, with `args`."""

    program: Program
    args: tuple[str, ...] = ()

    @property
    def convention(self) -> Literal["testlib", "kattis"]:
        return self.program.convention


def raw_input_file(data_dir: Path, source: str) -> Path | None:
    """The file `source` names under the data folder's `raw/` (resolved), or None: not there,
    or a member of an archive (`ARCHIVE!MEMBER`), which has no file of its own."""
    if not source or "!" in source:
        return None
    found = Path(data_dir) / "raw" / source
    return found.resolve() if found.is_file() else None


@dataclass(frozen=True)
class Problem:
    """Everything the pipeline knows about one problem, in one value."""

    id: str
    title: str
    source: str
    folder: Path
    time_limit_s: float
    memory_mb: int
    parse: Callable[[str], Case]
    render: Callable[[Case], str]
    format_answer: Callable[[Case, Answer], str]
    validate_answer: Callable[[Case, str], None]
    size: Callable[[Case], int]
    size_values: Callable[[Case], Mapping[str, int]]
    size_columns: tuple[str, ...]
    size_measure: str
    stages: tuple[Stage, ...]
    recipes: tuple[Recipe, ...]
    reference: tuple[str, ...] = ()
    input_mb: float | None = None       # the largest judge input the problem allows
    nightly: Mapping[str, int] = field(default_factory=dict)
    growth: Growth | None = None
    solutions: tuple[Program, ...] = ()  # our own programs, run as external solvers
    submissions: tuple[Program, ...] = ()  # a package's, each held to what it should get
    # Validates an input found in a test group; None: `parse` validates.
    check_input: Callable[[str, str], Case] | None = None
    shrinks: tuple[ShrinkPass, ...] = ()
    mutations: tuple[Mutation, ...] = ()
    checker: Checker | None = None      # judges answers instead of `compare` (problem.toml)
    bounds: tuple[Bound, ...] = ()      # the input's bounds, for constraint coverage

    # -- lookups ----------------------------------------------------------------------------
    def stage(self, name: str) -> Stage:
        return _named(self.id, "stage", self.stages, name)

    def recipe(self, name: str) -> Recipe:
        return _named(self.id, "recipe", self.recipes, name)

    @property
    def trusted_stages(self) -> tuple[Stage, ...]:
        return tuple(s for s in self.stages if s.trusted)

    @property
    def samples(self) -> Path:
        """The folder of the problem's sample tests (pairs `NAME.in` + `NAME.out`)."""
        return self.folder / "samples"

    def stage_timeout_s(self, name: str) -> float:
        """The timeout of a built-in stage: its own from `problem.toml`, else the limit."""
        timeout = self.stage(name).timeout_s
        return float(timeout) if timeout is not None else self.time_limit_s

    def validate_input(self, text: str, group: str = "") -> Case:
        """The case of a judge input found in `group`, or `InputError` saying what is wrong."""
        if self.check_input is not None:
            return self.check_input(text, group)
        return self.parse(text)

    # -- answers ----------------------------------------------------------------------------
    def solve_text(self, text: str, stage: str = "fast") -> str:
        """Judge input text -> judge output text (ending in a newline) with one stage."""
        case = self.parse(text)
        return self.format_answer(case, self.stage(stage)(case))

    def compare(self, expected: str, got: str) -> str | None:
        """None when two outputs agree token by token, else what differs first."""
        return check_tokens_equal(expected.split(), got.split())

    def add_test(self, data_dir: Path, name: str, text: str, answer: str,
                 group: str | None = None) -> tuple[Path, str | None]:
        """Add a test `pipeline harden` made where the problem keeps its tests (a built-in
        problem: `DATA/raw/<id>/hardened/NAME.in` and `.out`); returns the folder to ingest
        and the problem to ingest it as (None: the folder says)."""
        folder = Path(data_dir) / "raw" / self.id / "hardened"
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write_text(folder / f"{name}.out", answer)
        atomic_write_text(folder / f"{name}.in", text)
        return folder, self.id

    # -- what a problem source says about itself (a package overrides these) --------------
    @property
    def package_judge(self) -> PackageJudge | None:
        """The judge of a package's submissions; None: the run's workers run the solvers
        and the runner grades their answers."""
        return None

    @property
    def accepts_other_answers(self) -> bool:
        """Whether an answer can be right without equalling the stored one (a checker)."""
        return self.checker is not None

    @property
    def origin(self) -> str:
        """Where the problem comes from (a package's source); empty for a problem folder."""
        return ""

    @property
    def runs_nightly(self) -> bool:
        """Whether the nightly runs the problem when its config names none."""
        return bool(self.nightly)

    def why_no_cases(self) -> str | None:
        """Why the problem has no cases of its own to run (a package without test data)."""
        return None

    def input_file(self, data_dir: Path, source: str) -> Path | None:
        """The file a case read from `source` (its path as ingested) came from, where the data
        folder `data_dir` still keeps it: under `raw/`; None where it keeps none."""
        return raw_input_file(data_dir, source)

    @property
    def interactive(self) -> bool:
        """Whether a program talks with the problem's judge while it runs."""
        return False

    @property
    def test_groups(self) -> tuple[str, ...]:
        """The problem's test groups (a package's `secret/group1`, ...); none: one set."""
        return ()

    def reference_solutions(self, leaving_out: str) -> tuple[str, ...]:
        """What `stress` judges a program against by default: the trusted stages of the
        reference order but `leaving_out`."""
        return tuple(name for name in self.reference
                     if name != leaving_out and self.stage(name).trusted)

    def known_wrong(self, name: str) -> str | None:
        """What is wrong with the program `name` when it must fail (a known-wrong stage)."""
        return next((stage.known_wrong for stage in self.stages if stage.name == name), None)

    def expected_to_pass(self, name: str) -> bool:
        """Whether the program `name` is expected to get every case right (`--fail-fast`
        runs the others one case at a time, so none runs past its first failure)."""
        return self.known_wrong(name) is None

    def may_pass(self, name: str) -> bool:
        """Whether the program `name` is allowed to get every case right (not one that some
        rule requires to fail somewhere)."""
        return self.known_wrong(name) is None

    def bound_coverage(self, inputs: Iterable[tuple[str, str]]) -> tuple[BoundCoverage, ...]:
        """Constraint coverage: how the stored inputs (text, test group) reach the input's
        bounds, one row per bound (a package asks its testlib input validators)."""
        return coverage(self, (text for text, _group in inputs))

    def why_no_coverage(self) -> str:
        """What constraint coverage says when `bound_coverage` has no row."""
        return NO_BOUNDS

    def generate(self, recipe: str, seed: int, index: int = 0) -> Case:
        """Case number `index` of `recipe` for `seed`: the same on every machine."""
        rng = random.Random(f"{self.id}/{recipe}/{seed}/{index}")
        return self.recipe(recipe).make(rng)


def _named(problem_id: str, kind: str, items, name: str):
    for item in items:
        if item.name == name:
            return item
    raise UnknownName(f"problem {problem_id} has no {kind} {name!r}; {kind}s: "
                      f"{', '.join(i.name for i in items)}")
