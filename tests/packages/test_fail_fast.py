"""`pipeline run --fail-fast` on a package: each submission stops at its first failing case,
as `bt run` does by default.

The cases a stopped submission did not run are stored as SKIP, naming the case it failed; a
submission is held to its folder on the cases it ran, so a wrong answer stopped at its first
WA agrees with `wrong_answer/`; submissions that pass every case run them all. Without the
option every case of every submission runs. Real package, real `pipeline` processes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import polars as pl
from packagekit import tiny_kattis

REPO = Path(__file__).resolve().parents[2]
CASES = 24


def _package(folder: Path) -> Path:
    files = {f"data/secret/{i:02d}.in": f"{i} {i}\n" for i in range(3, 3 + CASES)}
    files |= {f"data/secret/{i:02d}.ans": f"{2 * i}\n" for i in range(3, 3 + CASES)}
    files["submissions/wrong_answer/off.py"] = "print(sum(map(int, input().split())) + 1)\n"
    # right on the samples and the first cases, then wrong: its folder expects WA somewhere
    files["submissions/wrong_answer/late.py"] = (
        "a, b = map(int, input().split())\nprint(a + b + (a > 20))\n")
    return tiny_kattis(folder / "tiny", files)


def _pipeline(data: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline", "--data-dir", str(data), *args],
                          cwd=REPO, capture_output=True, text=True, timeout=600)


def test_fail_fast_stops_each_submission_at_its_first_failure_and_holds_it_to_what_ran(
        tmp_path):
    package = _package(tmp_path)
    data = tmp_path / "data"
    assert _pipeline(data, "ingest", str(package)).returncode == 0
    done = _pipeline(data, "run", "--problem", "tiny", "--jobs", "1", "--fail-fast")
    assert done.returncode == 0, done.stdout + done.stderr
    results = pl.read_parquet(data / "tables" / "results" / "*.parquet")
    total = results.filter(pl.col("solver") == "accepted/sum.py").height
    assert total == CASES + 3  # the accepted one ran every case (2 secret + 1 sample + CASES)
    assert set(results.filter(pl.col("solver") == "accepted/sum.py")["verdict"]) == {"AC"}
    for name in ("wrong_answer/off.py", "wrong_answer/late.py"):
        rows = results.filter(pl.col("solver") == name).sort("finished_at", maintain_order=True)
        assert rows.height == total, rows  # a row per case: judged or not run
        wrong = rows.filter(pl.col("verdict") == "WA")
        assert wrong.height >= 1 and set(rows["verdict"]) <= {"AC", "WA", "SKIP"}, rows
        skipped = rows.filter(pl.col("verdict") == "SKIP")
        assert skipped.height >= total // 2, rows  # most of its cases never ran
        assert set(skipped["error"]) == {
            f"not run (--fail-fast): failed case {wrong['case_id'][0]} before"}
    expectations = pl.read_parquet(data / "tables" / "expectations" / "*.parquet")
    held = dict(zip(expectations["submission"], expectations["status"]))
    assert held["wrong_answer/off.py"] == "agree" and held["wrong_answer/late.py"] == "agree"
    assert held["accepted/sum.py"] == "agree"
    assert "SKIP=" in done.stdout  # the summary counts the cases not run


def test_fail_fast_runs_a_submission_not_expected_to_pass_one_case_at_a_time(tmp_path):
    """With two workers, a wrong answer that fails every case still runs only its first: its
    cases go one after another, so none runs past its failure; the accepted one, expected to
    pass them all, runs them side by side."""
    files = {f"data/secret/{i:02d}.in": f"{i} {i}\n" for i in range(3, 3 + CASES)}
    files |= {f"data/secret/{i:02d}.ans": f"{2 * i}\n" for i in range(3, 3 + CASES)}
    files["submissions/wrong_answer/off.py"] = "print(sum(map(int, input().split())) + 1)\n"
    package = tiny_kattis(tmp_path / "tiny", files)
    data = tmp_path / "data"
    assert _pipeline(data, "ingest", str(package)).returncode == 0
    done = _pipeline(data, "run", "--problem", "tiny", "--jobs", "2", "--fail-fast")
    assert done.returncode == 0, done.stdout + done.stderr
    results = pl.read_parquet(data / "tables" / "results" / "*.parquet")
    off = results.filter(pl.col("solver") == "wrong_answer/off.py")
    assert off.filter(pl.col("verdict") == "WA").height == 1, off
    assert off.filter(pl.col("verdict") == "SKIP").height == off.height - 1
    accepted = results.filter(pl.col("solver") == "accepted/sum.py")
    assert set(accepted["verdict"]) == {"AC"} and accepted.height == CASES + 3


def test_without_fail_fast_every_case_of_every_submission_runs(tmp_path):
    package = _package(tmp_path)
    data = tmp_path / "data"
    assert _pipeline(data, "ingest", str(package)).returncode == 0
    done = _pipeline(data, "run", "--problem", "tiny", "--jobs", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    results = pl.read_parquet(data / "tables" / "results" / "*.parquet")
    assert "SKIP" not in results["verdict"].to_list()
    off = results.filter(pl.col("solver") == "wrong_answer/off.py")
    assert set(off["verdict"]) == {"WA"} and off.height == CASES + 3


def test_fail_fast_stops_a_lower_bound_submission_too_and_keeps_no_limit_derived_from_part(
        tmp_path):
    """A submission whose folder forbids TLE sets the least time limit (a lower bound): under
    --fail-fast it too stops at its first failure, as BAPCtools stops it, and the limit is
    derived from the cases each ran. That limit is used, and said to be, but not kept with
    the package: a run of every case derives the one kept. The stopped submission is held
    to what it could still meet: a rule that a case it never ran get AC is not broken."""
    package = _package(tmp_path)
    (package / "problem.yaml").write_text(
        "problem_format_version: 2025-09\ntype: pass-fail\nname: Tiny\n"
        "uuid: 8ee7605a-0000-4000-8000-000000000002\n")
    (package / "submissions" / "mixed").mkdir()
    (package / "submissions" / "wrong_answer" / "late.py").rename(
        package / "submissions" / "mixed" / "late.py")
    # it gets AC on the small cases, had it run them: a rule a stopped run could still meet
    (package / "submissions" / "submissions.yaml").write_text(
        "mixed:\n  permitted: [AC, WA]\nmixed/late.py:\n  secret/0*:\n    required: [AC]\n")
    data = tmp_path / "data"
    assert _pipeline(data, "ingest", str(package)).returncode == 0
    marker = data / "problems" / "tiny" / "package.json"
    done = _pipeline(data, "run", "--problem", "tiny", "--jobs", "1", "--fail-fast")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "from the cases each ran (--fail-fast) (not kept" in done.stdout
    assert json.loads(marker.read_text()).get("time_limit") is None
    results = pl.read_parquet(data / "tables" / "results" / "*.parquet")
    late = results.filter(pl.col("solver") == "mixed/late.py")
    assert late.height == CASES + 3
    assert late.filter(pl.col("verdict") == "SKIP").height >= CASES // 2, late
    assert set(late["verdict"]) == {"AC", "WA", "SKIP"}
    expectations = pl.read_parquet(data / "tables" / "expectations" / "*.parquet")
    assert set(expectations["status"]) == {"agree"}, expectations
    whole = _pipeline(data, "run", "--problem", "tiny", "--jobs", "1")
    assert whole.returncode == 0 and "(kept with the package)" in whole.stdout
    assert json.loads(marker.read_text())["time_limit"]["time_s"] == 1.0
