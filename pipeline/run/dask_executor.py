"""The Dask executor (`--executor dask`): the run's batches of jobs on a Dask cluster.

On top of Dask's scheduling: a plugin on each Dask worker with warm inner local pools (cases run
and timed as locally), batches sized by measured times, programs built on each worker, a job
whose worker died twice `JE`, cancelled tasks' cases killed, TLS for a local cluster
(docs/cluster.md).
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import pickle
import queue
import select
import signal
import socket
import threading
import time
import uuid
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from multiprocessing.process import BaseProcess
from typing import TYPE_CHECKING, cast

from pipeline.programs.jobs import Job, Outcome, SolverSpec
from pipeline.programs.languages import BuildError, build_here, source_key
from pipeline.run.dask_inner import guarded_worker_main
from pipeline.run.executors import (
    Arrivals,
    ExecutorError,
    LocalPoolExecutor,
    Skip,
    check_jobs,
    held_back,
    skipped,
)
from pipeline.run.worker import PROGRESS_FIELDS
from pipeline.run.workerserver import ServedProcess
from pipeline.verdicts import Verdict, stops_fail_fast

if TYPE_CHECKING:
    from distributed import Client, LocalCluster

PLUGIN_NAME = "gamebench"
# Batches: the first tasks of a solver are small; later ones aim at TASK_TARGET_S of work.
FIRST_TASK_JOBS = 64
FIRST_TASK_EXTERNAL_JOBS = 4
MAX_TASK_JOBS = 4096
# (each task costs the driver, the scheduler and the worker CPU of their own; below
# PREFETCH_BELOW_S, so the tasks of a steady run are sent ahead)
TASK_TARGET_S = 0.8
# A task of a solver run one case at a time (--fail-fast) stops at its first failure on the
# worker, so a longer one costs no work that would not be done; it saves a round trip per case.
CHAIN_TARGET_S = 2.0
TASK_BYTES = 4 << 20
JOB_OVERHEAD_MS = 0.05  # what the inner pool adds to a job beyond its own time
KILLS_TO_GIVE_UP = 2  # a job running when its worker died this many times is JE
WORKER_WAIT_S = 60.0  # how long to wait for a first worker to join the scheduler
WINDOW_REFRESH_S = 1.0
# How long a close may wait for the cluster before the run goes on without it (the
# processes of a local cluster die with this one, whatever state it was left in).
CLOSE_WAIT_S = 10.0
# Tasks shorter than this are sent ahead, one per worker thread beyond the one it runs (so a
# worker never waits for its next task); longer ones only to free threads (so none waits behind
# another worker's long task at the end of a run).
PREFETCH_BELOW_S = 1.0

# A local cluster's settings beside Dask's defaults: its servers wake up less often (the
# worker's sampling profiler every 10 ms, each server's tick every 20 ms, the system and
# memory monitors every 0.1-0.5 s), which on a machine the cases keep busy is their CPU.
LOCAL_CLUSTER_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.worker.memory.monitor-interval": "1s",
}


class WorkerSetupError(RuntimeError):
    """A Dask worker that cannot run a batch (no gamebench plugin, an unknown problem)."""


# -- the worker side ---------------------------------------------------------------------------

@contextlib.contextmanager
def _children_allowed():
    """Let a daemonic process (a Dask worker under its nanny) start a child: the inner workers
    are tied to it by PR_SET_PDEATHSIG and the plugin's teardown instead."""
    config = multiprocessing.current_process()._config  # type: ignore[attr-defined]  # (no API)
    daemon = config.get("daemon")
    config["daemon"] = False
    try:
        yield
    finally:
        if daemon is not None:
            config["daemon"] = daemon


# The hash seed a Dask nanny gives its worker processes when none was set.
_NANNY_HASH_SEED = "6640"


