"""What the pipeline prints, where it cannot print, and the names it cannot print as they are:
real `pipeline` processes (the installed console script) with standard output closed (`>&-`) or
on a full device (`>/dev/full`), real programs and judge files whose text holds terminal escape
sequences, and real folders and files named with a byte that is not UTF-8.

- A command whose standard output is lost still does its work and stores it, then says so in
  one line (`pipeline: write error: Bad file descriptor`) and exits 1; never a traceback, and
  never "the tables keep their old content" when they were written. A reader that closed the
  pipe gets no line and status 141; a full disk says the file being written kept its content.
- Escape sequences of a program's stderr or of a judge file are printed escaped (`\\x1b`).
- A data folder, or a package's test file, named with a byte that is not UTF-8 works: tables
  hold (and messages show) the name with that byte as its escape, `\\xff`.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
from diskkit import fill, small_disk

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
    """The runs table (read from bytes: Polars opens only UTF-8 paths)."""
    return pl.concat([pl.read_parquet(io.BytesIO(path.read_bytes()))
                      for path in (data / "tables" / "runs").glob("*.parquet")])


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


def test_24_28_a_query_streamed_to_a_lost_stdout_says_so_as_every_command_does(tmp_path):
    """Polars streams a csv or json answer itself: given the stream's descriptor it wrote past
    the stream (to the closed descriptor's stand-in, silently; to a full device, in its own
    words)."""
    data = tmp_path / "data"
    data.mkdir()  # (a missing one is refused)
    for stdout, reason in ((">&-", "Bad file descriptor"), (">/dev/full", "No space left")):
        for fmt in ("csv", "json"):
            done = pipeline(data, "query", "SELECT 42 AS n", "--format", fmt, stdout=stdout)
            assert_output_lost(done, reason)


def test_24_a_command_that_prints_nothing_with_stdout_closed_loses_nothing_and_exits_0(
        tmp_path):
    """As coreutils: output is lost only when there was some (`query --out FILE` prints
    nothing); the file is written whole."""
    data, out = tmp_path / "data", tmp_path / "answer.csv"
    data.mkdir()
    done = pipeline(data, "query", "SELECT 41 + 1 AS n", "--format", "csv", "--out", str(out),
                    stdout=">&-")
    assert (done.returncode, out.read_text()) == (0, "n\n42\n"), done.stderr
    assert "write error" not in done.stderr and "Traceback" not in done.stderr


def test_24_a_reader_that_closed_the_pipe_gets_no_message_and_the_status_of_sigpipe(tmp_path):
    """`pipeline query | head`: the reader left on purpose, which is no error to report; the
    status is the 141 a tool killed by SIGPIPE ends with."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before anything is written
    try:
        done = subprocess.run([PIPELINE, "--data-dir", str(tmp_path), "problems"],
                              stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=600)
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (141, "")


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


def test_25_a_data_folder_whose_path_is_not_utf8_works_from_ingest_to_report(tmp_path):
    data = tmp_path / os.fsdecode(b"data-\xff")
    raw = small_corpus(tmp_path)
    ingested = pipeline(data, "ingest", str(raw))
    assert ingested.returncode == 0, ingested.stderr
    done = pipeline(data, "run", "--problem", "bipartitebattle", "--solver", "fast")
    assert done.returncode == 0, done.stderr
    (run,) = runs(data).iter_rows(named=True)
    assert run["status"] == "finished" and run["cases"] == 6
    assert f"--data-dir {tmp_path}/data-\\xff run" in run["command"]  # the byte, escaped
    reported = pipeline(data, "report")
    assert reported.returncode == 0, reported.stderr
    assert f"report: {tmp_path}/data-\\xff/reports/report-" in reported.stdout
    assert "data-\\xff" in next((data / "reports").glob("*.html")).read_text()
    counted = pipeline(data, "query", "SELECT count(*) AS n FROM results", "--format", "csv")
    assert counted.stdout == "n\n6\n", counted.stderr
    for each in (ingested, done, reported, counted):
        assert "Traceback" not in each.stderr and "internal error" not in each.stderr


def test_26_a_package_test_file_named_with_a_byte_not_utf8_is_stored_under_its_escaped_name(
        tmp_path):
    data, raw = tmp_path / "data", tmp_path / "raw"
    package = tiny_kattis(raw / "odd")
    (package / "data" / "secret" / os.fsdecode(b"\xff.in")).write_text("4 5\n")
    (package / "data" / "secret" / os.fsdecode(b"\xff.ans")).write_text("9\n")
    ingested = pipeline(data, "ingest", str(raw))
    assert ingested.returncode == 0, ingested.stdout + ingested.stderr
    sources = pl.read_parquet(data / "tables" / "cases" / "odd.parquet")["source"].to_list()
    assert "odd/data/secret/\\xff.in" in sources and len(sources) == 4
    done = pipeline(data, "run", "--problem", "odd")
    assert done.returncode == 0, done.stdout + done.stderr
    results = pl.read_parquet(data / "tables" / "results" / "*.parquet")
    assert results.height == 4 and set(results["verdict"]) == {"AC"}


