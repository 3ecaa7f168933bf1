"""The Dask executor on a real cluster: a `dask scheduler` and two `dask worker` processes on
loopback, started here (one of them under its own host name where Linux allows a UTS
namespace), and the toy problem's stages and real programs run on them.

A run on the cluster gets the local executor's verdicts, answers, errors and memory verdicts;
a worker killed mid-run costs no result and doubles none; a case that kills its worker twice is
a judge error (`JE`), never `RE`; a cancelled run leaves nothing running; programs are built on
the workers.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings
from collections import deque
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pytest
from runkit import (
    FAIL_FAST_CASES,
    PROGRAMS,
    REPO,
    alive,
    check_fail_fast,
    check_turns_by_problem,
    children_of,
    command,
    corpus,
    graded,
    py,
    results,
    run_jobs,
    stage,
    verdicts,
    wait_until,
)

from benchmarks.dask import scheduler_address
from pipeline.programs.jobs import Job, Outcome, SolverSpec
from pipeline.programs.languages import BuildError
from pipeline.programs.program import Program
from pipeline.run.dask_executor import (
    FIRST_TASK_JOBS,
    MAX_TASK_JOBS,
    TASK_BYTES,
    TASK_TARGET_S,
    DaskExecutor,
    _Pace,
    next_batch,
)
from pipeline.run.executors import LocalPoolExecutor
from pipeline.run.runner import RunRequest, run
from pipeline.tables.results import read_runs
from pipeline.verdicts import Verdict

TESTS = REPO / "tests"
FIXTURE_PROBLEMS = TESTS / "fixtures" / "problems"
OTHER_HOST = "gamebench-worker-b"


def descendants(pid: int) -> list[int]:
    """Pids of the live processes below `pid` (one pass over /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] not in ("Z", "X"):
                children.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def processes_with(marker: str) -> list[int]:
    """Live processes whose command line contains `marker`, but for the launchers that start
    the programs (they carry the program's command line after their own options)."""
    return [int(entry) for entry in os.listdir("/proc") if entry.isdigit()
            and marker in cmdline(int(entry)) and alive(int(entry))
            and not os.path.basename(cmdline(int(entry)).split(" ", 1)[0]).startswith(
                "launcher")]


def cluster_env(build_dir: Path) -> dict[str, str]:
    """What the workers need: gamebench and the toy problem importable, a build cache."""
    return {**os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(TESTS), str(REPO),
                                                        os.environ.get("PYTHONPATH")])),
            "PIPELINE_PROBLEMS_DIR": str(FIXTURE_PROBLEMS), "PIPELINE_BUILD_DIR": str(build_dir)}


