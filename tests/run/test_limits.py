"""The limits an external program runs under, and the figures measured of it, are a judge's:
memory (the problem's limit by default), a stack as large as the memory, CPU time against the
time limit with a wall-clock cap, and the program's own peak memory.

Programs are real: C++ compiled with g++ (`programs/*.cpp`) and Python scripts, run by real
pool workers and by `pipeline run` in a real process.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import polars as pl
from runkit import command, corpus, external, py, results, run_cli, run_one, stage

from pipeline.config import DEFAULT_MEMORY_MB
from pipeline.problems import get_problem
from pipeline.run import executors
from pipeline.run.executors import LocalPoolExecutor
from pipeline.tables.results import read_runs
from pipeline.verdicts import Verdict

FIXTURE_PROBLEMS = Path(__file__).resolve().parents[1] / "fixtures" / "problems"

MB = 1024


# -- peak memory ---------------------------------------------------------------------------------

def test_peak_memory_is_the_programs_own_within_ten_percent(pool, cpp):
    for megabytes in (100, 300):
        outcome = run_one(pool, external((cpp["touch_memory"], str(megabytes))), "1 2\n")
        assert (outcome.verdict, outcome.answer) == (None, "3\n"), outcome
        assert 0.9 * megabytes * MB <= outcome.peak_rss_kb <= 1.1 * megabytes * MB


def test_a_big_worker_does_not_show_in_its_programs_peak_memory(cpp):
    """The worker grows to 200 MB (as a heavy import would); the programs it starts still
    report their own peaks (a few MB; 100 MB), not the worker's size."""
    with LocalPoolExecutor(1) as executor:
        assert run_one(executor, stage("ballast")).verdict is None
        small = run_one(executor, external((cpp["sum"],)), "1 2\n")
        hundred = run_one(executor, external((cpp["touch_memory"], "100")), "1 2\n")
    assert (small.verdict, small.answer, hundred.verdict) == (None, "3\n", None)
    assert small.peak_rss_kb < 20 * MB
    assert 90 * MB <= hundred.peak_rss_kb <= 110 * MB


# -- memory limit --------------------------------------------------------------------------------

def test_a_problems_memory_limit_is_read_from_its_problem_toml(tmp_path, monkeypatch):
    shutil.copytree(FIXTURE_PROBLEMS / "toy", tmp_path / "small")
    toml = tmp_path / "small" / "problem.toml"
    toml.write_text(toml.read_text().replace("time_s = 1.0", "time_s = 1.0\nmemory_mb = 64"))
    monkeypatch.setenv("PIPELINE_PROBLEMS_DIR", f"{FIXTURE_PROBLEMS}:{tmp_path}")
    assert get_problem("small").memory_mb == 64
    assert get_problem("toy").memory_mb == DEFAULT_MEMORY_MB == 512  # none given


def test_without_a_memory_option_programs_get_the_problems_limit(tmp_path, cpp):
    """4 GB of allocation is a memory verdict under the default 512 MB, not a kill from
    outside; with `--memory 0` there is no limit and the same program answers."""
    data = tmp_path / "data"
    corpus(data, {"a/01.in": ("1 2\n", "3\n")})
    # touching 448 MB is kernel time, not this test's
    done = run_cli(data, "run", "--problem", "toy", "--external", f"big={cpp['allocate_4gb']}",
                   "--jobs", "1", "--timeout", "20")
    assert done.returncode == 0, done.stderr
    row = results(data, read_runs(data)["run_id"][0]).row(0, named=True)
    assert row["verdict"] == "MLE", row
    assert row["error"].startswith("memory limit 512 MB: ") and "bad_alloc" in row["error"]
    assert row["peak_rss_kb"] <= 512 * MB

    done = run_cli(data, "run", "--problem", "toy", "--external",
                   f"mid={cpp['touch_memory']} 700", "--memory", "0", "--jobs", "1",
                   "--timeout", "20")  # touching 700 MB is kernel time; this tests memory
    assert done.returncode == 0, done.stderr
    runs = read_runs(data).sort("started_at")
    row = results(data, runs["run_id"][-1]).row(0, named=True)
    assert row["verdict"] == "AC" and row["peak_rss_kb"] >= 700 * MB


