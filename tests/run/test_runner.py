"""`run()`: every solver over a problem's stored cases, graded, into the results table.

Corpora are ingested with the real ingest; solvers are the toy problem's stages and real
programs; the executor is the real local pool.
"""

from __future__ import annotations

import os
import signal
import sys
from collections import Counter
from pathlib import Path

import polars as pl
import pytest
from runkit import (
    FAIL_FAST_CASES,
    PROGRAMS,
    check_fail_fast,
    command,
    corpus,
    graded,
    py,
    results,
    verdicts,
)

from pipeline.programs.program import Program
from pipeline.run.executors import LocalPoolExecutor
from pipeline.run.runner import RunRequest, format_summary, run
from pipeline.tables.results import read_runs, write_run

BIG = 10**12

MIXED = {  # file -> (input, expected output file or None)
    "mixed/01.in": ("1 2\n", "3\n"),            # expected from its file; a is odd
    "mixed/02.in": ("2 2\n", None),             # expected from brute
    "mixed/03.in": ("4 5000\n", None),          # beyond brute: expected from fast
    "mixed/04.in": (f"{BIG} 5000\n", None),      # beyond brute and fast: nothing to compare with
}


def externals(**programs: tuple[str, ...]) -> tuple[Program, ...]:
    return tuple(Program(name=name, run=command(argv))
                 for name, argv in programs.items())


@pytest.fixture
def data(tmp_path):
    return tmp_path / "data"


def test_every_stage_and_program_gets_its_verdict_against_the_right_expected_answer(data):
    corpus(data, MIXED)
    request = RunRequest("toy", solvers=("fast", "brute", "wrong", "crashy"), jobs=2,
                         externals=externals(sum=py("sum"), odd=py("wrong_on_odd")))
    summary = run(data, request)
    assert summary.status == "finished" and summary.results_written == 4 * 6
    frame = graded(data, summary.run_id)
    assert verdicts(frame) == {
        ("01.in", "fast"): "AC", ("02.in", "fast"): "AC", ("03.in", "fast"): "AC",
        ("04.in", "fast"): "SKIP",
        ("01.in", "brute"): "AC", ("02.in", "brute"): "AC", ("03.in", "brute"): "SKIP",
        ("04.in", "brute"): "SKIP",
        ("01.in", "wrong"): "WA", ("02.in", "wrong"): "AC", ("03.in", "wrong"): "AC",
        ("04.in", "wrong"): "NOEXP",
        ("01.in", "crashy"): "RE", ("02.in", "crashy"): "RE", ("03.in", "crashy"): "RE",
        ("04.in", "crashy"): "RE",
        ("01.in", "sum"): "AC", ("02.in", "sum"): "AC", ("03.in", "sum"): "AC",
        ("04.in", "sum"): "NOEXP",
        ("01.in", "odd"): "WA", ("02.in", "odd"): "AC", ("03.in", "odd"): "AC",
        ("04.in", "odd"): "NOEXP",
    }
    sources = dict(frame.filter(pl.col("solver") == "sum").select("name", "expected_source")
                   .iter_rows())
    assert sources == {"01.in": "file", "02.in": "brute", "03.in": "fast", "04.in": None}
    row = frame.filter((pl.col("name") == "01.in") & (pl.col("solver") == "odd")).row(0, named=True)
    assert (row["answer"], row["error"]) == ("4\n", "token 1: expected '3', got '4'")
    skipped = frame.filter((pl.col("name") == "03.in") & (pl.col("solver") == "brute"))
    assert skipped["error"].to_list() == ["b = 5000 is above 1000"]
    crashed = frame.filter(pl.col("solver") == "crashy")["error"].to_list()
    assert all(error.startswith("RuntimeError: crashy gives up on") for error in crashed)
    assert summary.verdicts["wrong"] == Counter({"AC": 2, "WA": 1, "NOEXP": 1})


