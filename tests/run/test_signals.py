"""SIGTERM and SIGHUP stop a run the way Ctrl-C does: the run is marked `interrupted`, every
worker and program is gone, scratch folders are removed, the exit status is 128 + the signal;
and a run left `running` by a process killed with -9 is marked `interrupted` by the next
command that looks."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest
from runkit import REPO, alive, corpus, descendants_of, pipeline_argv, run_cli, wait_until

from pipeline.tables.results import read_runs


def _start_run(data: Path, *solvers: str) -> subprocess.Popen:
    corpus(data, {f"a/{i:04d}.in": (f"{i} 1\n", f"{i + 1}\n") for i in range(2000)})
    args = [arg for name in solvers for arg in ("--solver", name)]
    return subprocess.Popen(pipeline_argv(data, "run", "--problem", "toy", *args, "--jobs",
                                          "2"),
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.parametrize("signum, code", [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_a_signal_mid_run_interrupts_it_like_ctrl_c(tmp_path, signum, code):
    data = tmp_path / "data"
    process = _start_run(data, "nap")
    try:
        assert wait_until(lambda: list((data / "tables" / "results").glob("*.parquet")),
                          timeout=30), "no results were written"
        family = descendants_of(process.pid)
        assert family, "the run has no workers"
        process.send_signal(signum)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == code, err
    assert f"interrupted ({signal.Signals(signum).name})" in err and "Traceback" not in err
    assert wait_until(lambda: not any(alive(pid) for pid in family), timeout=10)
    [row] = read_runs(data).iter_rows(named=True)
    assert row["status"] == "interrupted"
    assert "interrupted" in out


def test_a_run_killed_with_minus_9_is_marked_interrupted_by_the_next_command(tmp_path):
    data = tmp_path / "data"
    process = _start_run(data, "nap")
    try:
        assert wait_until(lambda: list((data / "tables" / "results").glob("*.parquet")),
                          timeout=30)
        family = descendants_of(process.pid)
        process.kill()
        process.wait()
    finally:
        if process.poll() is None:
            process.kill()
    assert wait_until(lambda: not any(alive(pid) for pid in family), timeout=10)
    assert read_runs(data)["status"].to_list() == ["running"]
    done = run_cli(data, "slow", "--problem", "toy")
    assert done.returncode == 0, done.stderr
    assert "marked interrupted" in done.stderr
    assert read_runs(data)["status"].to_list() == ["interrupted"]
