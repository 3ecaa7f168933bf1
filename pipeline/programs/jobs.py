"""The unit of work of a run: one solver on one case, and what came of it; small frozen
dataclasses that pickle cheaply, for any executor to carry to a worker and back.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Literal, Protocol

from pipeline.programs.program import Program
from pipeline.verdicts import Verdict

SolverKind = Literal["stage", "external", "submission"]
# The verdicts an outcome carries itself: a run stopped before its end, or not run at all.
STOPPED = frozenset({Verdict.TLE, Verdict.MLE, Verdict.RE, Verdict.OLE, Verdict.SKIP})


@dataclass(frozen=True)
class SubmissionTime:
    """A package's submission's time: the limit it is judged at, the CPU time it is run to
    (so each result can be judged again up to it), and where it is cut on the cases it is
    meant to time out on but `full_case` (`runjob.judge_job`; None: never)."""

    judged_s: float
    run_to_s: float
    cut_s: float | None = None
    full_case: str = ""


@dataclass(frozen=True)
class SolverSpec:
    """How to run one solver on a job: a built-in stage of a problem, or a program (an
    external program, a package's submission) under its limits and sandbox."""

    name: str
    kind: SolverKind
    problem: str
    timeout_s: float
    memory_mb: int | None = None  # programs: address-space limit (None: none)
    output_limit_bytes: int = 64 * 1024 * 1024
    argv: tuple[str, ...] = ()  # external programs: the command built (empty: built where it runs)
    stage: str = ""             # built-in stages only: the stage's name in the problem
    program: Program | None = None  # the program it runs (packed when built where it runs)
    heap_mb: int | None = None  # a JVM program built where it runs: the heap it gets
    stack_mb: int | None = None  # external programs: None = as memory_mb; 0 = unlimited
    sandbox: bool = False       # external programs: run in the sandbox (see `external`)
    visible: tuple[str, ...] = ()  # paths under /tmp the sandbox shows the program (read-only)
    hidden: tuple[str, ...] = ()   # paths the sandbox hides from it (the data folder, ...)
    submission: SubmissionTime | None = None  # a package's submission: its time
    judged_by_problem: bool = False     # external programs: run and judged by the problem itself
    truncate_output: bool = False       # output past the limit fails to write (`Limits`)

    @property
    def builds_where_it_runs(self) -> bool:
        """Whether the worker builds the program first (an external program sent unbuilt)."""
        return self.kind == "external" and not self.argv and self.program is not None


@dataclass(frozen=True)
class Job:
    key: int
    solver: SolverSpec
    case_id: str
    input: str
    repeat: int = 0
    answer: str | None = None   # the stored expected answer (a package's judge reads it)
    group: str | None = None    # the case's group (a package's judge gives it its arguments)


class Judgement(Protocol):
    """A problem's verdict on one run of a program, given where it ran by the problem's own
    rules (a package's validator, checker or interactor), with the problem's own record."""

    @property
    def case(self) -> str: ...

    @property
    def verdict(self) -> Verdict: ...

    @property
    def score(self) -> float | None: ...

    @property
    def message(self) -> str: ...


@dataclass(frozen=True)
class Outcome:
    """What happened when a job ran: `verdict` one of `STOPPED` (or `JE`: not judged), or
    None when it ran to its end, its answer to be graded (or judged there: `judgement`)."""

    key: int
    verdict: Verdict | None = None
    answer: str | None = None
    wall_ms: float | None = None
    cpu_ms: float | None = None
    peak_rss_kb: int | None = None
    exit_code: int | None = None
    error: str | None = None
    host: str | None = None  # the machine that ran the job, when it was not this one
    judgement: Judgement | None = None  # the problem's verdict, when it judged the run there
    # every program's CPU time the run took: each pass of a multi-pass case and what judged it
    # (an output validator, interactor or checker), and the wall time over them all from the
    # first start to the last end; None: the solver's alone, `cpu_ms` and `wall_ms`
    programs_cpu_ms: float | None = None
    elapsed_ms: float | None = None


# Why a job is not to be run after all (asked as it is about to be sent), or None: run it.
Skip = Callable[[Job], "str | None"]


class JobMap(Protocol):
    """What runs jobs (`run.executors.Executor`), as a problem's own judge sees it."""

    def run(self, jobs: Iterable[Job], skip: Skip | None = None,
            one_at_a_time: frozenset[str] = frozenset()) -> Iterator[tuple[Job, Outcome]]:
        """Run every job; yield each with its outcome as soon as it is known. A job `skip`
        (asked just before it is sent) gives a reason for is yielded at once as SKIP. The
        jobs of the solvers in `one_at_a_time` run one after another (`--fail-fast`)."""
