"""A run killed with -9 loses at most the cases in flight; `--resume RUN_ID` finishes it with no
case missing or duplicated. Both halves are real `python -m pipeline run` processes."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import polars as pl
from runkit import REPO, alive, corpus, descendants_of, pipeline_argv, results, run_cli, wait_until

from pipeline.tables.results import read_runs

CASES, REPEAT = 400, 5


def test_an_interrupted_run_prints_the_command_that_resumes_it(tmp_path):
    """Ctrl-C: the summary is followed by the exact command line that finishes the run; typed
    as printed (the installed `pipeline` on PATH), it does, and its summary counts the whole
    run, not only its own part."""
    data = tmp_path / "data"
    corpus(data, {f"a/{i:04d}.in": (f"{i} 1\n", f"{i + 1}\n") for i in range(CASES)})
    process = subprocess.Popen(
        pipeline_argv(data, "run", "--problem", "toy", "--solver", "nap", "--jobs", "2",
                      "--repeat", "10"),
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert wait_until(lambda: list((data / "tables" / "results").glob("*.parquet")),
                          timeout=30), "no results chunk was written"
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, err
    [run_row] = read_runs(data).iter_rows(named=True)
    run_id = run_row["run_id"]
    assert run_row["status"] == "interrupted"
    [line] = [line for line in out.splitlines() if line.startswith("to finish it: ")]
    command = line.removeprefix("to finish it: ")
    assert command == f"pipeline --data-dir {data} run --problem toy --resume {run_id}"
    before = results(data, run_id).height

    bin_dir = Path(sys.executable).parent  # where the installed `pipeline` command is
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(shlex.split(command), cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    total = CASES * 10
    assert done.stdout.startswith(f"run {run_id}: finished, {CASES} cases, {total} results "
                                  f"({total - before} now, {before} stored before the resume)")
    assert f"nap          AC={total};" in done.stdout
    assert "to finish it" not in done.stdout


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
        workers = descendants_of(process.pid)
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
    assert (f"{CASES * REPEAT} results ({CASES * REPEAT - before.height} now, {before.height} "
            "stored before the resume)") in done.stdout
    assert f"nap          AC={CASES * REPEAT};" in done.stdout  # the whole run's counts
    after = results(data, run_row["run_id"])
    assert after.height == CASES * REPEAT
    keys = Counter(zip(after["case_id"], after["solver"], after["repeat"]))
    assert len(keys) == CASES * REPEAT and set(keys.values()) == {1}
    assert set(after["verdict"]) == {"AC"}
    kept = before.join(after, on=["case_id", "solver", "repeat"], how="anti")
    assert kept.is_empty()  # what was stored before the kill is still there
    assert read_runs(data)["status"].to_list() == ["finished"]
    assert pl.read_parquet(str(data / "tables" / "results" / "*.parquet")).height == after.height


def test_cases_whose_workers_died_are_judge_errors_that_resume_judges_again(tmp_path,
                                                                            monkeypatch):
    """`dies` kills every worker it runs on: each of its cases is run again on a fresh worker,
    then is a judge error (JE, never RE); the run exits 1 saying so, with the command that
    judges them again. That resume (the stage now kills its worker the first time only,
    `TOY_DIES_ONCE`) judges exactly those cases again: each gets the verdict of its answer,
    stored once, and the results that were verdicts stay as they were."""
    data = tmp_path / "data"
    corpus(data, {f"a/{i}.in": (f"{i} 1\n", f"{i + 1}\n") for i in range(3)})
    done = run_cli(data, "run", "--problem", "toy", "--solver", "dies", "--solver", "fast",
                   "--jobs", "2", timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    [run_id] = read_runs(data)["run_id"].to_list()
    first = results(data, run_id)
    by_solver = {solver: sorted(rows["verdict"]) for (solver,), rows
                 in first.group_by("solver")}
    assert by_solver == {"dies": ["JE"] * 3, "fast": ["AC"] * 3}
    assert all(error.startswith("judge error: its worker died twice (")
               for error in first.filter(pl.col("solver") == "dies")["error"])
    assert "dies         JE=3" in done.stdout
    assert "3 result(s) are judge errors (JE)" in done.stderr
    assert f"to judge them again: pipeline --data-dir {data} run --problem toy --resume " \
           f"{run_id}" in done.stderr

    monkeypatch.setenv("TOY_DIES_ONCE", str(tmp_path / "died"))  # the workers inherit it
    again = run_cli(data, "run", "--problem", "toy", "--resume", run_id, timeout=120)
    assert again.returncode == 0, again.stdout + again.stderr
    assert (tmp_path / "died").exists()  # a worker did die once in the resume
    assert "note: 3 judge error(s) stored before are judged again" in again.stdout
    after = results(data, run_id)
    assert after.height == 6
    assert after.select("case_id", "solver", "repeat").is_unique().all()
    assert sorted(after.filter(pl.col("solver") == "dies")["verdict"]) == ["AC"] * 3
    kept = ["case_id", "verdict", "finished_at"]
    assert after.filter(pl.col("solver") == "fast").select(kept).sort("case_id").equals(
        first.filter(pl.col("solver") == "fast").select(kept).sort("case_id"))
