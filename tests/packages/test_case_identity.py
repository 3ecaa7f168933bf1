"""One identity for a case (issue 19, Deliver 5): ingest and a package run key an input alike.

A package's test input `3\\r1 2 3\\r` (lone carriage returns) is stored by ingest with its line
ends normalised; `pipeline run` must find the package's own test case for that stored input by
the same key, or the submission is judged on an anonymous case and its result is left out of
what the package expects. A real package built here, ingested and run by real processes.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import polars as pl
from packagekit import problems_of, tiny_kattis

from pipeline.corpus.ingest import ingest
from pipeline.problems import get_problem
from pipeline.problems.identity import case_id_of, judge_file
from pipeline.run.runner import load_cases

REPO = Path(__file__).resolve().parents[2]
INPUT = b"3\r1 2 3\r"

PROBLEM_YAML = """\
problem_format_version: 2025-09
name: Carriage Sum
uuid: 6f0c1d2e-3b4a-4c5d-8e9f-0a1b2c3d4e5f
license: cc0
rights_owner: gamebench
limits:
  time_limit: 2
"""
SUM = "import sys\nvalues = sys.stdin.read().split()\nprint(sum(map(int, values[1:])))\n"


def pipeline(data: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline", "--data-dir", str(data), *args],
                          cwd=REPO, capture_output=True, text=True, timeout=600)


def carriage_package(root: Path) -> Path:
    """A Kattis package whose one secret input ends its lines with a lone `\\r`."""
    (root / "data" / "secret").mkdir(parents=True)
    (root / "submissions" / "accepted").mkdir(parents=True)
    (root / "problem.yaml").write_text(PROBLEM_YAML)
    (root / "data" / "secret" / "1.in").write_bytes(INPUT)
    (root / "data" / "secret" / "1.ans").write_text("6\n")
    (root / "submissions" / "accepted" / "sum.py").write_text(SUM)
    return root


def test_the_ingest_path_and_the_package_path_key_a_lone_cr_input_alike():
    text, case_id, _ = judge_file(INPUT)
    assert text == "3\n1 2 3\n"
    assert case_id == case_id_of(INPUT.decode()) == case_id_of(text)


def test_a_package_case_with_lone_cr_line_ends_keeps_its_result(tmp_path):
    package, data = carriage_package(tmp_path / "carriage"), tmp_path / "data"
    done = pipeline(data, "ingest", str(package))
    assert done.returncode == 0, done.stdout + done.stderr
    stored = pl.read_parquet(data / "tables" / "cases" / "carriage.parquet")
    assert stored["input"].to_list() == ["3\n1 2 3\n"]
    assert stored["case_id"].to_list() == [case_id_of(INPUT.decode())]

    done = pipeline(data, "run", "--problem", "carriage")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "not held" not in done.stdout, done.stdout
    results = pl.read_parquet(data / "tables" / "results" / "*.parquet")
    assert results.select("solver", "case_id", "verdict").rows() == [
        ("accepted/sum.py", stored["case_id"][0], "AC")]
    held = pl.read_parquet(data / "tables" / "expectations" / "*.parquet")
    assert held.select("submission", "status").rows() == [("accepted/sum.py", "agree")]


def test_a_case_names_the_file_its_data_folder_keeps_it_in(tmp_path):
    # what the report links a failing case to: a package's case in the data folder's copy of
    # the package, any other under raw/, an archive's member in no file of its own
    root = tiny_kattis(tmp_path / "tiny")
    data = tmp_path / "data"
    with problems_of(data):
        [problem_id] = {note.problem for note in ingest(data, [root]).packages}
        problem = get_problem(problem_id)
        sources = load_cases(data, problem_id, None)["source"].to_list()
        copy = (data / "problems" / problem_id / "package").resolve()
        assert sources
        for source in sources:
            found = problem.input_file(data, source)
            assert found is not None and found.is_relative_to(copy), (source, found)
            inside = Path(*Path(source).parts[1:])
            assert found.read_bytes() == (root / inside).read_bytes()
        raw = data / "raw" / "extra" / "1.in"
        raw.parent.mkdir(parents=True)
        raw.write_text("1 2\n", encoding="utf-8")
        assert problem.input_file(data, "extra/1.in") == raw.resolve()
        assert problem.input_file(data, "extra/2.in") is None
        assert problem.input_file(data, "extra.zip!1.in") is None