# -- stack ---------------------------------------------------------------------------------------

def test_deep_recursion_runs_with_the_default_stack_as_large_as_the_memory_limit(pool, cpp):
    outcome = run_one(pool, external((cpp["recurse"], "1000000"), memory_mb=512), "1 2\n")
    assert (outcome.verdict, outcome.answer) == (None, "3\n"), outcome
    assert outcome.peak_rss_kb > 40 * MB  # a million frames did live on the stack


def test_a_stack_overflow_says_so_and_names_the_stack_limit(pool, cpp):
    outcome = run_one(pool, external((cpp["recurse"], "1000000"), memory_mb=512, stack_mb=8),
                      "1 2\n")
    assert outcome.verdict == Verdict.RE
    assert outcome.error.startswith("signal 11 (SIGSEGV; stack limit 8 MB, memory limit 512 MB)")


def test_the_stack_option_of_pipeline_run_sets_the_stack_limit(tmp_path, cpp):
    data = tmp_path / "data"
    corpus(data, {"a/01.in": ("1 2\n", "3\n")})
    program = f"deep={cpp['recurse']} 1000000"
    for extra, _verdict in ((["--stack", "8"], "RE"), ([], "AC")):
        done = run_cli(data, "run", "--problem", "toy", "--external", program, "--jobs", "1",
                       *extra)
        assert done.returncode == 0, done.stderr
    runs = read_runs(data).sort("started_at")["run_id"]
    first, second = (results(data, run_id).row(0, named=True) for run_id in runs)
    assert first["verdict"] == "RE" and "stack limit 8 MB" in first["error"]
    assert second["verdict"] == "AC"


# -- time ----------------------------------------------------------------------------------------

def test_the_pools_watchdog_leaves_an_external_program_to_its_wall_clock_cap(monkeypatch):
    """The parent kills a worker only past the program's wall-clock cap (1 s + 0.5 s), so
    the verdict is the worker's, with its reason, even with a short grace."""
    monkeypatch.setattr(executors, "EXTERNAL_GRACE_S", 0.1)
    started = time.monotonic()
    with LocalPoolExecutor(1) as executor:
        outcome = run_one(executor, external(py("sleeper"), timeout_s=1.0))
    assert outcome.verdict == Verdict.TLE
    assert outcome.error.startswith("wall clock 1.5 s cap reached (limit + 0.5 s, ")
    assert 1500 <= outcome.wall_ms < 4500
    assert time.monotonic() - started < 10


def test_time_verdicts_say_which_limit_fired(tmp_path, cpp):
    data = tmp_path / "data"
    corpus(data, {"a/01.in": ("1 2\n", "3\n")})
    done = run_cli(data, "run", "--problem", "toy", "--external", f"spin={cpp['spin']}",
                   "--external", f"sleep={command(py('sleeper'))}", "--timeout", "0.2",
                   "--jobs", "2")
    assert done.returncode == 0, done.stderr
    frame = results(data, read_runs(data)["run_id"][0])
    errors = dict(zip(frame["solver"], frame["error"]))
    assert set(frame["verdict"]) == {"TLE"}
    assert errors["spin"].startswith("CPU time over the 0.2 s limit (")
    assert errors["sleep"].startswith("wall clock 0.7 s cap reached (limit + 0.5 s, ")
    wall = dict(zip(frame["solver"], frame["wall_ms"]))
    assert wall["sleep"] >= 700  # its cap on its own clock: at least that of the wall clock


def test_a_run_names_its_limits_in_the_results_it_writes(tmp_path, cpp):
    """A crash under the default limits names them, so a reader of the results table knows
    which stack a segfaulting program had."""
    data = tmp_path / "data"
    corpus(data, {"a/01.in": ("1 2\n", "3\n")})
    done = run_cli(data, "run", "--problem", "toy", "--external", f"segv={command(py('segfault'))}",
                   "--jobs", "1")
    assert done.returncode == 0, done.stderr
    frame = results(data, read_runs(data)["run_id"][0])
    error = frame.filter(pl.col("solver") == "segv")["error"][0]
    assert error.startswith("signal 11 (SIGSEGV; stack limit 512 MB, memory limit 512 MB)")
