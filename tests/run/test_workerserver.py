"""The worker server: the one process a command's pools fork their workers from, forked from
the command while it is single-threaded (else executed), holding no descriptor of the
command's, and gone with the command."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from runkit import alive

# A command in miniature: a pool (its server started as `pipeline run` starts it) runs one
# external job, then the script says what it sees and waits for the test.
COMMAND = textwrap.dedent("""
    import fcntl, json, os, sys, threading, time
    if sys.argv[1] == "threaded":  # a thread of its own: the server cannot be forked
        threading.Thread(target=time.sleep, args=(600,), daemon=True).start()
    held = open(sys.argv[2], "a")
    fcntl.flock(held, fcntl.LOCK_EX)  # a lock of the command's, taken before the server
    from pipeline.run import workerserver
    from pipeline.run.executors import LocalPoolExecutor
    from pipeline.programs.jobs import Job, SolverSpec
    workerserver.start_server()
    pool = LocalPoolExecutor(1)
    spec = SolverSpec(name="cat", kind="external", problem="arc087e", argv=("/bin/cat",),
                      timeout_s=10)
    [(job, outcome)] = list(pool.run([Job(0, spec, "c", "hello\\n")]))
    held.close()  # the command lets go of its lock
    server = workerserver._client.pid
    print(json.dumps({"answer": outcome.answer, "server": server,
                      "worker": pool._workers[0].process.pid,
                      "server_fds": sorted(int(fd) for fd in os.listdir(f"/proc/{server}/fd")),
                      "server_cmdline": open(f"/proc/{server}/cmdline").read().split("\\0")}),
          flush=True)
    time.sleep(600)
""")


def _command(tmp_path, how: str) -> tuple[subprocess.Popen, dict]:
    process = subprocess.Popen([sys.executable, "-c", COMMAND, how, str(tmp_path / "lock")],
                               stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    assert line, "the command said nothing"
    return process, json.loads(line)


def _gone(pids: list[int], within_s: float = 10.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not any(alive(pid) for pid in pids):
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("how", ["single-threaded", "threaded"])
def test_the_server_is_forked_from_a_single_threaded_command_and_executed_otherwise(
        tmp_path, how):
    process, seen = _command(tmp_path, how)
    try:
        assert seen["answer"] == "hello\n"
        executed = "from pipeline.run.workerserver import main; main()" in seen["server_cmdline"]
        assert executed == (how == "threaded")
    finally:
        process.kill()
        process.wait()


@pytest.mark.parametrize("how", ["single-threaded", "threaded"])
def test_the_server_holds_no_descriptor_of_the_command(tmp_path, how):
    """Only its standard streams and its socket: the lock the command held when the server
    started is free once the command lets go of it."""
    process, seen = _command(tmp_path, how)
    try:
        assert len(seen["server_fds"]) == 4 and seen["server_fds"][:3] == [0, 1, 2]
        with open(tmp_path / "lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # raises if anyone still holds it
    finally:
        process.kill()
        process.wait()


@pytest.mark.parametrize("how", ["single-threaded", "threaded"])
def test_the_server_and_its_workers_die_with_a_command_killed_with_sigkill(tmp_path, how):
    process, seen = _command(tmp_path, how)
    assert alive(seen["server"]) and alive(seen["worker"])
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert _gone([seen["server"], seen["worker"]])


def test_a_server_that_died_is_replaced_by_the_next_pool(tmp_path):
    from pipeline.programs.jobs import Job, SolverSpec
    from pipeline.run import workerserver
    from pipeline.run.executors import LocalPoolExecutor

    spec = SolverSpec(name="cat", kind="external", problem="arc087e", argv=("/bin/cat",),
                      timeout_s=10)
    with LocalPoolExecutor(1) as pool:
        [(_, outcome)] = list(pool.run([Job(0, spec, "c", "one\n")]))
    assert outcome.answer == "one\n"
    first = workerserver._client.pid
    os.kill(first, signal.SIGKILL)
    assert _gone([first])
    with LocalPoolExecutor(1) as pool:
        [(_, outcome)] = list(pool.run([Job(0, spec, "c", "two\n")]))
    assert outcome.answer == "two\n"
    assert workerserver._client.pid != first


def _report_probe(connection, progress=None, parent_pid=None) -> None:
    """A worker's target: say how many sandbox probes this process has done or inherited."""
    from pipeline.programs.launcher import _probe

    connection.send(_probe.cache_info().currsize)


def test_a_worker_starts_with_the_sandbox_probe_done_by_the_server():
    """The server probes the sandbox once (`worker.prepare_server`); each worker it forks has
    the answer without probing again."""
    import multiprocessing

    from pipeline.run import workerserver
    from pipeline.run.worker import PROGRESS_FIELDS

    ours, theirs = multiprocessing.Pipe(duplex=True)
    worker = workerserver.ServedProcess(_report_probe, theirs,
                                        workerserver.SharedDoubles(PROGRESS_FIELDS))
    worker.start()
    theirs.close()
    try:
        assert ours.poll(30)
        assert ours.recv() >= 1  # probe(True), and probe(False) where the sandbox fails
    finally:
        worker.join(10)
        worker.close()


AFTER_PROGRAMS = textwrap.dedent("""
    import json, os
    from pipeline.programs.external import run_external
    from pipeline.programs.jobs import Job, SolverSpec
    from pipeline.run import workerserver
    from pipeline.run.executors import LocalPoolExecutor
    spec = SolverSpec(name="cat", kind="external", problem="arc087e", argv=("/bin/cat",),
                      timeout_s=10, sandbox=os.geteuid() == 0)
    # Programs run in this process first: its scratch folder, sandbox templates, PID
    # namespace descriptor, pidfd and pids cgroup exist before the server is forked.
    here = run_external(Job(0, spec, "c", "here\\n"))
    pool = LocalPoolExecutor(2)
    outcomes = [outcome for _, outcome in pool.run(
        [Job(i, spec, f"c{i}", f"{i}\\n") for i in range(6)])]
    server = workerserver._client.pid
    print(json.dumps({"here": here.answer, "answers": sorted(o.answer for o in outcomes),
                      "errors": [o.error for o in outcomes if o.verdict is not None],
                      "forked": open(f"/proc/{server}/cmdline").read()
                      == open("/proc/self/cmdline").read()}))
    pool.close()
""")


def test_workers_forked_after_the_command_ran_programs_run_theirs_as_their_own():
    """A server forked once the command has run programs itself gives workers none of the
    command's own: not its scratch folder, sandbox templates, PID namespace or pids cgroup
    (a worker that used the command's PID namespace descriptor, a number the server had
    closed, could not start a program)."""
    done = subprocess.run([sys.executable, "-c", AFTER_PROGRAMS], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["forked"] is True
    assert seen["here"] == "here\n"
    assert seen["errors"] == [] and seen["answers"] == [f"{i}\n" for i in range(6)]
