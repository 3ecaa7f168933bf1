"""Executors: how jobs reach workers. The runner only sees the `Executor` interface.

`LocalPoolExecutor` (the default) keeps N worker processes and hands them batches of jobs. A
built-in stage whose case has used its timeout in CPU time, or run past the wall-clock cap on
the worker's own clock (`contained.wall_cap_s`), gets its worker killed and replaced, the job
recorded `TLE` and the rest of the batch handed out again. A batch's clock starts when its
worker says it is ready, so start-up is never charged to a case. `serve` runs the jobs of
several callers as one queue (a contest's problems, `run.queue`).

`DaskExecutor` (`dask_executor`) runs the same batches on a Dask cluster; `choice.make_executor`
builds either one.
"""

from __future__ import annotations

import bisect
import contextlib
import multiprocessing
import os
import select
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, Protocol

from pipeline.errors import UserError
from pipeline.programs import contained
from pipeline.programs.external import cpu_over_message, remove_scratch_of, wall_cap_message
from pipeline.programs.jobs import Job, JobMap, Outcome, Skip
from pipeline.programs.processes import CLOCK_TICKS, cpu_seconds
from pipeline.run.worker import PROGRESS_FIELDS, READY, process_settings, worker_main
from pipeline.run.workerserver import ServedProcess, SharedDoubles, start_server
from pipeline.verdicts import Verdict

# Extra seconds a worker gets past an external program's backstop (`contained.busy_s`, its
# launcher's) before the parent kills it: this only catches a stuck worker.
EXTERNAL_GRACE_S = 5.0
POLL_S = 0.05  # also how often the CPU time of a worker on a built-in stage is looked at
# How long a worker may take to start and import a batch's problems before it counts as stuck.
STARTUP_TIMEOUT_S = 60.0
# A pool let grow (`grow_to`): one more batch at once each time its busy workers wanted at least
# ASLEEP_TO_GROW cores less than their number over GROW_WINDOW_S; the command line's pool grows
# to GROW_PER_CORE batches per core.
ASLEEP_TO_GROW = 0.5
GROW_WINDOW_S = 0.25
GROW_PER_CORE = 4
# A grown pool keeps its batches running (each ended batch is followed by another) until a window
# finds the machine's cores idle less than this on average; then it runs one batch fewer.
BUSY_TO_SHRINK = 0.25
# A grown pool starts a new worker process (some 0.3 s of a core) only for at least this much
# work left per batch running (`worth_a_new_worker`).
NEW_WORKER_WORK_S = 1.0
# The start of a judge error's message: the workers that ran a job died, once each.
DIED_TWICE = "judge error: its worker died twice"


class ExecutorError(RuntimeError):
    """An executor that cannot start or cannot carry on (e.g. a cluster out of reach)."""


class Executor(JobMap, Protocol):
    """What the runner needs of an executor: `run` (`JobMap`'s) and `close`. One whose workers
    build external programs themselves from `SolverSpec.program` says so with
    `builds_on_workers = True`."""

    def close(self) -> None:
        """Stop every worker and every program they started."""


def held_back(batch: list[Job], one_at_a_time: frozenset[str], out: set[str]) -> bool:
    """Whether `batch` waits: it has a job of a solver run one at a time of which a job is
    out (sent, not back yet: `out`)."""
    return bool(one_at_a_time) and any(
        job.solver.name in one_at_a_time and job.solver.name in out for job in batch)


class Arrivals(Protocol):
    """Jobs that reach a running pool from several callers (`serve`), by problem."""

    def fileno(self) -> int:
        """A descriptor that is readable when jobs have arrived or the arrivals are over."""

    def take(self) -> list[list[Job]] | None:
        """The batches arrived since the last call, each placed by `rank`; None once no more
        will come."""

    def rank(self, job: Job) -> int:
        """Where `job`'s batch goes among the pending ones: a lower rank first."""

    def skip(self, job: Job) -> str | None:
        """Why `job` is not to be run after all (its caller's `skip`), or None."""

    def one_at_a_time(self, problem: str) -> frozenset[str]:
        """The solvers of `problem` whose jobs run one after another now."""

    def waiting(self, problem: str) -> bool:
        """Whether no job of `problem` is to be sent now (its caller's `skip` has not seen
        its outcomes yet)."""