def test_26_escaped_names_that_collide_with_other_files_are_left_out_and_the_rest_ingests(
        tmp_path):
    """`\\xff.in` typed out is a name of its own: beside it, the file whose name is the byte
    0xff (escaped: the same text) and its answer are left out, the others stored."""
    data, raw = tmp_path / "data", tmp_path / "raw"
    package = tiny_kattis(raw / "odd", {"data/secret/\\xff.in": "6 7\n",
                                        "data/secret/\\xff.ans": "13\n"})
    (package / "data" / "secret" / os.fsdecode(b"\xff.in")).write_text("4 5\n")
    (package / "data" / "secret" / os.fsdecode(b"\xff.ans")).write_text("9\n")
    ingested = pipeline(data, "ingest", str(raw))
    assert "Traceback" not in ingested.stderr and "internal error" not in ingested.stderr
    stored = pl.read_parquet(data / "tables" / "cases" / "odd.parquet")
    assert sorted(stored["input"].to_list()) == ["1 2\n", "10 20\n", "2 3\n", "6 7\n"]
    rejects = pl.read_parquet(data / "tables" / "rejects" / "*.parquet")
    assert set(zip(rejects["source"], rejects["rule"])) == {
        ("odd/data/secret/\\xff.in", "file-name"), ("odd/data/secret/\\xff.ans", "file-name")}


def test_28_a_full_disk_midway_through_an_ingest_says_what_was_kept_not_that_nothing_changed(
        tmp_path):
    """Of two problems ingested, the first is stored before the disk fills under the second:
    the message must not say the tables keep their old content (one of them changed), only
    that the file being written does. (Inputs are put aside before any table is written, so the
    second problem's 250 inputs fit in the room left beside them, its table no longer.)"""
    with small_disk(tmp_path / "disk") as disk:
        data, raw = disk / "data", tmp_path / "raw"
        (raw / "arc087e").mkdir(parents=True)
        (raw / "arc087e" / "one.in").write_text("2 2\n00\n01\n")
        (raw / "bipartitebattle").mkdir()
        for i in range(250):
            (raw / "bipartitebattle" / f"{i:04d}.in").write_text(f"1\n{i + 1} 2\n")
        data.mkdir()
        ballast = fill(disk)
        os.truncate(ballast, os.path.getsize(ballast) - (64 << 10))  # 64 KB of room left
        done = pipeline(data, "ingest", str(raw))
        assert done.returncode == 1, done.stdout + done.stderr
        assert "Traceback" not in done.stderr and "internal error" not in done.stderr
        (line,) = done.stderr.strip().splitlines()
        assert line.startswith("error: No space left on device"), line
        assert "the file being written keeps its old content" in line
        assert "the tables keep their old content" not in line
        stored = pl.read_parquet(data / "tables" / "cases" / "arc087e.parquet")
        assert stored["source"].to_list() == ["arc087e/one.in"]  # the first problem's, kept
        assert not (data / "tables" / "cases" / "bipartitebattle.parquet").exists()
        assert not list((data / "tables").rglob("*.tmp"))


def test_26_a_package_folder_named_with_a_byte_not_utf8_given_as_the_root(tmp_path):
    """Its name would name the problem: refused naming it and the rule, unless --problem
    names the problem; then it ingests, its sources under the escaped name."""
    data = tmp_path / "data"
    package = tiny_kattis(tmp_path / "raw" / os.fsdecode(b"p\xff"))
    refused = pipeline(data, "ingest", str(package))
    assert refused.returncode == 1 and "internal error" not in refused.stderr, refused.stderr
    assert "reject p\\xff: the package's name is not valid UTF-8" in refused.stdout
    assert "[encoding]" in refused.stdout
    named = pipeline(data, "ingest", str(package), "--problem", "okname")
    assert named.returncode == 0, named.stdout + named.stderr
    sources = pl.read_parquet(data / "tables" / "cases" / "okname.parquet")["source"]
    assert sorted(sources) == ["p\\xff/data/sample/1.in", "p\\xff/data/secret/01.in",
                               "p\\xff/data/secret/02.in"]
