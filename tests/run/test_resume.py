"""A run killed with -9 loses at most the cases in flight; `--resume RUN_ID` finishes it with no
case missing or duplicated. Both halves are real `python -m pipeline run` processes."""

from __future__ import annotations

import signal
import subprocess
from collections import Counter

import polars as pl

from runkit import REPO, alive, children_of, corpus, pipeline_argv, results, run_cli, wait_until

from pipeline.tables.results import read_runs

CASES, REPEAT = 400, 5


def test_a_run_killed_with_minus_9_is_finished_by_resume(tmp_path):
    data = tmp_path / "data"
    corpus(data, {f"a/{i:04d}.in": (f"{i} {i % 10}\n", f"{i + i % 10}\n") for i in range(CASES)})
    process = subprocess.Popen(
        pipeline_argv(data, "run", "--problem", "toy", "--solver", "nap", "--jobs", "2",
                      "--repeat", str(REPEAT)),
        cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert wait_until(lambda: len(list((data / "tables" / "results").glob("*.parquet"))) >= 2,
                          timeout=30), "no results chunk was written"
        workers = children_of(process.pid)
        assert process.poll() is None, "the run finished before it could be killed"
        process.send_signal(signal.SIGKILL)
        process.wait()
    finally:
        if process.poll() is None:
            process.kill()
    assert workers and wait_until(lambda: not any(alive(pid) for pid in workers), timeout=10)
    [run_row] = read_runs(data).iter_rows(named=True)
    assert run_row["status"] == "running"  # nobody was left to say otherwise
    before = results(data, run_row["run_id"])
    assert 0 < before.height < CASES * REPEAT  # every stored chunk reads back whole

    done = run_cli(data, "run", "--problem", "toy", "--resume", run_row["run_id"], "--jobs", "2")
    assert done.returncode == 0, done.stderr
    assert f"run {run_row['run_id']}: finished" in done.stdout
    assert f"{CASES * REPEAT - before.height} results" in done.stdout
    after = results(data, run_row["run_id"])
    assert after.height == CASES * REPEAT
    keys = Counter(zip(after["case_id"], after["solver"], after["repeat"]))
    assert len(keys) == CASES * REPEAT and set(keys.values()) == {1}
    assert set(after["verdict"]) == {"AC"}
    kept = before.join(after, on=["case_id", "solver", "repeat"], how="anti")
    assert kept.is_empty()  # what was stored before the kill is still there
    assert read_runs(data)["status"].to_list() == ["finished"]
    assert pl.read_parquet(str(data / "tables" / "results" / "*.parquet")).height == after.height
