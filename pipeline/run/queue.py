"""One queue for a contest's problems (docs/packages.md#contests): every problem's jobs on one
pool at once (the local pool, or a Dask cluster: `--executor dask`).

Each problem is judged on a thread of its own as `pipeline run --problem P` judges it. What it
hands its executor goes to its lane (`ContestQueue.lane`, an `Executor` as its run sees one), and
every lane's jobs go to the one pool (`serve`), ranked (`ContestQueue.rank`). A problem's rules
hold as in a run of its own: its `skip` decides each of its jobs just before it is sent, its
solvers run one at a time are, and none of its jobs is sent while an outcome of it is still
being taken in.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
from collections.abc import Iterable, Iterator
from typing import Protocol

from pipeline.programs.jobs import Job, Outcome, Skip
from pipeline.run.executors import Arrivals, ExecutorError, batches

# Why a job of a lane whose run stopped (its caller left before the end) is not run.
STOPPED = "not run: its problem's run stopped"


class _Lane:
    """One problem's executor: its jobs run on the contest's pool (see the module's
    docstring). Its runs come one after another, from the problem's thread."""

    def __init__(self, contest: ContestQueue, problem: str) -> None:
        self._contest = contest
        self.problem = problem
        self.size = contest.pool.size
        # a Dask cluster's workers build the programs they run (`Executor`)
        self.builds_on_workers = bool(getattr(contest.pool, "builds_on_workers", False))
        self.skip: Skip | None = None
        self.turns: frozenset[str] = frozenset()
        self.unread = 0   # outcomes handed to this lane and not yet taken in by its run
        self.current: dict[int, Job] = {}  # id -> job, of the run under way
        self.outcomes: queue.SimpleQueue[tuple[Job, Outcome] | None] = queue.SimpleQueue()

    def run(self, jobs: Iterable[Job], skip: Skip | None = None,
            one_at_a_time: frozenset[str] = frozenset()) -> Iterator[tuple[Job, Outcome]]:
        listed = list(jobs)
        if not listed:
            return
        self.skip, self.turns = skip, frozenset(one_at_a_time)
        self.current = {id(job): job for job in listed}  # (those not back yet)
        self._contest.submit(list(batches(listed)))
        try:
            while self.current:
                item = self.outcomes.get()
                if item is None:
                    self._contest.raise_failure()
                    continue
                job, outcome = item
                if self.current.pop(id(job), None) is None:
                    self._contest.taken_in(self)
                    continue  # of a run of it that stopped before its end
                try:
                    yield job, outcome
                finally:  # taken in once its run has decided on it (a failure: --fail-fast)
                    self._contest.taken_in(self)
        finally:  # a caller that stopped early: what of its run is pending is not run
            self.current = {}

    def close(self) -> None:
        """(The contest's pool is closed with the contest: `ContestQueue.close`.)"""


class Shared(Protocol):
    """What a contest's problems share: the local pool (`LocalPoolExecutor`) or a Dask
    cluster (`dask_executor.DaskExecutor`), each running the jobs of several callers at once
    (`serve`)."""

    size: int

    def serve(self, arrivals: Arrivals) -> Iterator[tuple[Job, Outcome]]: ...

    def close(self) -> None: ...


