"""`pipeline stress` and `pipeline hunt` as commands: clear errors without tracebacks, exit
codes (0 nothing found, 1 failures found, 2 a bad request), and hunt without mutations of its
own (the toy problem: the generic text mutations)."""

from __future__ import annotations

import pytest
from stresskit import findings, run_cli


@pytest.mark.parametrize("args, message", [
    (("--solver", "nope"), "has no solver 'nope'"),
    (("--solver", "editorial", "--recipe", "nope"), "has no recipe 'nope'"),
    (("--solver", "editorial", "--budget", "soon"), "'soon' is not a duration"),
    (("--solver", "editorial", "--against", "editorial"), "is the solver itself"),
    (("--solver", "editorial", "--external", "x=/bin/true"),
     "--external x is neither the solver nor the reference"),
    (("--solver", "editorial", "--external", "fast=/bin/true"), "'fast' is already"),
])
def test_bad_requests_are_one_clear_line(tmp_path, args, message):
    done = run_cli(tmp_path / "data", "stress", "--problem", "cf103119g", *args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "data" / "tables" / "findings").exists()


def test_nothing_found_exits_0(toy, tmp_path):
    done = run_cli(tmp_path / "data", "stress", "--problem", "toy", "--solver", "fast",
                   "--budget", "1s")
    assert done.returncode == 0, done.stderr
    assert "0 failures, 0 kept" in done.stdout and "budget spent" in done.stdout


def test_hunt_mutates_the_text_of_a_problem_without_mutations(toy, tmp_path):
    done = run_cli(tmp_path / "data", "hunt", "--problem", "toy", "--solver", "brute",
                   "--budget", "3s", "--repeats", "1")
    assert done.returncode == 0, done.stderr
    row = findings(tmp_path / "data").row(0, named=True)
    assert row["kind"] == "hunt" and row["solver"] == "brute"
    assert (tmp_path / "data" / "raw" / row["source"]).parent.name == "hunt"
    assert row["hunt_size"] <= row["original_size"]