def _drop_nanny_environment() -> None:
    """Drop each variable the nanny set (`distributed.nanny.pre-spawn-environ`, PYTHONHASHSEED)
    that holds its value: its malloc setting changes how allocation-heavy solvers are timed."""
    import dask

    defaults = dict(dask.config.get("distributed.nanny.pre-spawn-environ", default={}) or {})
    defaults.setdefault("PYTHONHASHSEED", _NANNY_HASH_SEED)
    for name, value in defaults.items():
        if value is not None and os.environ.get(name) == str(value):
            del os.environ[name]


@contextlib.contextmanager
def _interrupts_ignored():
    """SIGINT ignored in this process (and the processes it starts) while the block runs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


_spawner: ThreadPoolExecutor | None = None
_spawner_lock = threading.Lock()


def start_process(process: ServedProcess | BaseProcess) -> None:
    """Start a worker process from the main thread or one long-lived spawner thread: Linux ties
    PR_SET_PDEATHSIG to the forking *thread*, which a task's thread would not outlive."""
    global _spawner
    if threading.current_thread() is threading.main_thread():
        process.start()
        return
    with _spawner_lock:
        if _spawner is None:
            _spawner = ThreadPoolExecutor(1, thread_name_prefix="gamebench-spawner")
    _spawner.submit(process.start).result()


class InnerPool(LocalPoolExecutor):
    """The local pool a Dask worker runs batches with: its processes die with the Dask worker,
    and start with its first batch (a task's pool may get none)."""

    start_at_once = False

    def _make_context(self, preload):
        return multiprocessing.get_context("spawn")  # the Dask worker's own children

    def _shared_progress(self):
        return self._context.RawArray("d", PROGRESS_FIELDS)

    def _process(self, connection, progress) -> multiprocessing.Process:
        return self._context.Process(target=guarded_worker_main, daemon=True,
                                     args=(connection, self._preload, progress, os.getpid()))

    def _launch(self, process: ServedProcess | BaseProcess) -> None:
        with _children_allowed():
            start_process(process)  # (from a thread that outlives the task's)

    _killed = False  # `kill` was called: the task is cancelled

    def kill(self) -> None:
        """SIGTERM every worker process (safe from any thread; the owner closes the pool)."""
        self._killed = True
        for worker in list(self._workers):
            pid = worker.process.pid
            with contextlib.suppress(ProcessLookupError):
                if pid is not None:  # (None: not started)
                    os.kill(pid, signal.SIGTERM)

    def _died(self, job: Job, death: str) -> Outcome | None:
        """A worker killed by `kill` died on purpose: its job is not run again (its task is
        cancelled; the outcome is dropped)."""
        if self._killed:
            return Outcome(job.key, Verdict.JE, error=f"cancelled: its worker was stopped "
                                                     f"({death})")
        return super()._died(job, death)


class _Aborted(Exception):
    """The task was cancelled while it ran; its inner worker has been killed."""


try:
    from distributed import WorkerPlugin as _PluginBase
except ImportError:  # distributed is a dependency; this keeps the module importable without it
    _PluginBase = object  # type: ignore[misc, assignment]  # (a base class chosen at import)


