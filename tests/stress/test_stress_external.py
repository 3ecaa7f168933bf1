"""`stress` on an external program with a planted bug: `programs/heads_mod4.py` solves insq15g
but keeps every head count modulo 4. Its smallest counterexample is four people on (1, 1) of a
1 x 2 grid; the problem's own passes (drop people, shrink the grid, move people) must get there.
"""

from __future__ import annotations

import io

from stresskit import findings, program_fails, python_program, single_steps

from pipeline.problems import get_problem
from pipeline.progress import Status
from pipeline.run.solvers import parse_external
from pipeline.stress.stress import StressRequest, stress

SMALLEST = "1 2 4\n1 1\n1 1\n1 1\n1 1\n"


def test_stress_finds_and_shrinks_a_bug_of_an_external_program(tmp_path):
    problem = get_problem("insq15g")
    command = python_program("heads_mod4")
    request = StressRequest("insq15g", "mod4", seed=3, recipes=("clustered-medium",),
                            budget_s=120, jobs=2,
                            externals=(parse_external(f"mod4={command}"),))
    summary = stress(tmp_path / "data", request, Status(io.StringIO()))
    assert summary.status == "stopped"
    found = summary.kept[0]
    assert found.original.size > 100          # up to 3000 people on at most 8 cells
    final = found.shrunk.trial
    assert final.text == SMALLEST
    assert (final.verdict.value, final.solver.answer.split(), final.expected.split()) == (
        "WA", ["No"], ["Yes"])
    assert found.shrunk.locally_minimal
    # Independently: the program itself, run here, passes every single step of the case.
    steps = single_steps(problem, final.text)
    assert steps
    assert not [t for c, t in steps if program_fails(problem, command, c, t)]
    row = findings(tmp_path / "data").row(0, named=True)
    assert row["solver"] == "mod4" and row["shrunk_size"] == 4
