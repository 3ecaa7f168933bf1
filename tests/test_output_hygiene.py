"""What the pipeline prints, and where it cannot print: real `pipeline` processes (the installed
console script) with standard output closed (`>&-`) or on a full device (`>/dev/full`), real
programs and judge files whose text holds terminal escape sequences.

- A command whose standard output is lost still does its work and stores it, then says so in
  one line (`pipeline: write error: Bad file descriptor`) and exits 1; never a traceback, and
  never "the tables keep their old content" when they were written.
- Escape sequences of a program's stderr or of a judge file are printed escaped (`\\x1b`).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent / "packages"))
from packagekit import tiny_kattis  # noqa: E402

PIPELINE = str(Path(sys.executable).with_name("pipeline"))
TITLE = "\x1b]0;PWNED-TITLE\x07"  # sets the terminal's title when printed raw


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


def test_27_escape_sequences_of_a_programs_stderr_are_printed_escaped(tmp_path):
    data = tmp_path / "data"
    assert pipeline(data, "ingest", str(small_corpus(tmp_path))).returncode == 0
    program = tmp_path / "titler.sh"
    program.write_text("#!/bin/sh\nprintf '\\033]0;PWNED-TITLE\\007oops\\n' >&2\nexit 3\n")
    program.chmod(0o755)
    done = pipeline(data, "run", "--problem", "bipartitebattle", "--external",
                    f"titler={program}", "--solver", "titler")
    shown = "\\x1b]0;PWNED-TITLE\\x07oops"
    assert shown in done.stdout + done.stderr, done.stdout + done.stderr
    assert "\x1b" not in done.stdout + done.stderr and "\x07" not in done.stdout + done.stderr
    stored = pl.read_parquet(data / "tables" / "results" / "*.parquet")["error"]
    assert all(TITLE + "oops" in error for error in stored)  # stored as the program wrote it


def test_27_escape_sequences_of_a_judge_file_are_printed_escaped(tmp_path):
    data = tmp_path / "data"
    tiny_kattis(tmp_path / "raw" / "esc", {"data/secret/02.ans": TITLE + "\n"})
    assert pipeline(data, "ingest", str(tmp_path / "raw")).returncode == 0
    assert pipeline(data, "run", "--problem", "esc").returncode == 1  # 02 gets WA
    done = pipeline(data, "mismatches")
    assert "expected (file): \\x1b]0;PWNED-TITLE\\x07" in done.stdout, done.stdout
    assert "\x1b" not in done.stdout + done.stderr and "\x07" not in done.stdout + done.stderr
