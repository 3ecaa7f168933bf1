"""What a problem provides, as plain frozen dataclasses.

Every later layer talks to a problem only through a `Problem` value: parse and validate a
judge input into a typed case, render it back, measure its size, solve it with any of its
stages, and format, validate and compare answers. Its code builds the functions and stages,
its `problem.toml` holds the facts, and `define_problem` joins them. Cases are structured data
(frozen dataclasses, equal by content), so that `stress` can shrink a failing case and render
it again.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pipeline.errors import BeyondLimits, UnknownName
from pipeline.fsutil import atomic_write_text
from pipeline.problems.coverage import NO_BOUNDS, BoundCoverage, coverage
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
    def judge_errors(self) -> Sequence[Any]: ...  # one per submission (or validator) whose
                                                  # judge failed: not held either way

    @property
    def partial(self) -> Sequence[Any]: ...  # one per submission that agrees on the cases
                                             # judged, the package holding cases not judged

    @property
    def bugs(self) -> Sequence[Any]: ...  # the package's own bugs the run shows, each with
                                          # its kind, subject, message and line()

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
    """The judge of the programs a problem holds to what each is expected to get (a package's
    submissions), which builds them, runs and judges them on its cases by its own rules
    (validators, checker, interactor), derives the time limit from them where it is not
    given, and holds each to its expectation. A problem offers one as
    `Problem.package_judge`; a run hands it its executor as a map over jobs (`JobMap`)."""

    def judging(self, names: tuple[str, ...], timeout_s: float | None,
                cases: Callable[[], pl.DataFrame], jobs: JobMap, holding: bool = False,
                fail_fast: bool = False) -> SubmissionJudging:
        """How the submissions `names` are judged: the limit (`timeout_s` when given), derived
        now when it is still to be, from `cases()` (a frame of the stored cases) run on
        `jobs`. `holding`: `hold` follows once they are judged (a run), so the judge may
        start its own checks now and judge them in the pass that derives the limit;
        `fail_fast`: the run stops each at its first failure."""
        ...

    def hold(self, run_id: str, names: tuple[str, ...],
             judged: Mapping[str, Mapping[str, Judgement]], earlier: pl.DataFrame,
             inputs: Mapping[str, str], limit: JudgedLimit,
             cut_short: frozenset[str] = frozenset()) -> tuple[HeldSubmissions, list[dict]]:
        """After a run: each submission held against its expectation, from its judged
        results (`judged`: by name, then case; and `earlier`: the stored rows of a resumed
        run's first part, `inputs` their inputs by case id), and the rows of the
        `expectations` table that keep it. Submissions in `cut_short` stopped at their first
        failure (`--fail-fast`) and are held to the cases they ran."""
        ...

    def run_job(self, job: Job) -> Outcome | None:
        """Run and judge `job` (a submission, or an external program the run has the judge
        judge) on one case; None for a job that is neither."""
        ...

    def jobs(self, judging: SubmissionJudging, cases: pl.DataFrame, repeat: int,
             done: set[tuple[str, str, int]], first_key: int) -> list[Job]:
        """The jobs of `judging`'s specs on `cases` (a frame of the stored cases), `repeat`
        times each, but those `done` (case id, name, repeat), keyed from `first_key`, in the
        order to start them."""
        ...

    def not_runnable(self, names: tuple[str, ...]) -> str | None:
        """Why one of the submissions `names` cannot be run (built now), or None."""
        ...

    def start_building(self, names: tuple[str, ...]) -> None:
        """Start building the submissions `names` (a run whose workers share this machine's
        build cache says so as it starts), so no worker waits for a compiler."""
        ...

    def start_holding(self, names: tuple[str, ...]) -> None:
        """A run that will hold `names` says so as it starts: the judge starts its own checks
        (the validators held to the invalid data) beside the rest of the run's start."""
        ...

    def finish_building(self) -> None:
        """Wait for the judge's own programs, whose build checking the inputs started."""
        ...

    def check_after_ingest(self) -> list[str]:
        """Once an ingest stored the problem's cases: the checks the runs would otherwise
        make (the validators held to the invalid data, kept for the runs), a note each."""
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

    `refuses(case)` returns None when the case is within the stage's limits, otherwise a short
    reason; calling the stage on a refused case raises `BeyondLimits` instead of running for
    hours. `warm_up`, when set, pays a one-off start-up cost (loading a compiled kernel) so that
    a worker can do it before it starts timing cases. A known-wrong stage's `counterexample`
    builds the smallest case we know it gets wrong. `role`, `timeout_s` and `known_wrong` (the
    sentence saying what is wrong) come from the problem's `problem.toml`.
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
        reason = self.refuses(case)
        if reason is not None:
            raise BeyondLimits(f"{self.name}: {reason}")
        return self.solve(case)

    def accepts(self, case: Case) -> bool:
        return self.refuses(case) is None

    @property
    def trusted(self) -> bool:
        return self.role != "known-wrong"

    @property
    def judged_on_speed(self) -> bool:
        """Whether a slowdown of this stage is a regression (oracles and methods are there to
        be right, not fast)."""
        return self.role == "fast"


@dataclass(frozen=True)
class Recipe:
    """A named, seeded generator of cases: `make(rng)` must depend only on `rng`.

    `group` is the test group whose rules its cases are held to: a problem with input
    validators (`check_input`) checks each generated input as an input of that group, and a
    package judges it as a case of that group; empty for a problem whose parser decides."""

    name: str
    kind: RecipeKind
    description: str
    make: Callable[[random.Random], Case]
    group: str = ""


@dataclass(frozen=True)
class Growth:
    """The size ladder bench and report use: `make(size, seed)` builds a case of about `size`
    (in the problem's size measure), shaped like its max tests."""

    sizes: tuple[int, ...]
    description: str
    make: Callable[[int, int], Case]


@dataclass(frozen=True)
class Bound:
    """One bound of the input that the statement names and the parser enforces: `name` lies
    in `low`..`high`. `reach(case)` is the lowest and the highest value the case takes of it
    (over every instance: each A_i, each test's N), or None when the case has none of it.
    Constraint coverage (`pipeline strength`) reports which bounds the cases reach."""

    name: str
    low: int
    high: int
    reach: Callable[[Case], tuple[int, int] | None]


@dataclass(frozen=True)
class Checker:
    """The program that judges a problem's answers, run as judges run it: a testlib checker
    (`checker input output answer`; exit 0 OK, 1 WA, 2 PE, 3 FAIL, 7 points) or a Kattis
    output validator (`validator input answer feedback_dir/ [args] < output`; exit 42
    accepted, 43 wrong answer), as its `program`'s convention says (built like a package's
    programs), with the arguments it is given."""

    program: Program
    args: tuple[str, ...] = ()

    @property
    def convention(self) -> Literal["testlib", "kattis"]:
        return self.program.convention


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
    # Programs the problem builds, runs and judges itself, each held to what it is expected to
    # get (a package's submissions)
    submissions: tuple[Program, ...] = ()
    # Validates an input found in a test group (a package's validators take the group's
    # arguments); None: `parse` validates.
    check_input: Callable[[str, str], Case] | None = None
    shrinks: tuple[ShrinkPass, ...] = ()
    mutations: tuple[Mutation, ...] = ()
    checker: Checker | None = None      # judges answers instead of `compare` (problem.toml)
    bounds: tuple[Bound, ...] = ()      # the input's bounds, for constraint coverage

    # -- lookups ----------------------------------------------------------------------------
    def stage(self, name: str) -> Stage:
        for stage in self.stages:
            if stage.name == name:
                return stage
        raise UnknownName(f"problem {self.id} has no stage {name!r}; stages: "
                          f"{', '.join(s.name for s in self.stages)}")

    def recipe(self, name: str) -> Recipe:
        for recipe in self.recipes:
            if recipe.name == name:
                return recipe
        raise UnknownName(f"problem {self.id} has no recipe {name!r}; recipes: "
                          f"{', '.join(r.name for r in self.recipes)}")

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
        """Add a test that `pipeline harden` made (input `text`, expected output `answer`,
        judged in test `group`) where the problem keeps its tests, and return the folder to
        ingest and the problem to ingest it as (None: the folder says). A built-in problem's
        go to `DATA/raw/<id>/hardened/NAME.in` and `.out`; a package writes into its own
        data."""
        folder = Path(data_dir) / "raw" / self.id / "hardened"
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write_text(folder / f"{name}.out", answer)
        atomic_write_text(folder / f"{name}.in", text)
        return folder, self.id

    # -- what a problem source says about itself (a package overrides these) --------------
    @property
    def package_judge(self) -> PackageJudge | None:
        """The judge of the programs the problem holds to what each is expected to get (a
        package's submissions), which runs and judges them on its cases by its own rules,
        reading each case's stored answer and test group; None: the run's workers run its
        solvers and the runner grades their answers."""
        return None

    @property
    def accepts_other_answers(self) -> bool:
        """Whether an answer can be right without equalling the stored one (a checker)."""
        return self.checker is not None

    @property
    def origin(self) -> str:
        """Where the problem comes from, when that is worth saying beside its name (a
        package's source); empty for a problem folder."""
        return ""

    @property
    def runs_nightly(self) -> bool:
        """Whether the nightly runs the problem when its config names none."""
        return bool(self.nightly)

    def why_no_cases(self) -> str | None:
        """Why the problem has no test cases of its own to run (a package without test data),
        or None: it has some, or makes them."""
        return None

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
        reference order, `leaving_out` left out (empty: there is none)."""
        return tuple(name for name in self.reference
                     if name != leaving_out and self.stage(name).trusted)

    def known_wrong(self, name: str) -> str | None:
        """What is wrong with the program `name` when the problem says it must fail (a stage
        registered as known to be wrong); None for any other."""
        for stage in self.stages:
            if stage.name == name:
                return stage.known_wrong
        return None

    def expected_to_pass(self, name: str) -> bool:
        """Whether the program `name` is expected to get every case right: a stage not known to
        be wrong, a package's accepted submission, an external program (nothing says
        otherwise). `--fail-fast` runs the others one case at a time, so that none runs a case
        past its first failure."""
        return self.known_wrong(name) is None

    def may_pass(self, name: str) -> bool:
        """Whether the program `name` is allowed to get every case right: any but a stage
        known to be wrong, or a package's submission some rule requires to fail somewhere (one
        only permitted to fail, as `mixed/*` with `permitted: [AC, WA]`, may pass)."""
        return self.known_wrong(name) is None

    def bound_coverage(self, inputs: Iterable[tuple[str, str]]) -> tuple[BoundCoverage, ...]:
        """Constraint coverage (`pipeline strength`, the report): how the stored inputs (each
        its text and the test group it was found in) reach the input's bounds, one row per
        bound. A built-in problem counts its declared `bounds` over the cases its parser
        makes of the inputs; a package asks its testlib input validators."""
        return coverage(self, (text for text, _group in inputs))

    def why_no_coverage(self) -> str:
        """What constraint coverage says when `bound_coverage` has no row."""
        return NO_BOUNDS

    def generate(self, recipe: str, seed: int, index: int = 0) -> Case:
        """Case number `index` of `recipe` for `seed`: the same on every machine."""
        rng = random.Random(f"{self.id}/{recipe}/{seed}/{index}")
        return self.recipe(recipe).make(rng)