def skipped(batch: list[Job], skip: Skip | None) -> tuple[list[Job], list[tuple[Job, Outcome]]]:
    """The jobs of `batch` to run, and the others with their `skip` outcomes."""
    reasons = [skip(job) if skip is not None else None for job in batch]
    return ([job for job, reason in zip(batch, reasons) if reason is None],
            [(job, Outcome(job.key, Verdict.SKIP, error=reason))
             for job, reason in zip(batch, reasons) if reason is not None])


class _Pending:
    """The batches waiting to be sent: by rank (lower first), in order of arrival within a
    rank, and those handed back (`first`) before all. Placing a batch costs the same however
    many wait."""

    FIRST = -1  # the rank of a batch handed back (ranks are at least 0)

    def __init__(self, batches: Iterable[list[Job]] = ()) -> None:
        self._by_rank: dict[int, deque[list[Job]]] = {}
        self._ranks: list[int] = []  # the keys of `_by_rank`, in order
        self.jobs = 0  # how many jobs wait
        for batch in batches:
            self.add(batch, 0)

    def add(self, batch: list[Job], rank: int) -> None:
        bucket = self._by_rank.get(rank)
        if bucket is None:
            bucket = self._by_rank[rank] = deque()
            bisect.insort(self._ranks, rank)
        bucket.append(batch)
        self.jobs += len(batch)

    def first(self, batch: list[Job]) -> None:
        """Put `batch` before every other (a batch handed back)."""
        self.add(batch, self.FIRST)
        self._by_rank[self.FIRST].rotate(1)

    def __len__(self) -> int:
        return sum(map(len, self._by_rank.values()))

    def __bool__(self) -> bool:
        return bool(self._ranks)

    def head(self) -> Job:
        """The first job of the first batch (the pending batches are not empty)."""
        return self._by_rank[self._ranks[0]][0][0]

    def take(self, can_go: Callable[[list[Job]], bool],
             alone: Callable[[list[Job]], bool]) -> Iterator[list[Job]]:
        """Take off and yield, in order, each batch `can_go` lets go; of one whose first job
        travels alone (`alone`), only that job, the rest keeping its place."""
        for rank in list(self._ranks):
            bucket = self._by_rank[rank]
            index = 0
            while index < len(bucket):
                batch = bucket[index]
                if not can_go(batch):
                    index += 1
                    continue
                if len(batch) > 1 and alone(batch):
                    bucket[index], batch = batch[1:], batch[:1]
                else:
                    del bucket[index]
                    if not bucket:
                        del self._by_rank[rank]
                        self._ranks.remove(rank)
                self.jobs -= len(batch)
                yield batch


@dataclass
class _Worker:
    process: ServedProcess | BaseProcess
    connection: Connection
    progress: Any  # shared doubles (worker.PROGRESS_FIELDS; the Dask pool's: a RawArray)
    batch: list[Job] = field(default_factory=list)
    done: int = 0       # outcomes received for this batch
    ready: bool = False  # the worker has started on its batch (else: still starting up)
    since: float = 0.0  # when the batch was sent or READY came
    cpu_looked: float = 0.0  # when its CPU time was last read
    counted: float = 0.0  # up to when its time on the batch is in the pool's `_busy_s`
    child: Connection | None = None  # the worker's end of `connection`, until it has started

    @property
    def busy(self) -> bool:
        return self.done < len(self.batch)

    @property
    def running(self) -> tuple[int, float]:
        """(index in the batch, start time) of the job the worker is on, from shared memory
        (outcomes arrive in groups: jobs after `done` may be finished already)."""
        index, started = int(self.progress[0]), self.progress[1]
        if index < self.done:  # not yet written for this batch's next job
            return self.done, max(self.since, started)
        return index, started

    def waited_s(self) -> float:
        """The seconds the worker has waited for a core since the job it is on started."""
        if int(self.progress[0]) < self.done or self.process.pid is None:
            return 0.0
        return max(0.0, contained.waited_s(self.process.pid) - self.progress[3])

    def cpu_used_s(self) -> float | None:
        """The CPU time the worker has spent on the job it is on (None: not known yet)."""
        if int(self.progress[0]) < self.done or self.process.pid is None:
            return None
        now = cpu_seconds(self.process.pid)
        return None if now is None else max(0.0, now - self.progress[2])


