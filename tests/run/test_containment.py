"""Nothing an external program starts outlives its case, its worker or the pipeline: not a
child that calls setsid, not one orphaned by a double fork, not after a SIGKILL of the
pipeline's process group or of its main process alone.

`pipeline run` runs as a real process in a session of its own (so its process group is its
own, as in a shell); the program is `programs/forker.py`, whose processes are found by the
token on their command line.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess

import pytest
from runkit import (
    REPO,
    alive,
    command,
    corpus,
    descendants_of,
    pipeline_argv,
    processes_with,
    py,
    run_cli,
    running_program,
    wait_until,
)

from pipeline.tables.results import read_run_results, read_runs


def _start_run(data, *args: str) -> subprocess.Popen:
    """`pipeline run` in its own session (a process group of its own, like a shell job)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    return subprocess.Popen(pipeline_argv(data, "run", "--problem", "toy", *args), cwd=REPO,
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


@pytest.fixture
def forking_run(tmp_path):
    """A run of forker.py (3 children: plain, setsid, double fork) sleeping in a case, started
    and seen running: (the pipeline's process, its workers' pids, the token)."""
    data, token = tmp_path / "data", f"forker-{secrets.token_hex(4)}"
    corpus(data, {"a/01.in": ("1 2\n", "3\n")})
    pipeline = _start_run(data, "--external", f"fork={command(py('forker', token, '3', 'sleep'))}",
                          "--timeout", "30", "--jobs", "2")
    try:
        assert wait_until(lambda: len(running_program(token, "forker")) == 4, timeout=30)
        workers = descendants_of(pipeline.pid)
        assert workers
        yield pipeline, workers, token
    finally:
        if pipeline.poll() is None:
            os.killpg(pipeline.pid, signal.SIGKILL)
        pipeline.wait()


def test_a_sigkill_of_the_pipelines_process_group_leaves_no_program_running(forking_run):
    pipeline, workers, token = forking_run
    os.killpg(pipeline.pid, signal.SIGKILL)
    pipeline.wait()
    assert wait_until(lambda: not processes_with(token), timeout=10), processes_with(token)
    # they die with it: through the worker server, once the kill reaches them (not at once
    # on a loaded machine)
    assert wait_until(lambda: not any(alive(pid) for pid in workers), timeout=10), \
        [pid for pid in workers if alive(pid)]


def test_a_sigkill_of_the_main_process_alone_takes_the_workers_and_programs_with_it(
        forking_run):
    pipeline, workers, token = forking_run
    pipeline.kill()
    pipeline.wait()
    assert wait_until(lambda: not any(alive(pid) for pid in workers), timeout=10)
    assert wait_until(lambda: not processes_with(token), timeout=10), processes_with(token)


def test_a_sigterm_of_the_pipeline_stops_the_run_and_every_program(forking_run, tmp_path):
    pipeline, workers, token = forking_run
    os.kill(pipeline.pid, signal.SIGTERM)
    pipeline.wait(timeout=30)
    assert wait_until(lambda: not processes_with(token), timeout=10), processes_with(token)
    assert wait_until(lambda: not any(alive(pid) for pid in workers), timeout=10)


def test_without_a_c_compiler_programs_still_run_and_their_children_are_killed(
        tmp_path, monkeypatch):
    """No launcher can be built (an empty cache and no compiler): the worker runs programs
    itself, kills what they leave behind, and the run's summary says what is weaker."""
    data, token = tmp_path / "data", f"forker-{secrets.token_hex(4)}"
    corpus(data, {"a/01.in": ("1 2\n", "3\n")})
    monkeypatch.setenv("PIPELINE_NATIVE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("CC", str(tmp_path / "no-compiler"))
    done = run_cli(data, "run", "--problem", "toy", "--jobs", "1",
                   "--external", f"fork={command(py('forker', token, '3', 'answer'))}")
    refused = run_cli(data, "run", "--problem", "toy", "--sandbox", "on",
                      "--external", f"sum={command(py('sum'))}")
    assert done.returncode == 0, done.stderr
    missing = f"$CC names '{tmp_path / 'no-compiler'}', which is not on PATH"
    assert ("note: programs run without the launcher (the launcher cannot be built: "
            + missing) in done.stdout
    assert "note: sandbox off: the launcher cannot be built: " + missing in done.stdout
    frame = read_run_results(data, read_runs(data)["run_id"][0])
    assert frame["verdict"].to_list() == ["AC"]
    assert wait_until(lambda: not processes_with(token), timeout=10)
    assert not list((tmp_path / "cache").glob("launcher*"))
    assert refused.returncode == 1
    assert refused.stderr.strip().splitlines() == [
        "error: --sandbox on: the sandbox cannot work here: the launcher cannot be built: "
        + missing]
    assert read_runs(data).height == 1  # the refused run wrote nothing