class GamebenchPlugin(_PluginBase):
    """Per Dask worker process: warm inner pools, builds, and the kill of cancelled tasks."""

    idempotent = True  # registering again (every run does) keeps the warm pools
    name = PLUGIN_NAME

    def __init__(self, ignore_interrupts: bool = False) -> None:
        """`ignore_interrupts`: a local cluster's workers, whose driver alone handles Ctrl-C."""
        self.ignore_interrupts = ignore_interrupts

    def setup(self, worker) -> None:
        if self.ignore_interrupts and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        _drop_nanny_environment()
        self.worker = worker
        self._lock = threading.Lock()
        self._idle: list[InnerPool] = []
        self._running: dict[object, InnerPool] = {}
        self._aborted: set[object] = set()
        self._builds: dict[str, tuple[str, ...] | BuildError] = {}
        self._build_lock = threading.Lock()

    def teardown(self, worker) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
            for key, pool in self._running.items():
                self._aborted.add(key)
                pool.kill()
        for pool in idle:
            pool.close()

    def transition(self, key, start, finish, **kwargs) -> None:
        # A task released while it executes is being cancelled: stop its case now.
        if start in ("executing", "long-running") and finish in ("released", "cancelled",
                                                                 "forgotten"):
            with self._lock:
                pool = self._running.get(key)
                if pool is not None:
                    self._aborted.add(key)
                    pool.kill()

    def preload(self, pairs: tuple[tuple[str, str], ...]) -> int:
        """Start an inner pool per worker thread that imports and warms up `pairs` now."""
        with self._lock:
            while len(self._idle) + len(self._running) < self.worker.state.nthreads:
                self._idle.append(InnerPool(1, preload=pairs))
            return len(self._idle)

    # -- running a batch -----------------------------------------------------------------------

    def run_task(self, key, jobs: tuple[Job, ...], stop: frozenset[str] = frozenset()
                 ) -> tuple[Outcome, ...]:
        """The outcomes of `jobs`, in order; the jobs of a solver in `stop` run one after
        another and none past its first failure (`passed_here`): those are left out, for the
        driver to decide on (--fail-fast on the worker, as one task per case would)."""
        from distributed import get_client

        host = socket.gethostname()
        self._check_problems(jobs, host)
        jobs = self._with_builds(jobs, host)
        client = get_client()
        record = client.get_metadata([key], None) or {}
        deaths = list(record.get("deaths", []))
        if record.get("current") is not None:  # the attempt before this one never finished
            deaths.append(record["current"])
        me = {"worker": self.worker.address, "host": host, "job": None}
        client.set_metadata([key], {"deaths": deaths, "current": me})
        with self._lock:
            pool = self._idle.pop() if self._idle else InnerPool(1)
            self._running[key] = pool
        try:
            outcomes = (self._run_carefully(key, pool, jobs, deaths, client, stop) if deaths
                        else self._run(key, pool, jobs, stop))
        finally:
            with self._lock:
                self._running.pop(key, None)
                aborted = key in self._aborted
                self._aborted.discard(key)
                if not aborted:
                    self._idle.append(pool)
            if aborted:
                pool.close()
        return tuple(replace(outcome, host=host) for outcome in outcomes)

    def _run(self, key, pool: InnerPool, jobs: tuple[Job, ...],
             stop: frozenset[str] = frozenset()) -> list[Outcome]:
        found: dict[int, Outcome] = {}
        failed: set[str] = set()  # solvers of `stop` that failed a job
        left: set[int] = set()  # jobs not run after such a failure

        def after_failure(job: Job) -> str | None:
            if job.solver.name not in failed:
                return None
            left.add(job.key)
            return "left to the driver"

        with contextlib.closing(pool.run(jobs, after_failure if stop else None,
                                         one_at_a_time=stop)) as results:
            for job, outcome in results:
                if key in self._aborted:
                    raise _Aborted(key)
                if job.key in left:
                    continue
                found[job.key] = outcome
                if job.solver.name in stop and not passed_here(outcome):
                    failed.add(job.solver.name)
        if key in self._aborted:
            raise _Aborted(key)
        return [found[job.key] for job in jobs if job.key in found]

    def _run_carefully(self, key, pool: InnerPool, jobs: tuple[Job, ...], deaths: list[dict],
                       client, stop: frozenset[str] = frozenset()) -> list[Outcome]:
        """A rerun after a worker died: one job at a time, each noted on the scheduler first
        (a solver of `stop` none past its first failure, as `_run`)."""
        outcomes = []
        failed: set[str] = set()
        for index, job in enumerate(jobs):
            if job.solver.name in failed:
                continue
            killed = [d for d in deaths if d.get("job") == index]
            if len(killed) >= KILLS_TO_GIVE_UP:
                workers = ", ".join(f"{d['worker']} on {d['host']}" for d in killed)
                times = "twice" if len(killed) == 2 else f"{len(killed)} times"
                ran = [Outcome(job.key, Verdict.JE, error=(
                    f"judge error: its worker died {times}: the Dask worker running it died "
                    f"each time ({workers}); --resume runs it again"))]
            else:
                client.set_metadata([key, "current", "job"], index)
                ran = self._run(key, pool, (job,))
            outcomes.extend(ran)
            if job.solver.name in stop and not all(passed_here(o) for o in ran):
                failed.add(job.solver.name)
        client.set_metadata([key, "current", "job"], None)
        return outcomes

    def _check_problems(self, jobs: tuple[Job, ...], host: str) -> None:
        from pipeline.problems import problem_ids

        known = set(problem_ids())
        for problem in {job.solver.problem for job in jobs if job.solver.kind == "stage"}:
            if problem not in known:
                raise WorkerSetupError(
                    f"the Dask worker on {host} does not know problem {problem!r} (known: "
                    f"{', '.join(sorted(known))}); install the same gamebench there, with the "
                    "same PIPELINE_PROBLEMS_DIR")

    def _with_builds(self, jobs: tuple[Job, ...], host: str) -> tuple[Job, ...]:
        """The jobs with every program sent unbuilt replaced by its command, built here."""
        built: dict[int, SolverSpec] = {}
        for job in jobs:
            spec = job.solver
            if spec.builds_where_it_runs and id(spec) not in built:
                assert spec.program is not None  # (`builds_where_it_runs`: it has one)
                built[id(spec)] = replace(spec, argv=self._build(spec, host),
                                          program=replace(spec.program, content=None))
        return tuple(replace(job, solver=built[id(job.solver)]) if id(job.solver) in built
                     else job for job in jobs)

    def _build(self, spec, host: str) -> tuple[str, ...]:
        key = source_key(spec.program)
        with self._build_lock:
            known = self._builds.get(key)
            if known is None:
                try:  # contained as the run's programs are (its sandbox, what it hides)
                    known = build_here(spec.program, memory_mb=spec.heap_mb,
                                       sandbox=spec.sandbox, hidden=spec.hidden)
                except BuildError as error:
                    known = BuildError(f"on the Dask worker on {host}: {error}")
                self._builds[key] = known
        if isinstance(known, BuildError):
            raise known
        return known


