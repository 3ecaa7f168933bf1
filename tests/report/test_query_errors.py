"""`pipeline query` with a mistake in it: one line saying what is wrong in words of the query,
then the query with a caret under what was typed there; exit status 1. Through the real
command (`python -m pipeline` in a process of its own)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def query(data: Path, sql: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline", "--data-dir", str(data), "query",
                           sql], cwd=REPO, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("sql, message, pointed_at", [
    ("SELECT * FROM resultz",
     "no table 'resultz' (did you mean results? the tables: cases, rejects, results, runs, "
     "findings, expectations, strength, package_bugs)", "resultz"),
    ("SELECT solver FROM results GROUP BY solverr", "no column 'solverr' (did you mean "
     "solver?)", "solverr"),
    ("SELECT * FROM results WHERE verdict = AC",
     "no column 'AC' (a string is written in single quotes: 'AC')", "AC"),
    ("SELEC * FROM runs", "cannot parse the query: Expected: an SQL statement, found: SELEC",
     "SELEC"),
    ("SELECT foo(1) FROM results", "no SQL function 'foo' in Polars SQL", "foo"),
])
def test_a_mistake_is_named_and_pointed_at_where_it_was_typed(bench, sql, message, pointed_at):
    bench.standard_cases()
    bench.standard_run("r1", 0)
    done = query(bench.data, sql)
    assert done.returncode == 1 and done.stdout == ""
    first, echoed, caret = done.stderr.splitlines()
    assert first == f"error: query failed: {message}"
    assert echoed == f"  {sql}"
    start = caret.index("^")
    assert echoed[start:start + len(caret) - start] == pointed_at
    assert set(caret[start:]) == {"^"} and "Traceback" not in done.stderr


def test_a_query_that_ends_too_soon_points_past_its_end(bench):
    bench.standard_cases()
    done = query(bench.data, "SELECT * FROM cases WHERE size >")
    assert done.returncode == 1
    first, echoed, caret = done.stderr.splitlines()
    assert first == "error: query failed: the query ends too soon: expected an expression"
    assert caret == " " * len(echoed) + "^"