class ContestQueue:
    """A pool that a contest's problems share (see the module's docstring): `lane(P)` is
    problem P's executor; `close()` stops the pool once every problem's run is over.
    `ranks`: problem -> its place in the queue (lower first; a problem not named goes
    last)."""

    def __init__(self, pool: Shared, ranks: dict[str, int]) -> None:
        self.pool = pool
        self._ranks = ranks
        self._lock = threading.Lock()
        self._arrived: list[list[Job]] = []
        self._closed = False
        self._interrupted = False
        self._failure: BaseException | None = None
        self._lanes: dict[str, _Lane] = {}
        self._wakeup = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)  # readable once woken
        self._thread = threading.Thread(target=self._dispatch, name="gamebench-contest-queue",
                                        daemon=True)
        self._thread.start()

    def lane(self, problem: str) -> _Lane:
        """Problem `problem`'s executor on this queue."""
        with self._lock:
            if problem not in self._lanes:  # (made once: a lane holds its run's outcomes)
                self._lanes[problem] = _Lane(self, problem)
            return self._lanes[problem]

    # -- what the lanes call ------------------------------------------------------------------

    def submit(self, arrived: list[list[Job]]) -> None:
        with self._lock:
            failed = self._failure is not None or self._interrupted or self._closed
            if not failed:
                self._arrived += arrived
        if failed:
            self.raise_failure()
        self._wake()

    def taken_in(self, lane: _Lane) -> None:
        """One outcome of `lane` was taken in by its run (the pool may send its next job once
        all are: `waiting`)."""
        with self._lock:
            lane.unread -= 1
            last = lane.unread == 0
        if last:
            self._wake()

    def raise_failure(self) -> None:
        """Raise what stopped the queue: KeyboardInterrupt when the contest's run was
        interrupted, else the pool's failure as an `ExecutorError`."""
        if self._interrupted:
            raise KeyboardInterrupt
        failure = self._failure
        if isinstance(failure, ExecutorError):
            raise failure
        raise ExecutorError(f"the contest's pool stopped: {failure or 'closed'}")

    # -- what the pool calls (`executors.Arrivals`) ---------------------------------------------

    def fileno(self) -> int:
        return self._wakeup

    def take(self) -> list[list[Job]] | None:
        if self._interrupted:  # out of the pool's loop: `close` stops what it runs
            raise KeyboardInterrupt
        with contextlib.suppress(BlockingIOError):  # (not woken since the last call)
            os.eventfd_read(self._wakeup)
        with self._lock:
            arrived, self._arrived = self._arrived, []
            if self._closed and not arrived:
                return None
        return arrived

    def rank(self, job: Job) -> int:
        """Chains first (jobs of a solver run one case at a time), then the rest, each by
        problem: a chain cannot be shortened by more cores, the rest can fill them beside it."""
        problem = self._ranks.get(job.solver.problem, len(self._ranks))
        lane = self._lanes.get(job.solver.problem)
        chained = lane is not None and job.solver.name in lane.turns
        return problem if chained else problem + len(self._ranks) + 1

    def skip(self, job: Job) -> str | None:
        lane = self._lanes[job.solver.problem]
        if self._interrupted or id(job) not in lane.current:  # (its problem's run stopped)
            return STOPPED
        return lane.skip(job) if lane.skip is not None else None

    def one_at_a_time(self, problem: str) -> frozenset[str]:
        lane = self._lanes.get(problem)
        return lane.turns if lane is not None else frozenset()

    def waiting(self, problem: str) -> bool:
        lane = self._lanes.get(problem)
        return lane is not None and lane.unread > 0

    # -- the queue's own thread ------------------------------------------------------------------

    def _wake(self) -> None:
        os.eventfd_write(self._wakeup, 1)

    def _dispatch(self) -> None:
        try:
            for job, outcome in self.pool.serve(self):
                lane = self._lanes[job.solver.problem]
                with self._lock:
                    lane.unread += 1
                lane.outcomes.put((job, outcome))
        except BaseException as error:  # given to every lane's run, which raises it
            self._failure = error
        finally:
            with self._lock:
                self._closed = True
                if self._failure is None and not self._interrupted:
                    self._failure = ExecutorError("the contest's pool stopped")
            for lane in list(self._lanes.values()):
                lane.outcomes.put(None)

    def interrupt(self) -> None:
        """The contest's run was interrupted (Ctrl-C): every lane's run is told so
        (KeyboardInterrupt, where it takes its next outcome), nothing more is sent, and the
        pool's loop ends (`close` then stops the programs its workers run)."""
        self._interrupted = True
        for lane in list(self._lanes.values()):
            lane.outcomes.put(None)
        self._wake()

    def close(self) -> None:
        """Stop taking jobs, let the pool finish what it has, stop its workers."""
        with self._lock:
            self._closed = True
        self._wake()
        self._thread.join()
        self.pool.close()
        os.close(self._wakeup)
