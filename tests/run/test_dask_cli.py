"""`pipeline run` and `pipeline nightly` with `--executor dask`, as real processes: on the
loopback cluster of `test_dask_executor` (a `dask scheduler` and two `dask worker` processes),
and on a local Dask cluster the command starts itself. Interrupting or killing the driver
leaves no case running on the workers, and `--resume` finishes a killed run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter

from runkit import (
    REPO,
    alive,
    command,
    corpus,
    graded,
    pipeline_argv,
    py,
    results,
    run_cli,
    verdicts,
    wait_until,
)
from test_dask_executor import cluster, cluster_env, cmdline, descendants, processes_with  # noqa: F401 (fixture)
from typer.testing import CliRunner

from benchmarks.dask import scheduler_address
from pipeline.cli import app
from pipeline.tables.results import read_runs

CASES = {
    "a/01.in": ("1 2\n", "3\n"), "a/02.in": ("2 2\n", None), "a/03.in": ("4 5000\n", None),
    "a/04.in": ("7 1\n", "8\n"),
}


def _driver(data, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    return subprocess.Popen(pipeline_argv(data, "run", "--problem", "toy", *args), cwd=REPO,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_executor_dask_without_a_scheduler_runs_on_a_local_cluster_it_then_stops(
        tmp_path, monkeypatch):
    monkeypatch.delenv("PIPELINE_SCHEDULER", raising=False)
    solvers = ["--solver", "fast", "--solver", "wrong", "--solver", "crashy",
               f"--external=sum={command(py('sum'))}"]
    local, on_dask = tmp_path / "local", tmp_path / "dask"
    for data in (local, on_dask):
        corpus(data, CASES)
    done = run_cli(local, "run", "--problem", "toy", *solvers, "--jobs", "2")
    assert done.returncode == 0, done.stderr
    driver = _driver(on_dask, *solvers, "--executor", "dask", "--jobs", "2")
    seen: set[int] = set()
    while driver.poll() is None:  # every process the run starts, while it runs
        seen.update(descendants(driver.pid))
        time.sleep(0.2)
    out, err = driver.communicate()
    assert driver.returncode == 0, err
    assert ", 4 cases, 16 results" in out
    assert len(seen) >= 4  # the cluster's processes: two workers and their inner pools
    assert wait_until(lambda: not any(alive(pid) for pid in seen), timeout=20), \
        "a process of the local cluster outlived the run"
    [local_run] = read_runs(local)["run_id"]
    [dask_run] = read_runs(on_dask).iter_rows(named=True)
    assert dask_run["status"] == "finished" and dask_run["jobs"] == 2
    assert verdicts(graded(on_dask, dask_run["run_id"])) == verdicts(graded(local, local_run))


def _sleepers_on_a_local_cluster(tmp_path, marker: str) -> tuple[subprocess.Popen, set[int]]:
    """A run on a local Dask cluster of its own, started in a session of its own (as from a
    terminal), once both its cases are running; with every process it started by then."""
    data = tmp_path / "data"
    corpus(data, {"a/01.in": ("1 2\n", "3\n"), "a/02.in": ("2 3\n", "5\n")})
    driver = subprocess.Popen(
        pipeline_argv(data, "run", "--problem", "toy", "--timeout", "60", "--executor", "dask",
                      "--jobs", "2", f"--external=slow={command(py('sleeper', marker))}",
                          "--solver", "slow"),
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True, env={**os.environ, "PYTHONFAULTHANDLER": "1"})
    programs = lambda: [pid for pid in processes_with(marker) if pid != driver.pid]  # noqa: E731
    if not wait_until(lambda: len(programs()) == 2, timeout=60):
        driver.kill()
        raise AssertionError(f"the cases never started: {driver.communicate()}")
    return driver, set(descendants(driver.pid))


def _ended(driver: subprocess.Popen, timeout: float) -> tuple[str, str]:
    """The output of `driver` once it exits; if it has not within `timeout` s, it is aborted
    and the failure shows where each of its threads was (its faulthandler's dump)."""
    try:
        return driver.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        driver.send_signal(signal.SIGABRT)
        out, err = driver.communicate()
        raise AssertionError(f"the driver did not exit within {timeout:g} s:\n{out[-2000:]}"
                             f"\n{err[-6000:]}") from None


def test_ctrl_c_at_the_terminal_of_a_run_on_a_local_cluster_stops_it_all_quietly(
        tmp_path, monkeypatch):
    monkeypatch.delenv("PIPELINE_SCHEDULER", raising=False)
    driver, started = _sleepers_on_a_local_cluster(tmp_path, f"terminal-{os.getpid()}")
    os.killpg(driver.pid, signal.SIGINT)  # a terminal's Ctrl-C reaches its whole group
    out, err = _ended(driver, timeout=60)
    assert driver.returncode == 130
    assert ": interrupted, 2 cases, 0 results" in out
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert wait_until(lambda: not any(alive(pid) for pid in started), timeout=20)


def test_a_run_on_a_local_cluster_killed_with_minus_9_takes_its_cluster_and_cases_along(
        tmp_path, monkeypatch):
    monkeypatch.delenv("PIPELINE_SCHEDULER", raising=False)
    driver, started = _sleepers_on_a_local_cluster(tmp_path, f"minus-9-{os.getpid()}")
    driver.kill()
    driver.communicate()
    assert len(started) >= 6  # two workers, their inner pools and the two programs
    assert wait_until(lambda: not any(alive(pid) for pid in started), timeout=20), \
        "a worker or a case outlived the driver"


def test_ctrl_c_of_the_driver_stops_its_cases_on_the_cluster(tmp_path, cluster):  # noqa: F811
    cluster.wait_for_both_workers()
    data, marker = tmp_path / "data", f"ctrl-c-{os.getpid()}"
    corpus(data, {"a/01.in": ("1 2\n", "3\n"), "a/02.in": ("2 3\n", "5\n")})
    driver = _driver(data, f"--external=slow={command(py('sleeper', marker))}", "--solver",
                     "slow", "--timeout", "60", "--executor", "dask", "--scheduler",
                     cluster.address)

    def programs() -> list[int]:  # the driver's own command line names the marker too
        return [pid for pid in processes_with(marker) if pid != driver.pid]

    try:
        assert wait_until(lambda: len(programs()) == 2, timeout=30), \
            f"the cases never started on both workers: {[cmdline(p) for p in programs()]}"
        driver.send_signal(signal.SIGINT)
        out, _ = driver.communicate(timeout=30)
    finally:
        if driver.poll() is None:
            driver.kill()
    assert driver.returncode == 130
    assert ": interrupted, 2 cases, 0 results" in out
    assert wait_until(lambda: not programs(), timeout=15), "a case kept running"
    assert wait_until(lambda: not cluster.executing(), timeout=15)
    assert read_runs(data)["status"].to_list() == ["interrupted"]


def test_a_driver_killed_with_minus_9_leaves_no_case_running_on_the_cluster(
        tmp_path, cluster, monkeypatch):  # noqa: F811
    cluster.wait_for_both_workers()
    monkeypatch.setenv("PIPELINE_SCHEDULER", cluster.address)  # the executor's default
    data = tmp_path / "data"
    corpus(data, {"a/01.in": ("1 2\n", "3\n"), "a/02.in": ("2 3\n", "5\n")})
    driver = _driver(data, "--solver", "sleepy", "--timeout", "60", "--executor", "dask")
    try:
        assert wait_until(lambda: len(cluster.executing()) == 2, timeout=30), \
            "the cases never started on both workers"
        time.sleep(0.5)  # the batches reach the workers' inner pools
        busy = [pid for worker in cluster.worker_pids().values()
                for pid in cluster.inner_workers(worker)]
        driver.kill()
        driver.wait()
    finally:
        if driver.poll() is None:
            driver.kill()
    # The scheduler drops a departed client's tasks; the workers stop the cases they ran.
    assert busy and wait_until(lambda: not any(alive(pid) for pid in busy), timeout=20)
    assert wait_until(lambda: not cluster.executing(), timeout=15)


def test_a_run_on_the_cluster_killed_with_minus_9_is_finished_by_resume(
        tmp_path, cluster, monkeypatch):  # noqa: F811
    cluster.wait_for_both_workers()
    monkeypatch.setenv("PIPELINE_SCHEDULER", cluster.address)
    data, cases, repeat = tmp_path / "data", 500, 6  # 6 s of cases: killed well before the end
    corpus(data, {f"a/{i:04d}.in": (f"{i} {i % 10}\n", f"{i + i % 10}\n") for i in range(cases)})
    driver = _driver(data, "--solver", "nap", "--repeat", str(repeat), "--executor", "dask")
    try:
        assert wait_until(lambda: any((data / "tables" / "results").glob("*.parquet")),
                          timeout=60), "no results chunk was written"
        assert driver.poll() is None, "the run finished before it could be killed"
        driver.kill()
        driver.wait()
    finally:
        if driver.poll() is None:
            driver.kill()
    [row] = read_runs(data).iter_rows(named=True)
    before = results(data, row["run_id"])
    assert row["status"] == "running" and 0 < before.height < cases * repeat

    done = run_cli(data, "run", "--problem", "toy", "--resume", row["run_id"], "--executor",
                   "dask")
    assert done.returncode == 0, done.stderr
    assert f"run {row['run_id']}: finished" in done.stdout
    after = results(data, row["run_id"])
    keys = Counter(zip(after["case_id"], after["solver"], after["repeat"]))
    assert len(keys) == cases * repeat and set(keys.values()) == {1}
    assert set(after["verdict"]) == {"AC"}
    assert before.join(after, on=["case_id", "solver", "repeat"], how="anti").is_empty()
    assert set(after["host"]) <= cluster.hostnames()


def test_a_users_own_tls_cluster_given_with_scheduler_is_reached_with_dasks_security_settings(
        tmp_path):
    """A user's own cluster secured by Dask's usual settings (certificates named in
    `DASK_DISTRIBUTED__COMM__TLS__*`, encryption required): `--scheduler tls://...` reaches it
    with those settings, as every Dask client does, and the run gets its verdicts there. (The
    local cluster a run starts has a key of its own; a given scheduler keeps Dask's way.)"""
    from distributed.security import Security

    made = Security.temporary()
    files = {}
    for name, text in (("ca", made.tls_ca_file), ("cert", made.tls_client_cert),
                       ("key", made.tls_client_key)):
        files[name] = tmp_path / f"{name}.pem"
        files[name].write_text(text)
        files[name].chmod(0o600)
    tls = {"DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION": "True",
           "DASK_DISTRIBUTED__COMM__TLS__CA_FILE": str(files["ca"])}
    for role in ("SCHEDULER", "WORKER", "CLIENT"):
        tls[f"DASK_DISTRIBUTED__COMM__TLS__{role}__CERT"] = str(files["cert"])
        tls[f"DASK_DISTRIBUTED__COMM__TLS__{role}__KEY"] = str(files["key"])
    env = {**cluster_env(tmp_path / "build"), **tls}
    scheduler_file = tmp_path / "scheduler.json"
    dask = [sys.executable, "-m", "dask"]
    processes = [subprocess.Popen([*dask, "scheduler", "--protocol", "tls", "--host",
                                   "127.0.0.1", "--port", "0", "--no-dashboard",
                                   "--scheduler-file", str(scheduler_file)],
                                  env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        assert wait_until(lambda: scheduler_address(scheduler_file), timeout=60), \
            "the scheduler did not start"
        processes.append(subprocess.Popen(
            [*dask, "worker", "--scheduler-file", str(scheduler_file), "--nthreads", "1",
             "--protocol", "tls", "--host", "127.0.0.1", "--no-dashboard",
             "--local-directory", str(tmp_path / "worker")],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        address = scheduler_address(scheduler_file)
        assert address is not None
        assert address.startswith("tls://127.0.0.1:"), address
        data = tmp_path / "data"
        corpus(data, CASES)
        done = subprocess.run(pipeline_argv(data, "run", "--problem", "toy", "--solver", "fast",
                                            "--executor", "dask", "--scheduler", address),
                              cwd=REPO, env={**env, "PYTHONPATH": f"{REPO}{os.pathsep}"
                                                                  f"{env['PYTHONPATH']}"},
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        [run_id] = read_runs(data)["run_id"]
        assert set(verdicts(graded(data, run_id)).values()) == {"AC"}
    finally:
        for process in reversed(processes):  # the worker first, then the scheduler
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def test_bad_executor_options_are_refused_with_a_clear_message(tmp_path, monkeypatch):
    monkeypatch.delenv("PIPELINE_SCHEDULER", raising=False)
    data = tmp_path / "data"
    corpus(data, CASES)
    for args, message in ((["--executor", "spark"], "unknown executor 'spark': use local or "
                           "dask"),
                          (["--scheduler", "tcp://127.0.0.1:8786"],
                           "--scheduler is for --executor dask")):
        result = CliRunner().invoke(app, ["--data-dir", str(data), "run", "--problem", "toy",
                                          "--solver", "fast", *args])
        assert result.exit_code == 2, result.output
        assert f"error: {message}" in result.output
    monkeypatch.setenv("DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT", "1s")
    unreachable = run_cli(data, "run", "--problem", "toy", "--solver", "fast", "--executor",
                          "dask", "--scheduler", "tcp://127.0.0.1:9")
    assert unreachable.returncode == 1
    assert unreachable.stderr.startswith(
        "error: cannot reach the Dask scheduler at tcp://127.0.0.1:9: ")
    assert "Traceback" not in unreachable.stderr
    assert not (data / "tables" / "runs").exists()


def test_nightly_runs_every_problem_on_the_cluster(tmp_path, cluster):  # noqa: F811
    cluster.wait_for_both_workers()
    config = tmp_path / "nightly.toml"
    config.write_text('seed = 3\nproblems = ["arc087e", "bipartitebattle"]\n'
                      "[corpus.arc087e]\ntiny = 30\n[corpus.bipartitebattle]\ntiny = 20\n")
    data = tmp_path / "data"
    done = run_cli(data, "nightly", "--config", str(config), "--executor", "dask",
                   "--scheduler", cluster.address, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-4].startswith("nightly: ok")
    runs = read_runs(data)
    assert sorted(runs["problem"]) == ["arc087e", "bipartitebattle"]
    assert set(runs["status"]) == {"finished"}
    for run_id in runs["run_id"]:
        frame = results(data, run_id)
        assert frame.height > 0 and set(frame["host"]) <= cluster.hostnames()