def passed_here(outcome: Outcome) -> bool:
    """Whether `outcome` is known where it ran to be `AC` (judged there, by the problem's
    rules; an answer the driver grades is not known to pass): --fail-fast goes on past it."""
    verdict = outcome.judgement.verdict if outcome.judgement is not None else outcome.verdict
    return verdict is not None and not stops_fail_fast(verdict.value)


def run_batch(payload: bytes) -> bytes:
    """The Dask task: run the pickled jobs on this worker (those of the solvers named beside
    them stopped at their first failure: `GamebenchPlugin.run_task`); their outcomes, pickled,
    in order (one pickle each way: Dask would otherwise serialise thousands of small objects
    one by one)."""
    from distributed import get_worker

    worker = get_worker()
    plugin = worker.plugins.get(PLUGIN_NAME)
    if plugin is None:
        raise WorkerSetupError(f"the Dask worker {worker.address} has no {PLUGIN_NAME} plugin")
    jobs, stop = pickle.loads(payload)
    outcomes = cast(GamebenchPlugin, plugin).run_task(worker.get_current_task(), jobs, stop)
    return pickle.dumps(outcomes, protocol=pickle.HIGHEST_PROTOCOL)


def _preload_worker(pairs: tuple[tuple[str, str], ...], dask_worker=None) -> int:
    plugin = dask_worker.plugins.get(PLUGIN_NAME)
    return plugin.preload(pairs) if plugin is not None else 0


# -- the driver side ---------------------------------------------------------------------------

