"""A built-in problem that names a checker in its `problem.toml` is judged by it, as a judge
would: a Kattis output validator (42 accepted, 43 wrong answer with its judge message) or a
testlib checker; a checker that fails is a judge error, never the solver's fault.

The problem is a copy of the toy fixture (answer `a + b`) with a validator that accepts any
answer within 1 of the expected one, so the toy's `wrong` stage (off by one on odd `a`) is
accepted and `pid` (a process id) is not. Real `pipeline` processes, a real validator program.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import polars as pl
import pytest
from runkit import results, run_cli

from pipeline.tables.results import read_runs

FIXTURE_PROBLEMS = Path(__file__).resolve().parents[1] / "fixtures" / "problems"

WITHIN_ONE = '''\
import sys
input_file, answer_file, feedback = sys.argv[1:4]
expected = int(open(answer_file).read().split()[0])
got = sys.stdin.read().split()
if len(got) == 1 and got[0].lstrip("-").isdigit() and abs(int(got[0]) - expected) <= 1:
    sys.exit(42)
with open(feedback + "judgemessage.txt", "w") as message:
    message.write(f"{' '.join(got)[:40]} is not within 1 of {expected}")
sys.exit(43)
'''


@pytest.fixture
def checked_problem(tmp_path, monkeypatch):
    """`toycheck`: the toy problem judged by the within-one validator."""
    folder = tmp_path / "problems" / "toycheck"
    shutil.copytree(FIXTURE_PROBLEMS / "toy", folder)
    (folder / "within_one.py").write_text(WITHIN_ONE)
    toml = folder / "problem.toml"
    toml.write_text(toml.read_text().replace(
        "[stages]", '[checker]\nprogram = "within_one.py"\nconvention = "kattis"\n\n[stages]'))
    monkeypatch.setenv("PIPELINE_PROBLEMS_DIR",
                       os.pathsep.join([str(FIXTURE_PROBLEMS), str(folder.parent)]))
    monkeypatch.setenv("PIPELINE_BUILD_DIR", str(tmp_path / "build"))
    return folder


def _ingest(data: Path) -> None:
    raw = data.parent / "raw" / "toycheck"
    for name, (text, answer) in {"01": ("1 2\n", "3\n"), "02": ("4 5\n", "9\n"),
                                 "03": ("7 7\n", "14\n")}.items():
        raw.mkdir(parents=True, exist_ok=True)
        (raw / f"{name}.in").write_text(text)
        (raw / f"{name}.out").write_text(answer)
    done = run_cli(data, "ingest", str(raw.parent))
    assert done.returncode == 0, done.stdout + done.stderr


def _verdicts(data: Path) -> dict[str, list[str]]:
    run_id = read_runs(data).sort("started_at")["run_id"][-1]
    frame = results(data, run_id).sort("case_id")
    return {solver: frame.filter(pl.col("solver") == solver)["verdict"].to_list()
            for solver in sorted(set(frame["solver"]))}


def test_answers_are_judged_by_the_problems_own_checker(tmp_path, checked_problem):
    data = tmp_path / "data"
    _ingest(data)
    done = run_cli(data, "run", "--problem", "toycheck", "--solver", "fast", "--solver",
                   "wrong", "--solver", "pid", "--jobs", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    got = _verdicts(data)
    assert got["fast"] == ["AC"] * 3
    assert got["wrong"] == ["AC"] * 3       # off by one on odd a: within the checker's 1
    assert got["pid"] == ["WA"] * 3
    run_id = read_runs(data).sort("started_at")["run_id"][-1]
    errors = results(data, run_id).filter(pl.col("solver") == "pid")["error"].to_list()
    assert all(e and "is not within 1 of" in e for e in errors), errors
    # mismatches count the accepted off-by-one answers as the expected ones: only pid is off
    lines = run_cli(data, "mismatches").stdout.splitlines()
    assert any(line.strip().startswith("pid ") for line in lines), lines
    assert not any(line.strip().startswith("wrong ") for line in lines), lines


def test_a_checker_that_fails_is_a_judge_error_not_a_wrong_answer(tmp_path, checked_problem):
    (checked_problem / "within_one.py").write_text("import sys\nsys.exit(1)\n")
    data = tmp_path / "data"
    _ingest(data)
    done = run_cli(data, "run", "--problem", "toycheck", "--solver", "fast", "--jobs", "1")
    assert done.returncode == 1, done.stdout + done.stderr  # no verdict of the program
    assert _verdicts(data)["fast"] == ["JE"] * 3
    assert "JE=3" in done.stdout
    assert "3 result(s) are judge errors (JE)" in done.stderr


def test_a_checker_that_is_not_there_is_refused_naming_the_file(tmp_path, checked_problem):
    (checked_problem / "within_one.py").unlink()
    done = run_cli(tmp_path / "data", "problems")
    assert done.returncode != 0
    assert "problem.toml" in done.stderr and "within_one.py is not a file" in done.stderr
