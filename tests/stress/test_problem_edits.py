"""Every problem's own shrink passes and hunt mutations, checked the same way: passes are
deterministic and offer valid, simpler candidates; mutations depend only on their random
generator and give valid cases of about the same size."""

from __future__ import annotations

import random

import pytest

from pipeline.problems import get_problem, problem_ids
from pipeline.stress.shrink import simplicity

PROBLEMS = [p for p in problem_ids() if get_problem(p).shrinks]


def tiny_cases(problem, count=12):
    recipe = next(r for r in problem.recipes if r.kind == "tiny")
    return [problem.generate(recipe.name, 3, k) for k in range(count)]


def test_every_built_in_problem_has_passes_and_mutations():
    assert set(PROBLEMS) == set(problem_ids())
    assert all(get_problem(p).mutations for p in PROBLEMS)


@pytest.mark.parametrize("problem_id", PROBLEMS)
def test_shrink_passes_are_deterministic_and_offer_valid_simpler_cases(problem_id):
    problem = get_problem(problem_id)
    offered = valid = 0
    for case in tiny_cases(problem):
        key = simplicity(problem, case, problem.render(case))
        for shrink_pass in problem.shrinks:
            first = [problem.render(c) for c in shrink_pass(case)]
            assert first == [problem.render(c) for c in shrink_pass(case)], shrink_pass.__name__
            for text in first:
                offered += 1
                try:
                    parsed = problem.parse(text)
                except ValueError:
                    continue
                valid += simplicity(problem, parsed, text) < key
    assert offered and valid >= offered // 4, (offered, valid)


@pytest.mark.parametrize("problem_id", PROBLEMS)
def test_mutations_depend_only_on_the_generator_and_keep_the_size(problem_id):
    problem = get_problem(problem_id)
    recipe = problem.recipes[[r.kind for r in problem.recipes].index("family")]
    case = problem.generate(recipe.name, 1, 0)
    for mutation in problem.mutations:
        made = []
        for seed in range(8):
            one = mutation(case, random.Random(seed))
            assert (one is None) == (mutation(case, random.Random(seed)) is None)
            if one is not None:
                assert problem.render(one) == problem.render(mutation(case, random.Random(seed)))
                made.append(one)
        assert made, f"{mutation.__name__} never applies to a {recipe.name} case"
        parsed = []
        for one in made:
            try:
                parsed.append(problem.parse(problem.render(one)))
            except ValueError:
                continue
        assert parsed, f"{mutation.__name__} makes only invalid cases"
        assert all(abs(problem.size(p) - problem.size(case)) <= 1 for p in parsed)
