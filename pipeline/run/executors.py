"""Executors: how jobs reach workers. The runner only sees the `Executor` interface.

`LocalPoolExecutor` (the default) keeps N worker processes and hands them batches of jobs, so a
tiny case costs microseconds. It watches the job each worker is on: a built-in stage whose case
has used its timeout in CPU time (the worker's, read from /proc), or has run past the wall-clock
cap of 2 x timeout + 1 s (one that sleeps or waits), gets the worker killed and replaced, the
job recorded as `TLE` (saying which limit), and the rest of the batch handed out again; so a
case slowed down by other processes on the machine is not failed for it. The clock of a
batch's first job starts when the worker says it is ready (started, with the batch's problems
imported), so start-up is never charged to a case.

`DaskExecutor` (`pipeline.run.dask_executor`) runs the same batches on a Dask cluster, each
Dask worker running them through a local pool of its own. `choice.make_executor` builds
either one from the `--executor`, `--scheduler` and `--jobs` options of the commands that run
cases.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Protocol

from pipeline.errors import UserError
from pipeline.programs.external import (cpu_over_message, remove_scratch_of, wall_cap_message,
                                   wall_cap_s)
from pipeline.programs.jobs import Job, Outcome
from pipeline.programs.processes import cpu_seconds
from pipeline.run.worker import PROGRESS_FIELDS, READY, worker_main

# Extra seconds a worker gets past an external program's wall-clock cap (2 x its timeout
# + 1 s, see `external.wall_cap_s`) before the parent kills it. External programs are stopped
# by their launcher; this only catches a stuck worker.
EXTERNAL_GRACE_S = 5.0
POLL_S = 0.05  # also how often the CPU time of a worker on a built-in stage is looked at
# How long a worker may take to start and import a batch's problems before it counts as stuck.
STARTUP_TIMEOUT_S = 60.0



_spawner: ThreadPoolExecutor | None = None
_spawner_lock = threading.Lock()


def start_process(process: multiprocessing.Process) -> None:
    """Start a worker process from a thread that lasts as long as this process.

    A worker asks the kernel to kill it when its parent dies (PR_SET_PDEATHSIG), and Linux
    takes the parent to be the *thread* that forked it: a pool first used from a short-lived
    thread (a caller's ThreadPoolExecutor) had its workers killed with SIGKILL when that thread
    ended, and the next batch sent to them failed with a broken pipe. Started from the main
    thread or from one long-lived spawner thread, they die with this process, as meant."""
    global _spawner
    if threading.current_thread() is threading.main_thread():
        process.start()
        return
    with _spawner_lock:
        if _spawner is None:
            _spawner = ThreadPoolExecutor(1, thread_name_prefix="gamebench-spawner")
    _spawner.submit(process.start).result()


class ExecutorError(RuntimeError):
    """An executor that cannot start or cannot carry on (e.g. a cluster out of reach)."""


class Executor(Protocol):
    """What the runner needs of an executor. One whose workers build external programs
    themselves from `SolverSpec.program` says so with `builds_on_workers = True`."""

    def run(self, jobs: Iterable[Job]) -> Iterator[tuple[Job, Outcome]]:
        """Run every job; yield each with its outcome as soon as it is known."""

    def close(self) -> None:
        """Stop every worker and every program they started."""


@dataclass
class _Worker:
    process: multiprocessing.Process
    connection: Connection
    progress: object  # shared doubles (worker.PROGRESS_FIELDS): index, start time, CPU then
    batch: list[Job] = field(default_factory=list)
    done: int = 0       # outcomes received for this batch
    ready: bool = False  # the worker has started on its batch (else: still starting up)
    since: float = 0.0  # when the batch was sent or READY came
    cpu_looked: float = 0.0  # when its CPU time was last read

    @property
    def busy(self) -> bool:
        return self.done < len(self.batch)

    @property
    def running(self) -> tuple[int, float]:
        """(index in the batch, start time) of the job the worker is on, from shared memory.

        Outcomes arrive in groups, so jobs after `done` may already be finished; the worker
        writes which job it is on before starting it, which makes a timeout unambiguous.
        """
        index, started = int(self.progress[0]), self.progress[1]
        if index < self.done:  # not yet written for this batch's next job
            return self.done, max(self.since, started)
        return index, started

    def cpu_used_s(self) -> float | None:
        """The CPU time the worker has spent on the job it is on (None: not known yet)."""
        index = int(self.progress[0])
        if index < self.done or self.process.pid is None:
            return None
        now = cpu_seconds(self.process.pid)
        return None if now is None else max(0.0, now - self.progress[2])


def batches(jobs: Iterable[Job], max_jobs: int = 64, max_bytes: int = 1 << 20) -> Iterator[list[Job]]:
    """Group jobs so that small ones travel together and big ones alone."""
    batch: list[Job] = []
    size = 0
    for job in jobs:
        limit = 4 if job.solver.kind != "stage" else max_jobs
        if batch and (len(batch) >= limit or size + len(job.input) > max_bytes):
            yield batch
            batch, size = [], 0
        batch.append(job)
        size += len(job.input)
    if batch:
        yield batch


class LocalPoolExecutor:
    """N worker processes on this machine (spawned, so they are safe beside Polars' threads)."""

    def __init__(self, jobs: int | None = None,
                 preload: tuple[tuple[str, str], ...] = ()) -> None:
        """`preload`: (problem, stage) pairs; when given, the workers start at once and
        import and warm them up while the caller gets on with other work."""
        self.size = max(1, jobs or os.cpu_count() or 1)
        self._context = multiprocessing.get_context("spawn")
        self._workers: list[_Worker] = []
        self._preload = tuple(preload)
        if self._preload:
            for _ in range(self.size):
                self._start_worker()

    def _start_worker(self) -> _Worker:
        parent, child = self._context.Pipe(duplex=True)
        progress = self._context.RawArray("d", PROGRESS_FIELDS)
        process = self._context.Process(target=worker_main,
                                        args=(child, self._preload, progress), daemon=True)
        start_process(process)
        child.close()
        worker = _Worker(process, parent, progress)
        self._workers.append(worker)
        return worker

    def _retire(self, worker: _Worker) -> None:
        self._workers.remove(worker)
        worker.process.terminate()  # SIGTERM: the worker kills the program it is running
        worker.process.join(timeout=2)
        if worker.process.is_alive():
            worker.process.kill()
            worker.process.join()
        if worker.process.pid is not None:
            remove_scratch_of(worker.process.pid)
        worker.connection.close()

    def _assign(self, worker: _Worker, batch: list[Job]) -> None:
        worker.batch, worker.done, worker.since = batch, 0, time.monotonic()
        worker.ready = False
        worker.progress[0], worker.progress[1] = -1.0, 0.0
        worker.connection.send(batch)

    def run(self, jobs: Iterable[Job]) -> Iterator[tuple[Job, Outcome]]:
        pending: deque[list[Job]] = deque(batches(jobs))
        while len(self._workers) < min(self.size, len(pending)):
            self._start_worker()
        for worker in self._workers:
            if pending and not worker.busy:
                self._assign(worker, pending.popleft())
        while any(w.busy for w in self._workers):
            busy = [w for w in self._workers if w.busy]
            now = time.monotonic()
            deadline = min(self._deadline(w) for w in busy)
            # Wake up at least every POLL_S: which job a worker is on (and so its deadline)
            # changes through shared memory, without a message.
            ready = wait([w.connection for w in busy],
                         timeout=min(POLL_S, max(0.0, deadline - now)))
            for worker in busy:
                if worker.connection in ready:
                    try:
                        message = worker.connection.recv()
                    except (EOFError, OSError):
                        yield from self._lost(worker, pending, "worker died")
                        continue
                    if message == READY:
                        worker.ready, worker.since = True, time.monotonic()
                        continue
                    for outcome in message:  # a group of outcomes, in batch order
                        job = worker.batch[worker.done]
                        worker.done += 1
                        yield job, outcome
                    if not worker.busy and pending:
                        self._assign(worker, pending.popleft())
                elif time.monotonic() >= self._deadline(worker):
                    yield from self._lost(worker, pending, None)
                elif self._over_cpu(worker) is not None:
                    yield from self._lost(worker, pending, None)

    def _deadline(self, worker: _Worker) -> float:
        """When the worker's current job is over its wall-clock cap."""
        if not worker.ready:
            return worker.since + STARTUP_TIMEOUT_S
        index, started = worker.running
        job = worker.batch[index]
        if job.solver.kind != "stage":  # the program has its own limits; the worker waits
            return started + wall_cap_s(job.solver.timeout_s) + EXTERNAL_GRACE_S
        return started + wall_cap_s(job.solver.timeout_s)

    def _over_cpu(self, worker: _Worker) -> float | None:
        """The CPU seconds the worker has spent on its built-in stage's job when that is over
        the job's timeout, else None (read at most every POLL_S)."""
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

    def _lost(self, worker: _Worker, pending: deque[list[Job]],
              reason: str | None) -> Iterator[tuple[Job, Outcome]]:
        """The worker overran (reason None: TLE on CPU time or the wall-clock cap) or died:
        record its job, replace it.

        Jobs of the batch that finished but whose outcomes had not arrived yet run again on
        the replacement, with the jobs not started yet.
        """
        index, started = worker.running if worker.ready else (worker.done, worker.since)
        job = worker.batch[index]
        elapsed_ms = (time.monotonic() - started) * 1000
        used_s = worker.cpu_used_s() if worker.ready else None
        cpu_ms = used_s * 1000 if used_s is not None else None
        rest = worker.batch[worker.done:index] + worker.batch[index + 1:]
        self._retire(worker)
        timeout_s = job.solver.timeout_s
        if reason is None and not worker.ready:
            outcome = Outcome(job.key, "re", error=f"worker not ready after "
                              f"{STARTUP_TIMEOUT_S:g} s")
        elif reason is None and cpu_ms is not None and cpu_ms >= timeout_s * 1000:
            outcome = Outcome(job.key, "tle", wall_ms=elapsed_ms, cpu_ms=cpu_ms,
                              error=cpu_over_message(timeout_s, cpu_ms))
        elif reason is None:
            outcome = Outcome(job.key, "tle", wall_ms=elapsed_ms, cpu_ms=cpu_ms,
                              error=wall_cap_message(timeout_s, cpu_ms))
        else:
            outcome = Outcome(job.key, "re", wall_ms=elapsed_ms, cpu_ms=cpu_ms, error=reason)
        yield job, outcome
        if rest:
            pending.appendleft(rest)
        replacement = self._start_worker()
        if pending:
            self._assign(replacement, pending.popleft())

    def close(self) -> None:
        for worker in list(self._workers):
            try:
                worker.connection.send(None)
            except (OSError, BrokenPipeError):
                pass
            self._retire(worker)

    def __enter__(self) -> LocalPoolExecutor:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# Worker processes at most per core: more only share the cores and cost memory (each worker
# is a Python process of its own, some 40 MB).
MAX_JOBS_PER_CORE = 8


def check_jobs(jobs: int | None) -> int | None:
    """`jobs` when this machine can run that many worker processes (`MAX_JOBS_PER_CORE` per
    core); a `UserError` saying the limit otherwise."""
    cores = os.cpu_count() or 1
    if jobs is not None and jobs > MAX_JOBS_PER_CORE * cores:
        raise UserError(f"{jobs} worker processes are more than {MAX_JOBS_PER_CORE} per core: "
                        f"at most {MAX_JOBS_PER_CORE * cores} on this machine ({cores} cores)")
    return jobs