def how_it_ended(process: ServedProcess | BaseProcess) -> str:
    """How a worker process that died ended: its signal, its exit status, or "exit status
    unknown" (reaped before it was read)."""
    process.join(timeout=1)
    code = process.exitcode
    if code is None:
        return "exit status unknown"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


def batches(jobs: Iterable[Job], max_jobs: int = 64,
            max_bytes: int = 1 << 20) -> Iterator[list[Job]]:
    """Group jobs so that small ones travel together and big ones alone: built-in stages by
    64, external programs by 4, a package's submissions one by one."""
    batch: list[Job] = []
    size = 0
    for job in jobs:
        limit = {"stage": max_jobs, "submission": 1}.get(job.solver.kind, 4)
        if batch and (len(batch) >= limit or size + len(job.input) > max_bytes):
            yield batch
            batch, size = [], 0
        batch.append(job)
        size += len(job.input)
    if batch:
        yield batch


def demand_since(workers: list[int], before: tuple[float, dict[int, float]] | None
                 ) -> tuple[float | None, tuple[float, dict[int, float]]]:
    """How many cores the process trees of `workers` wanted on average (CPU time and waits
    for a core over the time passed) since the reading `before` (None: none yet; a worker not
    in it counts one core); and the reading now."""
    times = {pid: cpu + waited for pid, (cpu, waited) in contained.trees_times(workers).items()}
    now = (time.monotonic(), times)
    if before is None or now[0] <= before[0]:
        return None, now
    span = now[0] - before[0]
    return sum((times[pid] - before[1][pid]) / span if pid in before[1] else 1.0
               for pid in workers), now


def idle_cores_since(before: tuple[float, float] | None
                     ) -> tuple[float | None, tuple[float, float]]:
    """How many of the machine's cores sat idle on average (idle or waiting for I/O, from
    `/proc/stat`) since the reading `before` (None: none yet, or unreadable); and the reading
    now. What a pool's workers want undercounts their programs' waits for a core (a program
    that ended takes its waits with it): only cores seen idle say that another batch can run."""
    now = time.monotonic()
    try:
        with open("/proc/stat", "rb") as handle:
            fields = handle.readline().split()
        idle = (int(fields[4]) + int(fields[5])) / CLOCK_TICKS
    except (OSError, ValueError, IndexError):
        return None, (now, -1.0)
    if before is None or before[1] < 0 or now <= before[0]:
        return None, (now, idle)
    return (idle - before[1]) / (now - before[0]), (now, idle)


def worth_a_new_worker(pending_jobs: int, done_jobs: int, busy_s: float, busy: int) -> bool:
    """Whether the work left (`pending_jobs` at the average time of `done_jobs` in `busy_s`,
    shared by `busy` batches and the new one) is worth one more worker process."""
    if done_jobs == 0:
        return pending_jobs >= 2 * (busy + 1)
    return pending_jobs * busy_s / done_jobs / (busy + 1) >= NEW_WORKER_WORK_S


def may_grow(demand: float | None, busy: int, size: int, grow_to: int,
             next_kind: str | None, idle_cores: float | None) -> bool:
    """Whether a pool of `size` workers, `busy` of them on a batch, starts one more batch:
    the next batch runs programs (not a built-in stage), its busy workers wanted at least
    `ASLEEP_TO_GROW` cores less than their number, the machine left at least as many idle
    (`idle_cores_since`), and fewer than `grow_to` batches run."""
    return (next_kind is not None and next_kind != "stage" and size <= busy < grow_to
            and demand is not None and busy - demand >= ASLEEP_TO_GROW
            and idle_cores is not None and idle_cores >= ASLEEP_TO_GROW)


def keeps_growing(idle_cores: float | None) -> bool:
    """Whether a grown pool keeps running as many batches at once (each batch that ends
    followed by another): unless the machine's cores were idle less than `BUSY_TO_SHRINK` on
    average since the last look (`idle_cores_since`; None: not known, kept)."""
    return idle_cores is None or idle_cores >= BUSY_TO_SHRINK


