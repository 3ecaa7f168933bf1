"""The worker side of an executor: run jobs one after another and report each outcome.

A worker imports each problem once. Built-in stages run in the worker itself; external programs
as contained children (`external`), or judged by the problem's own `package_judge`. A stage is
limited as a program is (CPU time, `contained.wall_cap_s`): the worker writes its job, start,
CPU clock and waits into shared memory (`progress`) and the parent kills it when over.
"""

from __future__ import annotations

import contextlib
import functools
import multiprocessing
import os
import signal
import time
import traceback
from collections.abc import Iterable
from dataclasses import dataclass
from multiprocessing.connection import Connection

from pipeline.errors import BeyondLimits, InputError
from pipeline.fsutil import current_umask
from pipeline.problems import Problem, current_problem, get_problem
from pipeline.programs.contained import use_sandbox, waited_s, wall_cap_s
from pipeline.programs.external import (
    ChildTracker,
    cleanup_scratch,
    cpu_over_message,
    prepare_worker,
    run_external,
    wall_cap_message,
)
from pipeline.programs.jobs import Job, Outcome
from pipeline.programs.processes import die_with_parent
from pipeline.verdicts import Verdict

READY = "ready"  # sent before a batch's first job: the parent's clock for it starts here
FLUSH_S = 0.005
# The shared doubles a worker writes before each job: its index in the batch, its start
# (monotonic), this process's CPU time then, and its waits for a core then.
PROGRESS_FIELDS = 4

_problem = functools.cache(get_problem)  # each problem imported once per worker
_warm: set[tuple[str, str]] = set()

# The longest a worker warms up one stage on its own clock (`_within`): only a stage that
# hangs reaches it, and must not hold up the run.
WARM_UP_BUDGET_S = 5.0


class _OverBudget(Exception):
    """The warm-up case took longer than its budget."""


def warm_up_inputs(problem: Problem) -> tuple[str, ...]:
    """The inputs a stage may be warmed up on: the first sample, then the first tiny case."""
    inputs = []
    samples = sorted(problem.samples.glob("*.in")) if problem.samples.is_dir() else []
    if samples:
        inputs.append(samples[0].read_text(encoding="utf-8").replace("\r\n", "\n"))
    tiny = next((r for r in problem.recipes if r.kind == "tiny"), None)
    if tiny is not None:
        inputs.append(problem.render(problem.generate(tiny.name, 0)))
    return tuple(inputs)


def _answer_warm_up_case(problem: Problem, stage_name: str) -> None:
    """The stage's own warm-up, then the first warm-up input it accepts, as a timed case."""
    stage = problem.stage(stage_name)
    if stage.warm_up is not None:
        stage.warm_up()
    for text in warm_up_inputs(problem):
        case = problem.parse(text)
        if stage.refuses(case) is None:
            problem.format_answer(case, stage.solve(case))
            return


def _within(seconds: float, work) -> None:
    """Run `work()`, raising `_OverBudget` in it once `seconds` have passed on this process's
    own clock (SIGALRM; the wall clock less its waits for a core)."""
    start, waited = time.monotonic(), waited_s(os.getpid())

    def expire(signum, frame):
        own = time.monotonic() - start - (waited_s(os.getpid()) - waited)
        if own < seconds:  # it waited for a core: not charged
            signal.setitimer(signal.ITIMER_REAL, max(seconds - own, 0.01))
            return
        raise _OverBudget()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        work()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _survives_in_a_copy(work, seconds: float) -> bool:
    """Whether `work()` returns within `seconds` (`_within`) in a forked copy of this worker
    (a stage known to be wrong may crash its process); the kernel ends the copy after
    `seconds` of CPU time (SIGPROF) even if this worker is gone."""
    pid = os.fork()
    if pid == 0:  # (the copy ends here, whatever `work` does)
        with contextlib.suppress(BaseException):
            signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the worker's clean-up
            signal.signal(signal.SIGPROF, signal.SIG_DFL)
            signal.setitimer(signal.ITIMER_PROF, seconds)
            _within(seconds, work)
            os._exit(0)
        os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def _warm_up(problem_id: str, stage_name: str) -> None:
    """Import the problem and have the stage answer one real case, once per worker, so
    one-off costs (imports, native libraries, caches) are paid before any timed case; a stage
    not trusted does so in a forked copy first. A failure is left to the stage's own cases to
    show."""
    problem = _problem(problem_id)
    if (problem_id, stage_name) in _warm or not stage_name:  # "": the problem alone
        return
    _warm.add((problem_id, stage_name))
    with contextlib.suppress(Exception):  # a broken stage shows up as RE on its cases, not here
        stage = problem.stage(stage_name)
        budget = min(WARM_UP_BUDGET_S, problem.stage_timeout_s(stage_name))
        work = functools.partial(_answer_warm_up_case, problem, stage_name)
        if not stage.trusted and not _survives_in_a_copy(work, budget):
            return
        _within(budget, work)