def test_answers_found_by_a_reference_stage_are_stored_with_the_case(data):
    corpus(data, MIXED)
    run(data, RunRequest("toy", solvers=("fast",), jobs=1))
    stored = pl.read_parquet(data / "tables" / "cases" / "toy.parquet")
    by_input = {row["input"]: (row["expected"], row["expected_source"])
                for row in stored.iter_rows(named=True)}
    assert by_input == {"1 2\n": ("3\n", "file"), "2 2\n": ("4\n", "brute"),
                        "4 5000\n": ("5004\n", "fast"), f"{BIG} 5000\n": (None, None)}


def test_results_and_runs_tables_have_the_documented_columns(data):
    corpus(data, {"a/01.in": ("1 1\n", "2\n")})
    request = RunRequest("toy", solvers=("fast",), externals=externals(sum=py("sum")), jobs=2,
                         command="pipeline run --problem toy")
    summary = run(data, request)
    frame = pl.read_parquet(str(data / "tables" / "results" / "*.parquet"))
    for column in ("run_id", "problem", "case_id", "solver", "repeat", "verdict", "answer",
                   "wall_ms", "cpu_ms", "peak_rss_kb", "exit_code", "error", "expected_source"):
        assert column in frame.columns
    by_solver = {row["solver"]: row for row in frame.iter_rows(named=True)}
    assert by_solver["fast"]["peak_rss_kb"] is None and by_solver["fast"]["exit_code"] is None
    assert by_solver["sum"]["peak_rss_kb"] > 0 and by_solver["sum"]["exit_code"] == 0
    assert all(row["wall_ms"] > 0 and row["cpu_ms"] >= 0 for row in by_solver.values())
    [runs] = pl.read_parquet(str(data / "tables" / "runs" / "*.parquet")).iter_rows(named=True)
    assert {"run_id", "started_at", "finished_at", "status", "problem", "solvers", "git_rev",
            "host", "cpu_model", "jobs", "command"} <= set(runs)
    assert (runs["run_id"], runs["status"], runs["problem"]) == (summary.run_id, "finished", "toy")
    assert runs["solvers"] == ["fast", "sum"] and runs["jobs"] == 2
    assert runs["command"] == "pipeline run --problem toy"
    assert runs["started_at"] <= runs["finished_at"] and runs["host"]
    text = format_summary(summary)
    assert text.startswith(f"run {summary.run_id}: finished, 1 cases, 2 results")
    assert "fast" in text and "AC=1" in text and "slowest" in text


def test_fail_fast_stops_a_solver_at_its_first_failure_and_stores_the_rest_as_skip(data):
    corpus(data, FAIL_FAST_CASES)
    stopped = run(data, RunRequest("toy", solvers=("fast", "wrong"), jobs=2, fail_fast=True))
    check_fail_fast(data, stopped.run_id)
    # by default every case of every solver runs
    whole = results(data, run(data, RunRequest("toy", solvers=("fast", "wrong"))).run_id)
    assert "SKIP" not in whole["verdict"].to_list()
    assert whole.filter(pl.col("verdict") == "WA").height == len(FAIL_FAST_CASES) // 2


def test_repeats_time_every_case_several_times(data):
    corpus(data, {"a/01.in": ("1 1\n", "2\n"), "a/02.in": ("5 5\n", "10\n")})
    summary = run(data, RunRequest("toy", solvers=("fast",), repeat=3, jobs=1))
    frame = results(data, summary.run_id)
    assert sorted(Counter(zip(frame["case_id"], frame["repeat"])).values()) == [1] * 6
    assert sorted(set(frame["repeat"])) == [0, 1, 2]
    assert set(frame["verdict"]) == {"AC"}


def test_a_group_limits_the_run_to_its_cases(data):
    corpus(data, {"pack/data/sample/1.in": ("1 1\n", "2\n"),
                  "pack/data/secret/easy/2.in": ("2 1\n", "3\n"),
                  "pack/data/secret/hard/3.in": ("3 1\n", "4\n")})
    summary = run(data, RunRequest("toy", solvers=("fast",), group="secret", jobs=1))
    assert sorted(graded(data, summary.run_id)["name"]) == ["2.in", "3.in"]