@dataclass
class _Pace:
    """Measured milliseconds per job of each (problem, solver), to size the next tasks."""

    total_ms: dict[tuple[str, str], float]
    count: dict[tuple[str, str], int]

    def estimate_ms(self, job: Job) -> float | None:
        name = (job.solver.problem, job.solver.name)
        if not self.count.get(name):
            return None
        return self.total_ms[name] / self.count[name] + JOB_OVERHEAD_MS

    def learn(self, job: Job, outcome: Outcome) -> None:
        name = (job.solver.problem, job.solver.name)
        self.total_ms[name] = self.total_ms.get(name, 0.0) + (outcome.wall_ms or 0.0)
        self.count[name] = self.count.get(name, 0) + 1


def next_batch(pending: deque[Job], pace: _Pace, share: int = 1, chain: bool = False
               ) -> list[Job]:
    """Take the next task's jobs off the front of `pending`, at most 1/`share` of them (so the
    last jobs of a run are spread over the workers rather than left to one); a `chain`'s (one
    solver's jobs run one after another, cut short at its failure) about CHAIN_TARGET_S."""
    most = min(MAX_TASK_JOBS, max(1, -(-len(pending) // max(1, share))))
    batch: list[Job] = []
    size = 0
    planned_ms = 0.0
    for_new: dict[str, int] = {}  # solver -> jobs taken while its pace is unknown
    while pending:
        job = pending[0]
        estimate = pace.estimate_ms(job)
        if batch:
            if len(batch) >= most or size + len(job.input) > TASK_BYTES:
                break
            if estimate is None:
                limit = FIRST_TASK_EXTERNAL_JOBS if job.solver.kind != "stage" and not chain \
                    else FIRST_TASK_JOBS
                if for_new.get(job.solver.name, 0) >= limit:
                    break
            elif planned_ms + estimate > (CHAIN_TARGET_S if chain else TASK_TARGET_S) * 1000:
                break
        pending.popleft()
        batch.append(job)
        size += len(job.input)
        if estimate is None:
            for_new[job.solver.name] = for_new.get(job.solver.name, 0) + 1
        else:
            planned_ms += estimate
    return batch


def next_in_turn(pending: deque[Job], one_at_a_time: frozenset[str], live: Iterable[list[Job]],
                 pace: _Pace, share: int, graded_here: set[tuple[str, str]]) -> list[Job]:
    """The next task's jobs, taken off `pending` ([]: every job waits), when the solvers
    `one_at_a_time` run one case after another: the first job not held back by its solver's
    jobs in `live`, with the jobs of its solver after it in order (the worker stops at the
    first failure and hands the rest back: `GamebenchPlugin.run_task`) unless that solver's
    answers are graded here (`graded_here`: the worker cannot tell a failure), or with the next
    jobs of the solvers run at once; sized as `next_batch` sizes them."""
    out = {job.solver.name for batch in live for job in batch} & one_at_a_time
    first = next((job for job in pending if not held_back([job], one_at_a_time, out)), None)
    if first is None:
        return []
    solver = first.solver
    if solver.name not in one_at_a_time:
        batch = next_batch(deque(job for job in pending if job.solver.name not in one_at_a_time),
                           pace, share)
    elif (solver.problem, solver.name) in graded_here:
        batch = [first]
    else:
        batch = next_batch(deque(job for job in pending if job.solver.name == solver.name),
                           pace, chain=True)
    taken = {id(job) for job in batch}
    kept = [job for job in pending if id(job) not in taken]
    pending.clear()
    pending.extend(kept)
    return batch


def _check_address(address: str) -> None:
    """Refuse a scheduler address Dask cannot parse (a `Client` of one blocks a minute)."""
    from distributed.comm.addressing import parse_address
    from distributed.comm.registry import get_backend

    try:
        scheme, location = parse_address(address)
        host, port = get_backend(scheme).get_address_host_port(location)
        if not 0 < int(port) < 65536:
            raise ValueError(f"port {port} is not from 1 to 65535")
    except (ValueError, TypeError, NotImplementedError) as error:
        raise ExecutorError(f"--scheduler {address!r} is not a Dask scheduler address "
                            f"(tcp://HOST:PORT): {error}") from None


def local_cluster_security():
    """TLS both ways for a local cluster, its certificate in memory: a plain loopback listener
    would run any local user's client's functions. `Security.temporary()` with a quicker
    elliptic-curve key; ExecutorError without `cryptography`."""
    import datetime

    from distributed.security import Security

    try:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID
    except ImportError as error:
        raise ExecutorError(f"cannot secure a local Dask cluster: {error}") from None
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "dask-internal")])
    now = datetime.datetime.now(tz=datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("dask-internal")]),
                           critical=False)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=365))
            .sign(key, hashes.SHA256()))
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    cert_pem = cert.public_bytes(serialization.Encoding.PEM).decode()
    return Security(require_encryption=True, tls_ca_file=cert_pem,
                    tls_client_key=key_pem, tls_client_cert=cert_pem,
                    tls_scheduler_key=key_pem, tls_scheduler_cert=cert_pem,
                    tls_worker_key=key_pem, tls_worker_cert=cert_pem)