def run_stage(job: Job) -> Outcome:
    """Parse, solve and format one case with a built-in stage, timing all three."""
    problem = _problem(job.solver.problem)
    stage = problem.stage(job.solver.stage)
    wall, cpu, waited = time.perf_counter(), time.process_time(), waited_s(os.getpid())
    try:
        case = problem.parse(job.input)
        refusal = stage.refuses(case)
        if refusal is not None:
            return Outcome(job.key, Verdict.SKIP, error=refusal)
        answer = problem.format_answer(case, stage.solve(case))
    except BeyondLimits as error:
        return Outcome(job.key, Verdict.SKIP, error=str(error))
    except InputError as error:
        return Outcome(job.key, Verdict.RE, error=f"input rejected: {error}")
    except MemoryError:
        return Outcome(job.key, Verdict.MLE, error="MemoryError")
    except Exception as error:  # a crashing stage is a verdict, not a crashed run
        frames = traceback.extract_tb(error.__traceback__)
        where = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
        return Outcome(job.key, Verdict.RE, error=f"{type(error).__name__}: {error}{where}")
    wall_ms = (time.perf_counter() - wall) * 1000
    cpu_ms = (time.process_time() - cpu) * 1000
    timeout_s = job.solver.timeout_s
    if cpu_ms > timeout_s * 1000:
        return Outcome(job.key, Verdict.TLE, wall_ms=wall_ms, cpu_ms=cpu_ms,
                       error=cpu_over_message(timeout_s, cpu_ms))
    # the cap is on the worker's own clock: its waits for a core are not charged
    if wall_ms - (waited_s(os.getpid()) - waited) * 1000 > wall_cap_s(timeout_s) * 1000:
        return Outcome(job.key, Verdict.TLE, wall_ms=wall_ms, cpu_ms=cpu_ms,
                       error=wall_cap_message(timeout_s, cpu_ms))
    return Outcome(job.key, answer=answer, wall_ms=wall_ms, cpu_ms=cpu_ms)


def execute(job: Job) -> Outcome:
    """Run `job`: by its problem's `package_judge` where it has one, else the external program
    or the built-in stage; every program it runs is sandboxed as `SolverSpec.sandbox` says."""
    if job.solver.kind != "stage":
        use_sandbox(job.solver.sandbox)
        judge = current_problem(job.solver.problem).package_judge
        judged = judge.run_job(job) if judge is not None else None
        return judged if judged is not None else run_external(job)
    return run_stage(job)


def prepare_server(problems: Iterable[str]) -> None:
    """The sandbox probe and the problems `problems` loaded (a package read), done once in the
    worker server so each worker starts with them."""
    from pipeline.programs.launcher import probe

    with contextlib.suppress(Exception):  # a worker probing again says what is wrong
        probe(True)
    for problem_id in problems:
        with contextlib.suppress(Exception):  # a worker loading it says what is wrong
            _problem(problem_id)


def _terminate(signum, frame) -> None:
    ChildTracker.kill_current()
    cleanup_scratch()
    os._exit(0)  # nothing to flush; sys.exit here can land inside interpreter shutdown


@dataclass(frozen=True)
class ProcessSettings:
    """What a process started now by this one would inherit, and a worker forked from the
    worker server (which holds those of its own start) would not."""

    environment: dict[str, str]
    cwd: str
    cpus: frozenset[int]
    umask: int


def process_settings() -> ProcessSettings:
    """This process's settings now."""
    return ProcessSettings(dict(os.environ), os.getcwd(), frozenset(os.sched_getaffinity(0)),
                           current_umask())


def _take(settings: ProcessSettings) -> None:
    os.environ.clear()
    os.environ.update(settings.environment)
    os.umask(settings.umask)
    # the folder gone, the CPUs not this process's to take: as it is
    with contextlib.suppress(OSError):
        os.chdir(settings.cwd)
        os.sched_setaffinity(0, settings.cpus)


def worker_main(connection: Connection, preload: tuple[tuple[str, str], ...] = (),
                progress=None, settings: ProcessSettings | None = None,
                parent_pid: int | None = None) -> None:
    """Serve batches of jobs from `connection` until it sends None or closes.

    `preload`: (problem, stage) pairs to warm up first. `progress`: shared doubles
    (`PROGRESS_FIELDS`). `settings`: the pool's process's (None: this one's). `parent_pid`:
    the process that started this one, which it dies with (None: multiprocessing's parent).
    """
    if settings is not None:
        _take(settings)
    if parent_pid is None:
        parent = multiprocessing.parent_process()
        parent_pid = parent.pid if parent is not None else None
    die_with_parent(parent_pid)
    prepare_worker()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    signal.signal(signal.SIGTERM, _terminate)
    for problem_id, stage in preload:
        _warm_up(problem_id, stage)
    while True:
        try:
            batch = connection.recv()
        except EOFError:
            batch = None
        if batch is None:
            cleanup_scratch()
            return
        for problem_id, stage in {(job.solver.problem, job.solver.stage) for job in batch
                                  if job.solver.kind == "stage"}:
            _warm_up(problem_id, stage)
        connection.send(READY)
        # Outcomes travel in groups, one sent before a job once FLUSH_S has passed since the
        # last (a message per tiny case would cost more than the case).
        outcomes: list[Outcome] = []
        last = time.monotonic()
        for index, job in enumerate(batch):
            now = time.monotonic()
            if outcomes and now - last >= FLUSH_S:
                connection.send(outcomes)
                outcomes, last = [], now
            if progress is not None:  # the index last: it says the others are this job's
                progress[1] = now
                progress[2] = time.process_time()
                progress[3] = waited_s(os.getpid())
                progress[0] = index
            outcomes.append(execute(job))
        connection.send(outcomes)