def test_an_external_named_like_a_stage_is_refused_before_anything_is_written(data):
    corpus(data, {"a/01.in": ("1 1\n", "2\n")})
    with pytest.raises(ValueError, match="'fast' is already a stage of toy"):
        run(data, RunRequest("toy", solvers=("fast",), externals=externals(fast=py("sum"))))
    assert read_runs(data).is_empty()
    assert not list((data / "tables").glob("results/*.parquet"))


# -- stopping and resuming -----------------------------------------------------------------------

class CtrlCAfter:
    """The real pool, with a real Ctrl-C (SIGINT to this process) after `after` outcomes."""

    def __init__(self, after: int, jobs: int = 2) -> None:
        self.pool = LocalPoolExecutor(jobs)
        self.size = self.pool.size
        self.after = after
        self.seen = 0

    def run(self, jobs, skip=None, **options):
        for item in self.pool.run(jobs, skip, **options):
            yield item
            self.seen += 1
            if self.seen == self.after:
                os.kill(os.getpid(), signal.SIGINT)

    def close(self) -> None:
        self.pool.close()


def _no_duplicates(frame: pl.DataFrame) -> None:
    keys = Counter(zip(frame["case_id"], frame["solver"], frame["repeat"]))
    assert max(keys.values()) == 1


def test_ctrl_c_keeps_what_finished_and_resume_runs_only_the_rest(data):
    corpus(data, {f"a/{i:03d}.in": (f"{i} 1\n", f"{i + 1}\n") for i in range(150)})
    interrupter = CtrlCAfter(40)
    try:
        summary = run(data, RunRequest("toy", solvers=("fast", "brute")), executor=interrupter)
    finally:
        interrupter.close()
    assert summary.status == "interrupted" and summary.results_written == 40
    [row] = read_runs(data).iter_rows(named=True)
    assert row["status"] == "interrupted"
    assert results(data, summary.run_id).height == 40
    resumed = run(data, RunRequest("toy", resume=summary.run_id, jobs=2))
    assert (resumed.run_id, resumed.status, resumed.results_written) == (
        summary.run_id, "finished", 300 - 40)
    frame = results(data, summary.run_id)
    assert frame.height == 300 and set(frame["verdict"]) == {"AC"}
    _no_duplicates(frame)
    assert read_runs(data)["status"].to_list() == ["finished"]


def test_a_resumed_fail_fast_run_stays_fail_fast_from_the_failures_stored_before(data):
    corpus(data, FAIL_FAST_CASES)
    interrupter = CtrlCAfter(10)  # `wrong` has failed case 1 (a = 1) by then
    try:
        summary = run(data, RunRequest("toy", solvers=("fast", "wrong"), fail_fast=True),
                      executor=interrupter)
    finally:
        interrupter.close()
    assert summary.status == "interrupted"
    resumed = run(data, RunRequest("toy", resume=summary.run_id, jobs=2))
    assert resumed.status == "finished"
    frame = check_fail_fast(data, summary.run_id)
    _no_duplicates(frame)


def test_ctrl_c_while_expected_answers_are_computed_stops_cleanly(data):
    corpus(data, {f"a/{i:03d}.in": (f"{i} 1\n", None) for i in range(150)})
    interrupter = CtrlCAfter(10)
    try:
        summary = run(data, RunRequest("toy", solvers=("fast",)), executor=interrupter)
    finally:
        interrupter.close()
    assert (summary.status, summary.results_written) == ("interrupted", 0)
    assert read_runs(data)["status"].to_list() == ["interrupted"]
    resumed = run(data, RunRequest("toy", resume=summary.run_id, jobs=2))
    frame = results(data, summary.run_id)
    assert resumed.status == "finished" and frame.height == 150
    assert set(frame["verdict"]) == {"AC"} and set(frame["expected_source"]) == {"brute"}