class LocalPoolExecutor(contextlib.AbstractContextManager["LocalPoolExecutor"]):
    """N worker processes on this machine (forked from the worker server, `workerserver`).

    Let grow (`grow_to`), it runs more batches at once than it has workers while their
    programs sleep or wait (`may_grow`, looked at every `GROW_WINDOW_S`), and keeps running as
    many until the cores are busy (`keeps_growing`); programs are judged on their CPU time and
    own clock, so running side by side changes no verdict."""

    def __init__(self, jobs: int | None = None,
                 preload: tuple[tuple[str, str], ...] = (), grow_to: int | None = None) -> None:
        """`preload`: (problem, stage) pairs the workers warm up."""
        self.size = max(1, jobs or os.cpu_count() or 1)
        self.grow_to = max(self.size, grow_to or self.size)
        self._context = self._make_context(tuple(preload))
        self._workers: list[_Worker] = []
        self._preload = tuple(preload)
        self._demand_reading: tuple[float, dict[int, float]] | None = None
        self._idle_reading: tuple[float, float] | None = None  # (`idle_cores_since`)
        self._grown = 0          # batches it runs at once beyond `size`, kept (`_grow`)
        self._done_jobs = 0      # jobs whose outcome came back in this `run`, and the
        self._busy_s = 0.0       # seconds the workers' batches took so far (for the average)
        self._skip: Skip | None = None
        # problem -> its solvers run one at a time (a plain run's are the same for all)
        self._turns: Callable[[str], frozenset[str]] = lambda problem: frozenset()
        self._arrivals: Arrivals | None = None
        self._passed: list[tuple[Job, Outcome]] = []  # jobs `skip` left out, to be yielded
        self._none_found: float | None = None  # when `_take` last found no batch to send
        self._deaths: dict[int, str] = {}  # job key -> how the worker it was on died (this run)
        self._starting: threading.Thread | None = None
        # what `_loop` waits on: the busy workers' connections, and the arrivals while open
        self._poll = select.poll()
        self._start_failed: BaseException | None = None
        if self._preload or self.start_at_once:  # started in the background now, each forked
            # by the worker server, ready (warmed up with `preload`) when the first jobs come
            first = [self._new_worker() for _ in range(self.size)]
            self._starting = threading.Thread(target=self._start_all, args=(first,),
                                              name="gamebench-pool-start", daemon=True)
            self._starting.start()

    start_at_once = True  # (else the workers start as the first batches come)

    def _make_context(self, preload: tuple[tuple[str, str], ...]):
        """Where the workers come from: this process's worker server, started now if need be."""
        start_server(problem for problem, _ in preload)
        return None

    def _shared_progress(self):
        return SharedDoubles(PROGRESS_FIELDS)

    def _process(self, connection: Connection, progress) -> ServedProcess | BaseProcess:
        """A worker process serving `connection`, to be forked by the server with this
        process's settings as they are now."""
        return ServedProcess(worker_main, connection, progress,
                             {"preload": self._preload, "settings": process_settings()})

    def _new_worker(self) -> _Worker:
        """A worker not started yet (`_start`), in the pool."""
        parent, child = multiprocessing.Pipe(duplex=True)  # (any context's `Pipe` is this one)
        progress = self._shared_progress()
        worker = _Worker(self._process(child, progress), parent, progress, child=child)
        self._workers.append(worker)
        return worker

    def _start(self, worker: _Worker) -> None:
        self._launch(worker.process)
        if worker.child is not None:
            worker.child.close()
        worker.child = None

    def _launch(self, process: ServedProcess | BaseProcess) -> None:
        process.start()

    def _start_all(self, workers: list[_Worker]) -> None:
        try:
            for worker in workers:
                self._start(worker)
        except BaseException as error:  # raised where the pool is next used
            self._start_failed = error

    def _started(self) -> None:
        """Wait for the workers started in the background; raise what stopped them."""
        if self._starting is not None:
            self._starting.join()
            self._starting = None
        if self._start_failed is not None:
            error, self._start_failed = self._start_failed, None
            raise ExecutorError(f"the pool's workers could not start: {error}") from error

    def _start_worker(self) -> _Worker:
        worker = self._new_worker()
        self._start(worker)
        return worker

    def _watch(self, fd: int, watched: bool) -> None:
        """Have `_loop` wait on `fd` (a busy worker's connection, the arrivals) or not."""
        if watched:
            self._poll.register(fd, select.POLLIN)
        else:
            with contextlib.suppress(KeyError):
                self._poll.unregister(fd)

    def _retire(self, worker: _Worker, stopping: bool = False) -> None:
        """Take `worker` out of the pool and wait for its end (`stopping`: it was told to
        stop already, `close`)."""
        self._workers.remove(worker)
        self._watch(worker.connection.fileno(), False)
        if worker.child is not None:  # never started (the pool's start failed)
            worker.child.close()
            worker.connection.close()
            worker.process.close()
            return
        if not stopping:
            worker.process.terminate()  # SIGTERM: the worker kills the program it is running
        worker.process.join(timeout=2)
        if worker.process.is_alive():
            worker.process.kill()
            worker.process.join()
        if worker.process.pid is not None:
            remove_scratch_of(worker.process.pid)
        worker.process.close()
        worker.connection.close()

    def _assign(self, worker: _Worker, batch: list[Job]) -> None:
        worker.batch, worker.done, worker.since = batch, 0, time.monotonic()
        worker.ready = False
        worker.progress[0], worker.progress[1] = -1.0, 0.0
        worker.connection.send(batch)
        self._watch(worker.connection.fileno(), True)

    def run(self, jobs: Iterable[Job], skip: Skip | None = None,
            one_at_a_time: frozenset[str] = frozenset(),
            ) -> Generator[tuple[Job, Outcome], None, None]:
        turns = frozenset(one_at_a_time)
        yield from self._loop(_Pending(batches(jobs)), skip, lambda problem: turns, None)

    def serve(self, arrivals: Arrivals) -> Generator[tuple[Job, Outcome], None, None]:
        """Run jobs as they arrive from several callers as one queue, each batch placed by
        its rank and held to its caller's rules; yield each with its outcome."""
        self._arrivals = arrivals
        try:
            yield from self._loop(_Pending(), arrivals.skip, arrivals.one_at_a_time, arrivals)
        finally:
            self._arrivals = None
            self._watch(arrivals.fileno(), False)

    def _arrive(self, pending: _Pending, arrivals: Arrivals) -> bool:
        """Place the batches arrived among `pending` by rank; False once no more will come."""
        self._changed()  # (woken: batches came, or a caller took in an outcome)
        arrived = arrivals.take()
        if arrived is None:
            return False
        for batch in arrived:
            pending.add(batch, arrivals.rank(batch[0]))
        return True

    def _loop(self, pending: _Pending, skip: Skip | None,
              turns: Callable[[str], frozenset[str]], arrivals: Arrivals | None
              ) -> Generator[tuple[Job, Outcome], None, None]:
        self._started()
        self._skip, self._passed = skip, []
        self._turns = turns
        self._done_jobs, self._busy_s = 0, 0.0
        self._deaths = {}
        self._grown = 0
        self._changed()
        open_ = arrivals is not None and self._arrive(pending, arrivals)
        if arrivals is not None:
            self._watch(arrivals.fileno(), open_)
        while len(self._workers) < min(self.size, len(pending)):
            self._start_worker()
        for worker in self._workers[:self.size]:  # (workers a grown pool started wait)
            if not worker.busy and (batch := self._take(pending)):
                self._assign(worker, batch)
        yield from self._skipped_now()
        while open_ or any(w.busy for w in self._workers):
            busy = [w for w in self._workers if w.busy]
            now = time.monotonic()
            deadline = min((self._deadline(w) for w in busy), default=now + POLL_S)
            # Wake up at least every POLL_S: which job a worker is on (and so its deadline)
            # changes through shared memory, without a message.
            ready = {fd for fd, _ in self._poll.poll(
                min(POLL_S, max(0.0, deadline - now)) * 1000)}
            if arrivals is not None and open_ and arrivals.fileno() in ready:
                open_ = self._arrive(pending, arrivals)
                if not open_:
                    self._watch(arrivals.fileno(), False)
            for worker in busy:
                if worker.connection.fileno() in ready:
                    try:
                        message = worker.connection.recv()
                    except (EOFError, OSError):
                        yield from self._lost(worker, pending, "worker died")
                        continue
                    if message == READY:
                        worker.ready, worker.since = True, time.monotonic()
                        worker.counted = worker.since
                        continue
                    self._changed()
                    arrived = time.monotonic()
                    self._done_jobs += len(message)
                    self._busy_s += arrived - worker.counted
                    worker.counted = arrived
                    for outcome in message:  # a group of outcomes, in batch order
                        job = worker.batch[worker.done]
                        worker.done += 1
                        yield job, outcome
                    if not worker.busy:
                        self._watch(worker.connection.fileno(), False)
                        if pending and sum(w.busy for w in self._workers) < \
                                self.size + self._grown and \
                                (batch := self._take(pending)):
                            self._assign(worker, batch)
                elif time.monotonic() >= self._deadline(worker) or \
                        self._over_cpu(worker) is not None:
                    yield from self._lost(worker, pending, None)
            self._grow(pending)
            yield from self._skipped_now()

    def _take(self, pending: _Pending) -> list[Job] | None:
        """The next batch to send (the first not held back; a job of a solver run one at a
        time travels alone) less what `skip` leaves out; None when none can go now. A look
        that found none is not made again until something it read may have changed
        (`_changed`: batches arrived or came back, an outcome came in) or POLL_S has passed."""
        if self._none_found is not None and time.monotonic() - self._none_found < POLL_S:
            return None
        turns: dict[str, frozenset[str]] = {}  # problem -> its solvers run one at a time

        def in_turn(job: Job) -> bool:  # it waits its turn among its solver's jobs
            problem = job.solver.problem
            if problem not in turns:
                turns[problem] = self._turns(problem)
            return job.solver.name in turns[problem]

        out = {(job.solver.problem, job.solver.name) for worker in self._workers
               if worker.busy for job in worker.batch[worker.done:] if in_turn(job)}
        waiting: dict[str, bool] = {}  # problem -> none of its jobs may go now
        arrivals = self._arrivals

        def can_go(batch: list[Job]) -> bool:
            problem = batch[0].solver.problem
            if arrivals is not None:
                if problem not in waiting:
                    waiting[problem] = arrivals.waiting(problem)
                if waiting[problem]:
                    return False
            # (`held_back`, by problem: `out` holds only solvers run one at a time)
            return not any((job.solver.problem, job.solver.name) in out for job in batch)

        for batch in pending.take(can_go, lambda batch: any(map(in_turn, batch))):
            batch, passed = skipped(batch, self._skip)
            self._passed += passed
            if batch:
                return batch
        self._none_found = time.monotonic()
        return None

    def _changed(self) -> None:
        """What `_take` reads may have changed: its next call looks again."""
        self._none_found = None

    def _skipped_now(self) -> Iterator[tuple[Job, Outcome]]:
        passed, self._passed = self._passed, []
        yield from passed

    def _grow(self, pending: _Pending) -> None:
        """Start batches while fewer than `size` (and the batches it has grown by) are busy;
        one more, kept from then on, when it may grow (`may_grow`); one fewer kept when a
        window finds the cores busy (`BUSY_TO_SHRINK`)."""
        busy = sum(w.busy for w in self._workers)
        while pending and busy < self.size + self._grown:  # (a batch handed back, or one held
            # back till now, or one to follow an ended batch of a grown pool)
            batch = self._take(pending)
            if not batch:
                break
            self._assign(self._idle() or self._start_worker(), batch)
            busy += 1
        if self.grow_to <= self.size or not pending or pending.head().solver.kind == "stage":
            return  # (a built-in stage's batch never grows the pool: `may_grow`)
        if self._demand_reading is not None and \
                time.monotonic() - self._demand_reading[0] < GROW_WINDOW_S:
            return
        demand, self._demand_reading = demand_since(
            [w.process.pid for w in self._workers if w.busy and w.process.pid is not None],
            self._demand_reading)
        idle_cores, self._idle_reading = idle_cores_since(self._idle_reading)
        if self._grown and not keeps_growing(idle_cores):
            self._grown -= 1
            return
        idle = self._idle()
        if may_grow(demand, busy, self.size, self.grow_to, pending.head().solver.kind,
                    idle_cores) and \
                (idle is not None or worth_a_new_worker(
                    pending.jobs, self._done_jobs, self._busy_s, busy)) and \
                (batch := self._take(pending)):
            self._assign(idle or self._start_worker(), batch)
            self._grown = busy + 1 - self.size
            # the next look starts after this batch has begun
            self._demand_reading = self._idle_reading = None

    def _idle(self) -> _Worker | None:
        return next((w for w in self._workers if not w.busy), None)

    def _deadline(self, worker: _Worker) -> float:
        """When the worker's current job is over its wall-clock cap (a built-in stage's on
        the worker's own clock)."""
        if not worker.ready:
            return worker.since + STARTUP_TIMEOUT_S
        index, started = worker.running
        job = worker.batch[index]
        if job.solver.kind != "stage":  # the program has its own limits; the worker waits
            return started + contained.busy_s(job.solver.timeout_s) + EXTERNAL_GRACE_S
        deadline = started + contained.wall_cap_s(job.solver.timeout_s)
        if time.monotonic() < deadline:
            return deadline
        pid = worker.process.pid
        if pid is not None and contained.runnable(pid):  # computing: its CPU time limits it
            return time.monotonic() + POLL_S  # (its waits for a core may not be counted yet)
        return deadline + worker.waited_s()

    def _over_cpu(self, worker: _Worker) -> float | None:
        """The CPU seconds of the worker's built-in stage's job when over its timeout, else
        None (read at most every POLL_S)."""
        now = time.monotonic()
        if not worker.ready or now - worker.cpu_looked < POLL_S:
            return None
        index, started = worker.running
        job = worker.batch[index]
        if job.solver.kind != "stage" or now - started < POLL_S:
            return None
        worker.cpu_looked = now
        used = worker.cpu_used_s()
        return used if used is not None and used >= job.solver.timeout_s else None

    def _lost(self, worker: _Worker, pending: _Pending,
              reason: str | None) -> Iterator[tuple[Job, Outcome]]:
        """The worker overran (reason None: TLE) or died: record its job and replace it. A
        job whose worker died runs again, alone (`_died`); the rest of the batch with it."""
        self._changed()
        index, started = worker.running if worker.ready else (worker.done, worker.since)
        job = worker.batch[index]
        elapsed_ms = (time.monotonic() - started) * 1000
        used_s = worker.cpu_used_s() if worker.ready else None
        cpu_ms = used_s * 1000 if used_s is not None else None
        rest = worker.batch[worker.done:index] + worker.batch[index + 1:]
        death = how_it_ended(worker.process) if reason is not None else None
        self._retire(worker)
        timeout_s = job.solver.timeout_s
        outcome: Outcome | None
        if reason is None and not worker.ready:
            outcome = Outcome(job.key, Verdict.RE, error=f"worker not ready after "
                              f"{STARTUP_TIMEOUT_S:g} s")
        elif reason is None:  # over its CPU time, else its wall-clock cap
            over = cpu_over_message if cpu_ms is not None and cpu_ms >= timeout_s * 1000 \
                else wall_cap_message
            outcome = Outcome(job.key, Verdict.TLE, wall_ms=elapsed_ms, cpu_ms=cpu_ms,
                              error=over(timeout_s, cpu_ms))
        else:
            outcome = self._died(job, death or "exit status unknown")
        if rest:
            pending.first(rest)
        if outcome is None:  # run again first, alone: should it die again, it is that job
            pending.first([job])
        else:
            yield job, outcome
        replacement = self._start_worker()
        if batch := self._take(pending):
            self._assign(replacement, batch)

    def _died(self, job: Job, death: str) -> Outcome | None:
        """The outcome of `job` whose worker died (`death`: how): None the first time (it runs
        again), a judge error naming both deaths the second."""
        first = self._deaths.pop(job.key, None)
        if first is None:
            self._deaths[job.key] = death
            return None
        return Outcome(job.key, Verdict.JE,
                       error=f"{DIED_TWICE} ({first}, then {death}); --resume runs it again")

    def close(self) -> None:
        with contextlib.suppress(ExecutorError):
            self._started()
        workers = list(self._workers)
        for worker in workers:  # every worker told at once, so that they end side by side
            with contextlib.suppress(OSError):  # (a broken pipe: the worker is gone)
                worker.connection.send(None)
            if worker.child is None:
                worker.process.terminate()  # SIGTERM: it kills the program it is running
        for worker in workers:
            self._retire(worker, stopping=True)

    def __exit__(self, *exc) -> None:
        self.close()


# Worker processes at most per core: more only share the cores and cost memory (some 40 MB each).
MAX_JOBS_PER_CORE = 8


def check_jobs(jobs: int | None) -> int | None:
    """`jobs`, or a `UserError` when it is more than `MAX_JOBS_PER_CORE` per core."""
    cores = os.cpu_count() or 1
    if jobs is not None and jobs > MAX_JOBS_PER_CORE * cores:
        raise UserError(f"{jobs} worker processes are more than {MAX_JOBS_PER_CORE} per core: "
                        f"at most {MAX_JOBS_PER_CORE * cores} on this machine ({cores} cores)")
    return jobs
