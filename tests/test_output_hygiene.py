"""What the pipeline prints, and where it cannot print: real `pipeline` processes (the installed
console script) with standard output closed (`>&-`) or on a full device (`>/dev/full`).

- A command whose standard output is lost still does its work and stores it, then says so in
  one line (`pipeline: write error: Bad file descriptor`) and exits 1; never a traceback, and
  never "the tables keep their old content" when they were written.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import polars as pl

PIPELINE = str(Path(sys.executable).with_name("pipeline"))


def pipeline(data: Path, *args: str, stdout: str = "") -> subprocess.CompletedProcess:
    """A real `pipeline --data-dir DATA ARGS` run by bash, its standard output redirected as
    `stdout` says (`>&-` closes it, `>/dev/full`; "" captures it)."""
    return subprocess.run(["bash", "-c", f'"$@" {stdout}', "bash", PIPELINE, "--data-dir",
                           str(data), *args], capture_output=True, text=True, timeout=600,
                          cwd=data.parent)


def small_corpus(tmp_path: Path) -> Path:
    raw = tmp_path / "raw" / "bipartitebattle"
    raw.mkdir(parents=True)
    for i in range(6):
        (raw / f"{i:03d}.in").write_text(f"1\n{i + 1} 1\n")
    return raw.parent


def runs(data: Path) -> pl.DataFrame:
    return pl.read_parquet(data / "tables" / "runs" / "*.parquet")


def assert_output_lost(done: subprocess.CompletedProcess, reason: str) -> None:
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
    assert done.returncode == 1, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"pipeline: write error: {reason}"), done.stderr
    assert "what it stores is stored" in last and "old content" not in done.stderr


def test_24_each_command_with_stdout_closed_does_its_work_then_says_the_output_was_lost(
        tmp_path):
    data = tmp_path / "data"
    raw = small_corpus(tmp_path)
    assert_output_lost(pipeline(data, "problems", stdout=">&-"), "Bad file descriptor")
    assert_output_lost(pipeline(data, "ingest", str(raw), stdout=">&-"), "Bad file descriptor")
    assert pl.read_parquet(data / "tables" / "cases" / "bipartitebattle.parquet").height == 6
    done = pipeline(data, "run", "--problem", "bipartitebattle", "--solver", "fast",
                    stdout=">&-")
    assert_output_lost(done, "Bad file descriptor")
    (run,) = runs(data).iter_rows(named=True)
    assert run["status"] == "finished"
    results = pl.read_parquet(data / "tables" / "results" / f"{run['run_id']}-*.parquet")
    assert results.height == 6 and set(results["verdict"]) == {"AC"}
    assert_output_lost(pipeline(data, "report", stdout=">&-"), "Bad file descriptor")
    (report,) = (data / "reports").glob("*.html")
    assert run["run_id"] in report.read_text()


def test_28_a_run_printing_to_a_full_device_is_stored_and_says_only_printing_failed(tmp_path):
    data = tmp_path / "data"
    assert pipeline(data, "ingest", str(small_corpus(tmp_path))).returncode == 0
    done = pipeline(data, "run", "--problem", "bipartitebattle", "--solver", "fast",
                    stdout=">/dev/full")
    assert_output_lost(done, "No space left on device")
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    (run,) = runs(data).iter_rows(named=True)
    assert run["status"] == "finished" and run["cases"] == 6