def _uts_namespaces_work() -> bool:
    try:
        return subprocess.run(["unshare", "--uts", "true"], capture_output=True,
                              timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


@dataclass
class Cluster:
    address: str
    client: object  # a distributed.Client for looking at the cluster
    processes: list[subprocess.Popen]
    build_dir: Path

    def worker_pids(self) -> dict[str, int]:
        """Dask worker address -> pid of its worker process (the nanny's child)."""
        return self.client.run(os.getpid)

    def hostnames(self) -> set[str]:
        return set(self.client.run(socket.gethostname).values())

    def inner_workers(self, worker_pid: int) -> list[int]:
        """The local-pool processes a Dask worker process runs its cases in."""
        return [pid for pid in children_of(worker_pid)
                if "spawn_main" in cmdline(pid) and "resource_tracker" not in cmdline(pid)]

    def executing(self) -> dict[str, list]:
        """Dask worker address -> keys of the tasks it is executing now."""
        return {address: list(tasks) for address, tasks in self.client.call_stack().items()
                if tasks}

    def wait_for_both_workers(self) -> None:
        self.client.wait_for_workers(2, timeout=90)
        assert wait_until(lambda: len(self.worker_pids()) == 2, timeout=30)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A scheduler and two workers (one thread each, under nannies, as `dask worker` starts
    them), the second one under the host name OTHER_HOST when UTS namespaces work here. One per
    module that uses it (test_dask_cli's tests get their own), stopped after the module's last
    test: idle, its processes keep polling, and a cluster kept to the end of the session would
    spend CPU all along while the other tests run."""
    from distributed import Client

    folder = tmp_path_factory.mktemp("cluster")
    build_dir = folder / "build"
    env = cluster_env(build_dir)
    dask = [sys.executable, "-m", "dask"]
    scheduler_file = folder / "scheduler.json"
    scheduler = subprocess.Popen([*dask, "scheduler", "--host", "127.0.0.1", "--port", "0",
                                  "--no-dashboard", "--scheduler-file", str(scheduler_file)],
                                 env=env, stdout=subprocess.DEVNULL,
                                 stderr=open(folder / "scheduler.log", "wb"))
    processes = [scheduler]
    client = None
    try:
        assert wait_until(lambda: scheduler_address(scheduler_file), timeout=60), \
            "the scheduler did not start"
        for name in ("a", "b"):
            argv = [*dask, "worker", "--scheduler-file", str(scheduler_file), "--nthreads", "1",
                    "--no-dashboard", "--host", "127.0.0.1", "--name", f"worker-{name}",
                    "--local-directory", str(folder / f"worker-{name}")]
            if name == "b" and _uts_namespaces_work():
                argv = ["unshare", "--uts", "sh", "-c", f'hostname {OTHER_HOST} && exec "$@"',
                        "sh", *argv]
            processes.append(subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL,
                                              stderr=open(folder / f"worker-{name}.log", "wb")))
        address = scheduler_address(scheduler_file)
        assert address is not None
        client = Client(address, set_as_default=False)
        found = Cluster(address, client, processes, build_dir)
        found.wait_for_both_workers()
        yield found
    finally:
        everything = [pid for process in processes for pid in descendants(process.pid)]
        if client is not None:
            client.close()
        for process in processes[1:] + processes[:1]:  # workers first, then the scheduler
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        assert wait_until(lambda: not any(alive(pid) for pid in everything), timeout=20), \
            "a process of the cluster outlived it"


@pytest.fixture
def executor(cluster):
    cluster.wait_for_both_workers()  # a test before may have had a worker killed
    with DaskExecutor(cluster.address) as connected:
        yield connected


def outcomes_of(executor, jobs: list[Job]) -> dict[int, Outcome]:
    found: dict[int, Outcome] = {}
    for job, outcome in executor.run(jobs):
        assert outcome.key == job.key
        assert job.key not in found, f"job {job.key} got two outcomes"
        found[job.key] = outcome
    assert sorted(found) == sorted(job.key for job in jobs)
    return found


# -- the same run as the local executor ----------------------------------------------------------

CASES = {
    "mixed/01.in": ("1 2\n", "3\n"),        # a is odd: `wrong` and `odd` are wrong here
    "mixed/02.in": ("2 2\n", None),         # expected from brute
    "mixed/03.in": ("4 5000\n", None),      # beyond brute: expected from fast
    "mixed/04.in": (f"{10**12} 5000\n", None),  # beyond both: nothing to compare with
    "mixed/05.in": ("7 1\n", "8\n"),
}


def test_a_run_on_the_cluster_gets_the_local_runs_verdicts_answers_errors_and_memory(
        tmp_path, cluster, executor):
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    externals = (
        Program(name="sum", run=command(py("sum"))),
        Program(name="odd", run=command(py("wrong_on_odd"))),
        Program(name="exit3", run=command(py("exit_code"))),
        Program(name="sleeper", run=command(py("sleeper")), time_limit_s=0.3),
        Program(name="hog", run=command(py("hog")),
                time_limit_s=20.0),  # touching 256 MB is kernel time: MLE, never TLE
        Program(name="resident", run=command(py("resident", "80"))),
        Program(name="built", path=PROGRAMS / "sum.cpp",
                build="g++ -O1 -o {exe} {source}", run="{exe}"),
    )
    request = RunRequest("toy", solvers=("fast", "brute", "wrong", "crashy", "hungry", "dies"),
                         externals=externals, jobs=2, memory_mb=256)
    frames = {}
    for where in ("local", "cluster"):
        data = tmp_path / where
        corpus(data, CASES)
        summary = run(data, request, executor=executor if where == "cluster" else None)
        assert summary.status == "finished" and summary.results_written == 5 * 13
        frames[where] = graded(data, summary.run_id)
    local, on_cluster = frames["local"], frames["cluster"]

    def seen(frame: pl.DataFrame) -> dict:
        """(case, solver) -> verdict, answer, error (measured seconds in errors left out)."""
        return {(row["name"], row["solver"]): (row["verdict"], row["answer"], re.sub(
            r"worker died twice \([^)]*\)", "worker died twice (how)",  # (may be unknown)
            re.sub(r"\d+\.\d+ s of CPU", "N s of CPU", row["error"] or "")))
                for row in frame.iter_rows(named=True)}

    assert verdicts(on_cluster) == verdicts(local)
    assert seen(on_cluster) == seen(local)
    assert set(verdicts(local).values()) == {"AC", "WA", "RE", "TLE", "MLE", "SKIP", "NOEXP",
                                             "JE"}  # (`dies` kills every worker it runs on)
    # Peak memory of a program well above its worker's size agrees within measurement noise.
    peaks = {where: frame.filter(pl.col("solver") == "resident")["peak_rss_kb"].median()
             for where, frame in frames.items()}
    assert 0.8 < peaks["cluster"] / peaks["local"] < 1.25
    # The program was built on the workers into their cache, not into the driver's data.
    assert not (tmp_path / "cluster" / "build").exists()
    assert list(cluster.build_dir.glob("builds/*/result.json"))
    # Every result names the host of the worker that ran it.
    assert set(on_cluster["host"]) <= cluster.hostnames()
    assert set(local["host"]) == {socket.gethostname()}


def test_fail_fast_on_the_cluster_sends_no_task_for_a_solver_that_has_failed(tmp_path,
                                                                             executor):
    data = tmp_path / "data"
    corpus(data, FAIL_FAST_CASES)
    summary = run(data, RunRequest("toy", solvers=("fast", "wrong"), fail_fast=True),
                  executor=executor)
    check_fail_fast(data, summary.run_id)


def test_each_result_names_the_worker_host_and_a_run_over_two_hosts_has_no_single_host(
        tmp_path, cluster, executor):
    if OTHER_HOST not in cluster.hostnames():
        pytest.skip("no UTS namespace here: both workers share this machine's host name")
    data = tmp_path / "data"
    corpus(data, {f"a/{i:04d}.in": (f"{i} 1\n", f"{i + 1}\n") for i in range(400)})
    summary = run(data, RunRequest("toy", solvers=("nap",)), executor=executor)
    assert summary.status == "finished"
    frame = results(data, summary.run_id)
    assert set(frame["host"]) == {socket.gethostname(), OTHER_HOST}
    assert set(frame["verdict"]) == {"AC"}
    [row] = read_runs(data).iter_rows(named=True)
    assert row["host"] is None  # timings of this run are compared with no other run's


def test_an_overdue_stage_is_killed_on_its_worker_and_the_batch_finished_as_locally(executor):
    jobs = [Job(0, stage("fast"), "a", "1 1\n"), Job(1, stage("sleepy", timeout_s=0.3), "b",
                                                      "1 1\n"),
            *(Job(i, stage("fast"), f"c{i}", f"{i} 1\n") for i in range(2, 6))]
    with LocalPoolExecutor(1) as local:
        expected = run_jobs(local, jobs)
    found = outcomes_of(executor, jobs)
    assert [(found[i].verdict, found[i].answer, found[i].error) for i in range(6)] == \
        [(expected[i].verdict, expected[i].answer, expected[i].error) for i in range(6)]
    assert found[1].verdict == Verdict.TLE
    assert found[1].error.startswith("wall clock 0.8 s cap reached (limit + 0.5 s,")
    assert 800 <= found[1].wall_ms < 3000


def test_cases_run_in_the_environment_the_worker_was_started_with_not_its_nannys(cluster,
                                                                                 executor):
    """A nanny sets MALLOC_TRIM_THRESHOLD_ (which alone costs allocation-heavy solvers ~15%
    CPU), single-threaded BLAS and a fixed hash seed in its worker process; the processes that
    run the cases do without, like the local executor's."""
    outcomes = outcomes_of(executor, [Job(i, stage("pid"), f"c{i}", "1 1\n") for i in range(2)])
    for outcome in outcomes.values():
        with open(f"/proc/{int(outcome.answer)}/environ", "rb") as handle:
            environment = dict(item.split(b"=", 1) for item in handle.read().split(b"\0") if item)
        assert b"PIPELINE_PROBLEMS_DIR" in environment  # what `dask worker` was started with
        for name in (b"MALLOC_TRIM_THRESHOLD_", b"OMP_NUM_THREADS", b"OPENBLAS_NUM_THREADS"):
            assert name not in environment
        assert environment.get(b"PYTHONHASHSEED") != b"6640"
    for pid in cluster.worker_pids().values():  # the nanny did set it in its worker process
        with open(f"/proc/{pid}/environ", "rb") as handle:
            assert b"MALLOC_TRIM_THRESHOLD_=65536" in handle.read()


def test_an_input_of_many_megabytes_reaches_its_worker_whole_and_without_a_warning(executor):
    text = "1" + " " * (12 << 20) + "2\n3\n"  # one token too many, after 12 MB
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        [outcome] = outcomes_of(executor, [Job(0, stage("fast"), "huge", text)]).values()
    assert outcome.verdict == Verdict.RE
    assert outcome.error.startswith("input rejected: line 2")


# -- workers that die --------------------------------------------------------------------------

def test_a_worker_killed_mid_run_has_its_batch_run_again_with_no_result_lost_or_doubled(
        cluster, executor):
    jobs = [Job(i, stage("nap"), f"case{i}", f"{i} 1\n") for i in range(1500)]
    pids = cluster.worker_pids()
    victim_address, victim = sorted(pids.items())[0]
    found: dict[int, Outcome] = {}
    inner: list[int] = []
    for job, outcome in executor.run(jobs):
        assert job.key not in found, f"job {job.key} got two outcomes"
        found[job.key] = outcome
        if not inner:  # after the first finished batch: kill a worker in the middle of one
            assert wait_until(lambda: victim_address in cluster.executing(), timeout=10)
            inner = cluster.inner_workers(victim)
            os.kill(victim, signal.SIGKILL)
    assert sorted(found) == list(range(1500))
    assert all((found[i].verdict, found[i].answer) == (None, f"{i + 1}\n") for i in range(1500))
    assert inner and wait_until(lambda: not any(alive(pid) for pid in [victim, *inner]),
                                timeout=10), "the killed worker's cases kept running"


KILLER = """
import os, sys, time

a, b = map(int, sys.stdin.read().split())
if a == 13:  # ask to have the Dask worker this program runs under killed, then hang
    host_pid = os.readlink("/proc/self")  # /proc counts in the machine's pids, not the case's
    with open(os.path.join(sys.argv[1], f"{host_pid}.pid"), "w") as marker:
        marker.write(host_pid)
    time.sleep(30)
print(a + b)
"""


def _parent(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return int(stat.read().rsplit(")", 1)[1].split()[1])
    except OSError:
        return None


def _kill_dask_workers_under(marker_dir: Path, stop) -> None:
    """For every program that asks (a pid file in `marker_dir`), kill the Dask worker process
    it runs under. A case's program cannot do it itself: it runs in a PID namespace of its own,
    where no process outside is visible (that is the containment working)."""
    done: set[str] = set()
    while not stop.is_set():
        for marker in marker_dir.glob("*.pid"):
            if marker.name in done:
                continue
            done.add(marker.name)
            pid = int(marker.stem)  # walk up to the child of the nanny (`dask worker ...`)
            while pid > 1:
                parent = _parent(pid)
                if parent is None:
                    break
                line = cmdline(parent)
                if "dask" in line and "worker" in line:
                    os.kill(pid, signal.SIGKILL)
                    break
                pid = parent
        time.sleep(0.02)


def test_a_case_that_kills_its_worker_twice_is_a_judge_error_and_the_rest_run(tmp_path, cluster,
                                                                            executor):
    script = tmp_path / "killer.py"
    script.write_text(KILLER)
    markers = tmp_path / "markers"
    markers.mkdir()
    spec = SolverSpec(name="killer", kind="external", problem="toy", timeout_s=20,
                      argv=(sys.executable, str(script), str(markers)))
    jobs = [Job(i, spec, f"case{i}", f"{10 + i} 1\n") for i in range(8)]  # job 3: a = 13
    stop = threading.Event()
    watcher = threading.Thread(target=_kill_dask_workers_under, args=(markers, stop),
                               daemon=True)
    watcher.start()
    started = time.monotonic()
    try:
        found = outcomes_of(executor, jobs)
    finally:
        stop.set()
        watcher.join(timeout=5)
    assert found[3].verdict == Verdict.JE
    assert found[3].error.startswith("judge error: its worker died twice: the Dask worker "
                                     "running it died each time (tcp://127.0.0.1:")
    assert all((found[i].verdict, found[i].answer) == (None, f"{11 + i}\n")
               for i in range(8) if i != 3)
    assert time.monotonic() - started < 90
    assert wait_until(lambda: not processes_with(str(script)), timeout=10), \
        "a killer program outlived its worker"


# -- nothing left running ----------------------------------------------------------------------

def test_a_run_left_early_cancels_its_batches_and_stops_their_cases(cluster, executor):
    """The runner leaves `run` early on an error or Ctrl-C (the generator is closed): the
    batches still running are cancelled and their cases stopped on the workers."""
    marker = f"left-early-{os.getpid()}"
    slow = SolverSpec(name="slow", kind="external", problem="toy", timeout_s=60,
                      argv=py("sleeper", marker))
    jobs = [Job(0, stage("fast"), "quick", "1 1\n"), Job(1, slow, "slow", "1 1\n")]
    running = executor.run(jobs)  # two jobs, two workers: a task each
    job, outcome = next(running)
    assert (job.key, outcome.answer) == (0, "2\n")
    assert wait_until(lambda: processes_with(marker), timeout=30), "the slow case never started"
    [(address, _)] = cluster.executing().items()
    worker = cluster.worker_pids()[address]
    inner = cluster.inner_workers(worker)
    running.close()
    assert wait_until(lambda: not processes_with(marker), timeout=15), "the program kept running"
    assert inner and wait_until(lambda: not any(alive(pid) for pid in inner), timeout=15)
    assert wait_until(lambda: not cluster.executing(), timeout=15)
    assert alive(worker)  # the Dask worker itself carries on


# -- programs built on the workers --------------------------------------------------------------

def test_a_program_is_built_on_the_workers_once_per_source_and_again_when_it_changes(
        tmp_path, cluster, executor):
    source = tmp_path / "answer.py"
    source.write_text(f"#!{sys.executable}\nimport sys\na, b = map(int, sys.stdin.read().split())"
                      "\nprint(a + b)\n")
    solver = Program(name="copied", path=source, run="{exe}",
                     build=f"{sys.executable} {PROGRAMS / 'build_copy.py'} {{source}} {{exe}}")
    data = tmp_path / "data"
    corpus(data, {f"a/{i:02d}.in": (f"{i} 1\n", f"{i + 1}\n") for i in range(24)})
    request = RunRequest("toy", solvers=(solver.name,), externals=(solver,))
    first = run(data, request, executor=executor)
    again = run(data, request, executor=executor)
    assert results(data, first.run_id)["verdict"].to_list() == ["AC"] * 24
    assert results(data, again.run_id)["verdict"].to_list() == ["AC"] * 24
    # each build logs its argv into its own folder, the only place a build may write
    builds = sorted(cluster.build_dir.glob("builds/*/build.log"))
    assert len(builds) == 1  # two workers share this machine's cache: one build between them
    assert len(builds[0].read_text().splitlines()) == 1
    assert str(cluster.build_dir) in builds[0].read_text() and not (data / "build").exists()
    source.write_text(f"#!{sys.executable}\nprint(0)\n")
    changed = run(data, request, executor=executor)
    assert len(list(cluster.build_dir.glob("builds/*/build.log"))) == 2
    assert set(results(data, changed.run_id)["verdict"]) == {"WA"}


def test_a_build_that_fails_on_the_workers_fails_the_run_with_the_compilers_message(
        tmp_path, cluster, executor):
    solver = Program(name="broken", run="{exe}",
                     build=f"{sys.executable} -c \"import sys; sys.exit('no compiler "
                           f"for {tmp_path.name}')\"")
    data = tmp_path / "data"
    corpus(data, {"a/01.in": ("1 2\n", "3\n")})
    with pytest.raises(BuildError, match=f"(?s)on the Dask worker on .*: building broken "
                                         f"failed .*no compiler for {tmp_path.name}"):
        run(data, RunRequest("toy", solvers=(solver.name,), externals=(solver,)),
            executor=executor)
    assert read_runs(data)["status"].to_list() == ["failed"]


# -- a local cluster started by the executor ------------------------------------------------------

# Another user of the machine: started as root (this interpreter lives under root's private
# home), it imports what it needs, becomes user OTHER_UID for good (no capability left) and says
# so, then tries every way a Dask client or peer reaches the local cluster's scheduler, nanny
# and worker listeners, each printed as `ran`/`answered` or `refused`.
OTHER_UID = 65534  # nobody
OTHER_USERS_ATTEMPTS = """\
import asyncio, os, sys
from distributed import Client
from distributed.core import rpc
from distributed.security import Security
Security.temporary()  # (imports what it needs)

os.setgroups([])
os.setgid(int(sys.argv[1]))
os.setuid(int(sys.argv[1]))
capabilities = [line for line in open("/proc/self/status") if line.startswith("CapEff")]
print("as uid", os.getuid(), "euid", os.geteuid(), "with", capabilities[0].split()[1])
scheduler, peers = sys.argv[2], sys.argv[3:]
plain = lambda address: "tcp://" + address.split("://", 1)[1]
for name, connect in (
        ("client", lambda: Client(scheduler, timeout="5s", set_as_default=False)),
        ("tcp client", lambda: Client(plain(scheduler), timeout="5s", set_as_default=False)),
        ("client with a certificate of its own",
         lambda: Client(scheduler, security=Security.temporary(), timeout="5s",
                        set_as_default=False))):
    try:
        with connect() as client:
            print(name, "ran as uid", client.submit(os.getuid, pure=False).result(timeout=30))
    except Exception as error:
        print(name, "refused:", type(error).__name__)

async def identity(address):
    async with rpc(address, timeout=5) as peer:
        return await peer.identity()

for address in peers:
    for candidate in sorted({address, plain(address)}):
        try:
            asyncio.run(asyncio.wait_for(identity(candidate), 15))
            print("peer", candidate, "answered")
        except Exception as error:
            print("peer", candidate, "refused:", type(error).__name__)
"""


def test_a_local_cluster_refuses_every_other_user_of_the_machine_and_runs_the_pipelines_jobs(
        tmp_path):
    """A Dask scheduler or worker runs any function a client sends it, as its own user. The
    local cluster that `--executor dask` starts without `--scheduler` listened on loopback with
    plain TCP: another local user connected a `distributed.Client` and ran code as the
    pipeline's user. Now that user's client, plain or with a certificate of its own, and a
    connection to any nanny or worker, is refused; the pipeline's own jobs still run there."""
    if os.geteuid() != 0:
        pytest.skip("running a client as another user needs root")
    home = tmp_path / "home"
    home.mkdir()
    os.chown(home, OTHER_UID, OTHER_UID)
    with DaskExecutor(jobs=1) as executor:  # the local cluster, started as a run starts it
        info = executor._client.scheduler_info()
        peers = [address for worker, about in info["workers"].items()
                 for address in (worker, about.get("nanny")) if address]
        assert peers, info
        attempts = subprocess.run(
            [sys.executable, "-c", OTHER_USERS_ATTEMPTS, str(OTHER_UID), executor.address,
             *peers],
            cwd=home, capture_output=True, text=True, timeout=300,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
                 "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "5s"})
        who, *lines = attempts.stdout.splitlines() or [""]
        assert who == f"as uid {OTHER_UID} euid {OTHER_UID} with 0000000000000000", \
            attempts.stdout + attempts.stderr
        assert attempts.returncode == 0 and len(lines) == 3 + 2 * len(peers), \
            attempts.stdout + attempts.stderr
        assert all(" refused: " in line for line in lines), attempts.stdout

        [(job, outcome)] = list(executor.run([Job(0, stage("fast"), "case", "1 2\n")]))
        assert outcome.verdict is None and outcome.answer.strip() == "3", outcome


# -- how jobs are cut into tasks ------------------------------------------------------------------

def test_tasks_start_small_then_carry_about_a_fixed_amount_of_work_and_spread_the_tail():
    spec = stage("fast")
    pending = deque(Job(i, spec, f"c{i}", "1 1\n") for i in range(100_000))
    pace = _Pace({}, {})
    assert len(next_batch(pending, pace)) == FIRST_TASK_JOBS  # nothing known yet
    for i in range(100):
        pace.learn(Job(i, spec, "c", ""), Outcome(i, wall_ms=1.95))
    assert abs(len(next_batch(pending, pace)) - TASK_TARGET_S * 500) <= 1  # at 2 ms a job
    fast = _Pace({("toy", "fast"): 0.0}, {("toy", "fast"): 1})
    assert len(next_batch(pending, fast)) == MAX_TASK_JOBS
    tail = deque(list(pending)[:1000])
    assert len(next_batch(tail, fast, share=4)) == 250  # the last jobs go to every worker


def test_a_big_input_travels_in_a_task_of_its_own():
    spec = stage("fast")
    big = "1 " + "0" * TASK_BYTES + "\n"
    pending = deque([Job(0, spec, "small", "1 1\n"), Job(1, spec, "big", big),
                     Job(2, spec, "small2", "1 1\n")])
    pace = _Pace({}, {})
    assert [[job.key for job in next_batch(pending, pace)] for _ in range(3)] == [[0], [1], [2]]


def test_a_contests_problems_share_the_cluster_at_once_each_held_to_its_own_turns(
        tmp_path, executor):
    """Two problems' runs on one queue on the cluster (`DaskExecutor.serve`), each with a
    solver named `prog` run one at a time (`check_turns_by_problem`): the second problem's
    jobs run on the other worker while the first's waits for their mark."""
    check_turns_by_problem(executor, tmp_path)
