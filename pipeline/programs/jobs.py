"""The unit of work of a run: one solver on one case, and what came of it.

Jobs and outcomes are small frozen dataclasses that pickle cheaply, so any executor (the local
process pool, a Dask cluster) can carry them to a worker and back. An external program that is
built from source travels as its `BuildRecipe` (the build command and the source's bytes), so a
worker on another machine builds it there; the local executor builds it once on this machine
and sends the finished command (`argv`). A problem with rules of its own (a registered
package) judges its programs where they run (`Problem.run_job`), and the outcome carries that
judgement (`judged`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from pipeline.packages.model import CaseResult

SolverKind = Literal["stage", "external", "submission"]
Status = Literal["ok", "tle", "mle", "re", "ole", "skip"]


@dataclass(frozen=True)
class BuildRecipe:
    """How to build an external program from its source, anywhere.

    `language` is the language table's code (`pipeline.programs.languages`) that builds and
    runs the source; None: the program's own `build` and `run` command templates (split like a
    shell would, never run through one), in which `{exe}` is the program built and `{source}`
    the source file. `key` names the recipe: a hash of the language, the commands and the
    source's name and content. `memory_mb` is the heap a JVM language is run with.
    """

    name: str
    build: str | None
    run: str
    key: str
    source_name: str | None = None  # the source file's name (its folder is not part of it)
    source: bytes | None = None     # the source file's content
    language: str | None = None
    memory_mb: int | None = None


@dataclass(frozen=True)
class SolverSpec:
    """How to run one solver: a built-in stage of a problem, or an external program."""

    name: str
    kind: SolverKind
    problem: str
    timeout_s: float
    memory_mb: int | None = None  # external programs: address-space limit (None: none)
    output_limit_bytes: int = 64 * 1024 * 1024
    argv: tuple[str, ...] = ()  # external programs only: the command, already built
    stage: str = ""             # built-in stages only: the stage's name in the problem
    build: BuildRecipe | None = None  # external programs built where they run (argv empty)
    stack_mb: int | None = None  # external programs: None = as memory_mb; 0 = unlimited
    sandbox: bool = False       # external programs: run in the sandbox (see `external`)
    visible: tuple[str, ...] = ()  # paths under /tmp the sandbox shows the program (read-only)
    hidden: tuple[str, ...] = ()   # paths the sandbox hides from it (the data folder, ...)
    submission: str = ""        # package submissions only: the submission's name
    judged_time_s: float | None = None  # package submissions: the time limit judged at
    kill_after_s: float | None = None   # package submissions: stopped after this (CPU) time
    cut_after_s: float | None = None    # package submissions: every case but `full_case`
    full_case: str = ""                 # stopped after this time instead (see submissions)
    own_wall_s: float | None = None     # external programs: the wall-clock cap on its own
                                        # time (less its waits for a core); None: the cap of
                                        # 2 x timeout + 1 s of the wall clock
    judged_by_problem: bool = False     # external programs: run and judged by the problem itself
    truncate_output: bool = False       # output past the limit fails to write instead of
                                        # killing it (a judge's truncation; see `contained`)


@dataclass(frozen=True)
class Job:
    key: int
    solver: SolverSpec
    case_id: str
    input: str
    repeat: int = 0
    answer: str | None = None   # the stored expected answer (a package's judge reads it)
    group: str | None = None    # the case's group (a package's judge gives it its arguments)


@dataclass(frozen=True)
class Outcome:
    """What happened when a job ran (grading against the expected answer is the runner's)."""

    key: int
    status: Status
    answer: str | None = None
    wall_ms: float | None = None
    cpu_ms: float | None = None
    peak_rss_kb: int | None = None
    exit_code: int | None = None
    error: str | None = None
    host: str | None = None  # the machine that ran the job, when it was not this one
    judged: CaseResult | None = None  # package submissions: the package's verdict and score
