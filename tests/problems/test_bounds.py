"""Every built-in problem declares its input bounds (for constraint coverage), and they are the
parser's: every case its recipes make lies inside them, and coverage counts the ends reached."""

from __future__ import annotations

import pytest

from pipeline.problems import get_problem, module_problem_ids
from pipeline.problems.model import coverage
from pipeline.report.strength import format_coverage


@pytest.mark.parametrize("problem_id", module_problem_ids())
def test_every_recipe_case_lies_inside_the_declared_bounds(problem_id: str) -> None:
    problem = get_problem(problem_id)
    assert problem.bounds, f"{problem_id} declares no bounds in its case.py (BOUNDS)"
    texts = [path.read_text() for path in sorted(problem.samples.glob("*.in"))]
    texts += [problem.render(problem.generate(recipe.name, seed=1, index=i))
              for recipe in problem.recipes if recipe.kind == "tiny" for i in range(5)]
    rows = coverage(problem, texts)
    for bound, row in zip(problem.bounds, rows):
        assert row.lowest is not None, (problem_id, bound.name)
        assert bound.low <= row.lowest <= row.highest <= bound.high, (problem_id, row)
    assert all(row.name in format_coverage(problem_id, rows) for row in rows)


def test_coverage_names_the_end_no_case_reaches() -> None:
    """cf103119g's samples reach n = 1 ... but never n = 200,000: a warning says so."""
    problem = get_problem("cf103119g")
    case = problem.generate("tiny", seed=1)
    rows = {r.name: r for r in coverage(problem, [problem.render(case)])}
    assert rows["n"].at_high == 0 and "high" in rows["n"].unreached
    text = format_coverage("cf103119g", tuple(rows.values()))
    assert "WARNING: no case reaches its high end" in text
