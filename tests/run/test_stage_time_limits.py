"""A built-in stage is limited by the CPU time its case takes, as an external program is, with a
wall-clock cap of the limit + 0.5 s for one that sleeps: a machine busy with other work slows a
case down without failing it.

The load is real: two `python -c 'while True: pass'` processes pinned, with the run, to one
core, so the stage gets at most a third of that core and its wall time is at least about three
times its CPU time (more when the machine is busy otherwise). The stage burns 25 ms of CPU
under a 50 ms limit: over the limit on the wall clock from a slowdown of 2, under the wall cap
(50 ms + 0.5 s) up to a slowdown of 22, so the test holds on a machine busy with much else.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator

import polars as pl
from runkit import corpus, results, run_cli, run_jobs, stage

from pipeline.programs.jobs import Job
from pipeline.run.executors import LocalPoolExecutor
from pipeline.tables.results import read_runs
from pipeline.verdicts import Verdict

SPIN = "while True: pass"


@contextlib.contextmanager
def one_core_shared_with_two_spinners() -> Iterator[None]:
    """This process (and what it starts meanwhile) on one core, with two CPU-bound processes
    on the same core; the spinners are killed and the affinity restored afterwards."""
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(before)})
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(2)]
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def test_a_stage_slowed_past_its_limit_by_other_processes_is_not_tle_while_its_cpu_is_under(
        monkeypatch):
    monkeypatch.setenv("TOY_BUSY_MS", "25")  # the `busy` stage burns 25 ms of CPU a case
    with one_core_shared_with_two_spinners(), LocalPoolExecutor(1) as executor:
        outcome = run_jobs(executor, [Job(0, stage("busy", timeout_s=0.05), "case", "2 3\n")])[0]
    assert (outcome.verdict, outcome.answer) == (None, "5\n"), outcome.error
    assert outcome.wall_ms > 50  # over the limit on the wall clock: a wall limit would kill it
    assert 25 <= outcome.cpu_ms < 50


def test_a_stage_over_its_cpu_time_is_tle_before_the_wall_cap(monkeypatch):
    monkeypatch.setenv("TOY_BUSY_MS", "60000")
    with LocalPoolExecutor(1) as executor:
        outcome = run_jobs(executor, [Job(0, stage("busy", timeout_s=0.05), "case", "2 3\n")])[0]
    assert outcome.verdict == Verdict.TLE
    assert outcome.error.startswith("CPU time over the 0.05 s limit (0.")
    assert 50 <= outcome.cpu_ms < 1000
    assert outcome.wall_ms < 1100  # stopped by its CPU time, not the wall cap (0.05 + 0.5 s)


def test_a_stage_that_sleeps_past_the_wall_cap_is_tle_with_little_cpu_used():
    with LocalPoolExecutor(1) as executor:
        outcome = run_jobs(executor, [Job(0, stage("sleepy", timeout_s=0.2), "case", "2 3\n")])[0]
    assert outcome.verdict == Verdict.TLE
    assert outcome.error.startswith("wall clock 0.7 s cap reached (limit + 0.5 s, its waits "
                                    "for a core not counted; 0.0")
    assert 700 <= outcome.wall_ms < 3000 and outcome.cpu_ms < 100


def test_a_run_beside_two_cpu_bound_processes_judges_by_cpu_time_and_ranks_by_it(tmp_path,
                                                                                 monkeypatch):
    """Through the real CLI: `run` with a stage that needs 25 ms of CPU, limit 50 ms, on one
    core shared with two spinners, is AC (not TLE) though its wall time is over the limit, and
    a sleeper past the wall cap is TLE; the summary's `slowest` and `slow` rank by CPU time."""
    data = tmp_path / "data"
    corpus(data, {"a/1.in": ("2 3\n", "5\n")})
    monkeypatch.setenv("TOY_BUSY_MS", "25")
    with one_core_shared_with_two_spinners():
        done = run_cli(data, "run", "--problem", "toy", "--solver", "busy", "--solver",
                       "sleepy", "--timeout", "0.05", "--jobs", "1")
    assert done.returncode == 0, done.stderr
    [run_row] = read_runs(data).iter_rows(named=True)
    frame = results(data, run_row["run_id"]).sort("solver")
    busy, sleepy = frame.iter_rows(named=True)
    assert (busy["verdict"], busy["answer"]) == ("AC", "5\n"), busy["error"]
    assert busy["wall_ms"] > 50 and busy["cpu_ms"] < 50
    assert sleepy["verdict"] == "TLE" and sleepy["wall_ms"] >= 550
    assert sleepy["error"].startswith("wall clock 0.55 s cap reached")
    busy_line = next(line for line in done.stdout.splitlines() if line.strip().startswith("busy"))
    assert f"slowest {busy['cpu_ms']:.1f} ms CPU ({busy['wall_ms']:.0f} ms wall" in busy_line

    slow = run_cli(data, "slow", "--problem", "toy")
    assert slow.returncode == 0, slow.stderr
    rows = [line.split() for line in slow.stdout.splitlines() if line.startswith("toy ")]
    # the sleeper waited longest, but the busy stage used the most CPU: it comes first
    assert [row[1] for row in rows] == ["busy", "sleepy"]
    assert pl.Series([busy["cpu_ms"], sleepy["cpu_ms"]]).is_sorted(descending=True)