class DaskExecutor(contextlib.AbstractContextManager["DaskExecutor"]):
    """Runs jobs on a Dask cluster: the one at `scheduler`, or a local one started for it."""

    builds_on_workers = True  # external programs travel as build recipes (see `solvers`)

    def __init__(self, scheduler: str | None = None, jobs: int | None = None,
                 preload: tuple[tuple[str, str], ...] = ()) -> None:
        self._cluster: LocalCluster | None = None
        self._client: Client | None = None
        self._cap = None if scheduler is None else jobs
        try:
            self._connect(scheduler, jobs, preload)
        except BaseException:
            self.close()
            raise
        self.size = jobs or self._threads()
        self._window_at = 0.0
        self._threads_seen = 0
        self._long_tasks = False
        self._pace = _Pace({}, {})
        self._graded_here: set[tuple[str, str]] = set()  # (problem, solver): answers graded here

    def _connect(self, scheduler: str | None, jobs: int | None,
                 preload: tuple[tuple[str, str], ...]) -> None:
        import dask
        from distributed import Client, LocalCluster

        if scheduler is not None:
            _check_address(scheduler)
        try:
            if scheduler is None:
                # The local cluster's processes leave Ctrl-C to this process (a terminal sends
                # it to all of them): they are started with SIGINT ignored, which they inherit.
                with _interrupts_ignored(), dask.config.set(LOCAL_CLUSTER_CONFIG):
                    workers = check_jobs(jobs) or os.cpu_count() or 1
                    self._cluster = LocalCluster(n_workers=max(1, workers),
                                                 threads_per_worker=1, processes=True,
                                                 host="127.0.0.1", dashboard_address=None,
                                                 # (its HTTP server on a free loopback port,
                                                 # not Dask's 8787, which another may hold)
                                                 scheduler_kwargs={
                                                     "dashboard_address": "127.0.0.1:0"},
                                                 silence_logs=logging.ERROR,
                                                 security=local_cluster_security())
                scheduler = self._cluster.scheduler_address
            self.address = scheduler
            # A given scheduler: Dask's own security settings (config, environment) apply.
            client = self._client = Client(
                scheduler if self._cluster is None else self._cluster, set_as_default=False)
        except (OSError, TimeoutError) as error:
            raise ExecutorError(f"cannot reach the Dask scheduler at {scheduler}: "
                                f"{error}") from None
        try:
            plugin = GamebenchPlugin(ignore_interrupts=self._cluster is not None)
            client.register_plugin(plugin, name=PLUGIN_NAME)
            client.wait_for_workers(1, timeout=WORKER_WAIT_S)
            if preload:
                client.run(_preload_worker, tuple(preload))
        except TimeoutError:
            raise ExecutorError(f"no Dask worker joined the scheduler at {scheduler} within "
                                f"{WORKER_WAIT_S:g} s") from None
        except Exception as error:
            raise ExecutorError(f"the Dask workers at {scheduler} cannot run gamebench "
                                f"(is it installed there?): {type(error).__name__}: "
                                f"{error}") from None

    @contextlib.contextmanager
    def limited(self, jobs: int) -> Iterator[DaskExecutor]:
        """This executor running at most `jobs` batches at once while the block runs."""
        saved = self._cap, self.size
        self._cap = self.size = jobs
        try:
            yield self
        finally:
            self._cap, self.size = saved

    def _connected(self) -> Client:
        """The client of the cluster (ExecutorError once the executor is closed)."""
        if self._client is None:
            raise ExecutorError("the Dask executor is closed")
        return self._client

    def _threads(self) -> int:
        return max(1, sum(self._connected().nthreads().values()))

    def _window(self) -> int:
        """Tasks kept in flight: `jobs`, else one per worker thread (two while tasks are short)."""
        if self._cap:
            return self._cap
        now = time.monotonic()
        if now - self._window_at > WINDOW_REFRESH_S:
            self._threads_seen, self._window_at = self._threads(), now
        return self._threads_seen * (1 if self._long_tasks else 2)

    def run(self, jobs: Iterable[Job], skip: Skip | None = None,
            one_at_a_time: frozenset[str] = frozenset()) -> Iterator[tuple[Job, Outcome]]:
        return self._serve(None, {0: deque(jobs)}, skip, lambda problem: one_at_a_time)

    def serve(self, arrivals: Arrivals) -> Iterator[tuple[Job, Outcome]]:
        """Run jobs as they arrive from several callers, as `LocalPoolExecutor.serve` does: the
        next task from the lowest rank whose problem is not waiting, sized as `run` sizes it."""
        return self._serve(arrivals, {}, arrivals.skip, arrivals.one_at_a_time)

    def _serve(self, arrivals: Arrivals | None, pending: dict[int, deque[Job]],
               skip: Skip | None, turns: Callable[[str], frozenset[str]]
               ) -> Iterator[tuple[Job, Outcome]]:
        """Run the jobs `pending` (rank -> its jobs, in order) and those that arrive."""
        client = self._connected()
        alone: deque[Job] = deque()  # jobs of a batch the scheduler gave up on
        back: list[Job] = []  # jobs a task left unrun (their solver failed before them)
        live: dict = {}
        done: queue.SimpleQueue = queue.SimpleQueue()
        wakeup = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)  # readable once a task ends
        over = threading.Lock()  # held once `wakeup` is closed (its number may be reused)

        def finished(future) -> None:  # (on Dask's thread)
            done.put(future)
            if over.acquire(blocking=False):
                with contextlib.suppress(OSError):
                    os.eventfd_write(wakeup, 1)
                over.release()

        open_ = arrivals is not None
        ready = [arrivals.fileno()] if arrivals is not None else []
        try:
            while open_ or live or pending:
                if arrivals is not None and arrivals.fileno() in ready:
                    arrived = arrivals.take()
                    if arrived is None:
                        open_ = False
                    for batch in arrived or ():
                        for job in batch:
                            pending.setdefault(arrivals.rank(job), deque()).append(job)
                while not done.empty():
                    future = done.get()
                    yield from self._finished(future, live.pop(future), alone, back)
                    for job in reversed(back):  # (decided again, once their turn comes)
                        rank = arrivals.rank(job) if arrivals is not None else 0
                        pending.setdefault(rank, deque()).appendleft(job)
                    back.clear()
                while len(live) < self._window() and (
                        taken := self._next_served(pending, alone, arrivals, turns, live)):
                    batch, passed = skipped(taken, skip)
                    yield from passed
                    if batch:
                        future = self._submit(client, batch, turns(batch[0].solver.problem)
                                              & {job.solver.name for job in batch})
                        live[future] = batch
                        future.add_done_callback(finished)
                if not open_ and not live:
                    break
                watched = [wakeup, *([arrivals.fileno()] if arrivals and open_ else [])]
                ready = select.select(watched, [], [], WINDOW_REFRESH_S)[0]
                with contextlib.suppress(BlockingIOError):  # (no task ended since)
                    os.eventfd_read(wakeup)
        finally:
            if live:
                client.cancel(list(live), force=True)
            over.acquire()  # (kept: no callback writes to `wakeup` once it is closed)
            os.close(wakeup)

    def _next_served(self, pending: dict[int, deque[Job]], alone: deque[Job],
                     arrivals: Arrivals | None, turns: Callable[[str], frozenset[str]],
                     live: dict) -> list[Job] | None:
        """The next task's jobs, taken off `pending` (None: none can go now): a job a task
        for a problem with solvers run one at a time, held to its turn among its tasks."""
        if alone:
            return [alone.popleft()]
        for rank in sorted(pending):
            jobs = pending[rank]
            if not jobs:
                del pending[rank]
                continue
            problem = jobs[0].solver.problem
            if arrivals is not None and arrivals.waiting(problem):
                continue
            if one_at_a_time := turns(problem):
                batch = next_in_turn(jobs, one_at_a_time, (
                    b for b in live.values() if b[0].solver.problem == problem), self._pace,
                    self._cap or self._threads_seen, self._graded_here)
            else:
                batch = next_batch(jobs, self._pace, self._cap or self._threads_seen)
            if batch:
                return batch
        return None

    def _submit(self, client, batch: list[Job], stop: frozenset[str] = frozenset()):
        payload = pickle.dumps((tuple(batch), stop), protocol=pickle.HIGHEST_PROTOCOL)
        with warnings.catch_warnings():  # a big input is one task's whole payload
            warnings.filterwarnings("ignore", message="Sending large graph")
            return client.submit(run_batch, payload, pure=False,
                                 key=f"gamebench-batch-{uuid.uuid4().hex}")

    def _finished(self, future, batch: list[Job], alone: deque[Job],
                  back: list[Job]) -> Iterator[tuple[Job, Outcome]]:
        """The outcomes of a finished task; its jobs the worker left unrun go to `back`, those
        of a task the scheduler gave up on to `alone` (each to be sent alone)."""
        from distributed import KilledWorker

        try:
            outcomes = pickle.loads(future.result())
        except KilledWorker as error:
            if len(batch) > 1:
                alone.extend(batch)
                return
            yield batch[0], Outcome(batch[0].key, Verdict.JE, error=(
                f"judge error: its worker died: the Dask scheduler gave up after "
                f"{error.allowed_failures + 1} workers died running it; --resume runs it "
                "again"))
            return
        except BuildError:
            raise
        except WorkerSetupError as error:
            raise ExecutorError(str(error)) from None
        except Exception as error:  # cancelled on the cluster, a worker that cannot import us
            raise ExecutorError(f"a batch failed on the Dask cluster at {self.address}: "
                                f"{type(error).__name__}: {error}") from None
        finally:
            future.release()
        by_key = {job.key: job for job in batch}
        self._long_tasks = sum(o.wall_ms or 0.0 for o in outcomes) > PREFETCH_BELOW_S * 1000
        ran = {outcome.key for outcome in outcomes}
        back += [job for job in batch if job.key not in ran]
        for outcome in outcomes:
            job = by_key[outcome.key]
            self._pace.learn(job, outcome)
            if outcome.judgement is None and outcome.verdict is None:
                self._graded_here.add((job.solver.problem, job.solver.name))
            yield job, outcome

    def close(self) -> None:
        """Disconnect; a cluster started for this executor is stopped with its workers."""
        parts, self._client, self._cluster = (self._client, self._cluster), None, None
        for part in parts:  # the client, then the cluster
            if part is not None:
                with contextlib.suppress(Exception):
                    part.close(timeout=CLOSE_WAIT_S)

    def __exit__(self, *exc) -> None:
        self.close()