def test_resuming_runs_the_programs_the_run_recorded_and_refuses_a_changed_one(data, tmp_path):
    corpus(data, {f"a/{i:03d}.in": (f"{i} 1\n", f"{i + 1}\n") for i in range(30)})
    program = tmp_path / "mine.py"
    program.write_text((PROGRAMS / "sum.py").read_text())
    request = RunRequest("toy", solvers=("fast",),
                         externals=externals(mine=(sys.executable, str(program))))
    interrupter = CtrlCAfter(5)
    try:
        summary = run(data, request, executor=interrupter)
    finally:
        interrupter.close()
    assert summary.status == "interrupted"
    program.write_text(program.read_text() + "\n# edited after the run started\n")
    with pytest.raises(ValueError, match=f"mine: .*{program.name}.* changed"):
        run(data, RunRequest("toy", resume=summary.run_id, jobs=2))
    assert read_runs(data)["status"].to_list() == ["interrupted"]  # left as it was
    program.write_text((PROGRAMS / "sum.py").read_text())
    resumed = run(data, RunRequest("toy", resume=summary.run_id, jobs=2))  # no --external again
    frame = results(data, summary.run_id)
    assert resumed.status == "finished" and frame.height == 60
    assert Counter(frame["solver"]) == Counter({"fast": 30, "mine": 30})
    _no_duplicates(frame)


def test_resuming_a_group_run_stays_within_the_group(data):
    corpus(data, {**{f"pack/data/secret/one/{i:03d}.in": (f"{i} 1\n", f"{i + 1}\n")
                     for i in range(30)},
                  "pack/data/sample/x.in": ("7 7\n", "14\n")})
    interrupter = CtrlCAfter(5, jobs=1)
    try:
        summary = run(data, RunRequest("toy", solvers=("fast",), group="secret"),
                      executor=interrupter)
    finally:
        interrupter.close()
    run(data, RunRequest("toy", resume=summary.run_id, jobs=1))
    assert "x.in" not in set(graded(data, summary.run_id)["name"])


def test_resume_refuses_an_unknown_run_or_another_problems_run(data):
    corpus(data, {"a/01.in": ("1 1\n", "2\n")})
    with pytest.raises(ValueError, match="no run"):
        run(data, RunRequest("toy", resume="20990101T000000-abcdef"))
    write_run(data, {"run_id": "r-other", "problem": "arc087e", "status": "failed",
                            "solvers": ["fast"]})
    with pytest.raises(ValueError, match="arc087e"):
        run(data, RunRequest("toy", resume="r-other"))


def test_a_runs_row_names_the_commit_git_itself_names(tmp_path):
    """The commit read from the `.git` folder is `git rev-parse HEAD`'s: on a branch, with
    the branch's ref only in packed-refs, on a detached head, and in a linked worktree
    (whose `.git` is a file: git itself is asked)."""
    import subprocess as sp

    from pipeline.run.runner import git_revision

    def git(*args: str, cwd: Path = tmp_path / "repo") -> str:
        return sp.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                      text=True).stdout.strip()

    repo = tmp_path / "repo"
    repo.mkdir()
    git("init", "-q", "-b", "main")
    (repo / "file").write_text("one\n")
    git("add", "file")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    assert git_revision(repo) == git("rev-parse", "HEAD")
    git("pack-refs", "--all")
    assert not (repo / ".git" / "refs" / "heads" / "main").exists()
    assert git_revision(repo) == git("rev-parse", "HEAD")
    git("checkout", "-q", "--detach")
    assert git_revision(repo) == git("rev-parse", "HEAD")
    git("worktree", "add", "-q", "--detach", str(tmp_path / "linked"))
    assert git_revision(tmp_path / "linked") == git("rev-parse", "HEAD")
    assert git_revision(tmp_path / "not-a-repo") is None
