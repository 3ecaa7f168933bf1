"""What every problem promises, written once and checked for every registered problem.

A new problem folder gets these checks without writing a test: its judge text round-trips,
its recipes are deterministic and valid, its size columns are the ones it declares, every
trusted stage agrees with the oracle (the stage that searches the game's own states) on tiny
cases and with the official samples, and every known-wrong stage is still wrong on its
counterexample.
"""

from __future__ import annotations

import pytest

from pipeline.problems import get_problem, problem_ids

PROBLEMS = problem_ids()
TINY_SEEDS = 40
RECIPE_SEEDS = 3


def answers_agree(problem, case, a, b) -> bool:
    return problem.compare(problem.format_answer(case, a), problem.format_answer(case, b)) is None


def oracle_answer(problem, case):
    """The answer of the first oracle stage that accepts the case (None when none does)."""
    for stage in problem.stages:
        if stage.role == "oracle" and stage.accepts(case):
            return stage(case)
    return None


def reference_answer(problem, case):
    """The answer of the first stage of the reference order that accepts the case."""
    for name in problem.reference:
        stage = problem.stage(name)
        if stage.trusted and stage.accepts(case):
            return stage(case)
    raise AssertionError(f"{problem.id}: no reference stage accepts the case")


@pytest.mark.parametrize("problem_id", PROBLEMS)
def test_it_declares_what_the_pipeline_needs(problem_id):
    problem = get_problem(problem_id)
    roles = {s.role for s in problem.stages}
    assert "oracle" in roles, "every problem needs a stage that searches the game's own states"
    assert problem.reference and problem.reference[0] in {s.name for s in problem.stages}
    assert problem.time_limit_s > 0 and problem.memory_mb > 0
    assert any(r.kind == "tiny" for r in problem.recipes), "tiny cases for the oracle checks"
    assert problem.samples.is_dir() and list(problem.samples.glob("*.in"))


@pytest.mark.parametrize("problem_id", PROBLEMS)
def test_every_recipe_is_deterministic_valid_and_round_trips(problem_id):
    problem = get_problem(problem_id)
    for recipe in problem.recipes:
        seeds = range(1, 2 if recipe.kind == "max" else RECIPE_SEEDS + 1)
        for seed in seeds:
            case = problem.generate(recipe.name, seed, 1)
            assert problem.generate(recipe.name, seed, 1) == case, (recipe.name, seed)
            text = problem.render(case)
            parsed = problem.parse(text)  # the problem's own validator accepts it
            assert parsed == case, (recipe.name, seed)
            assert problem.render(parsed) == text
            values = problem.size_values(case)
            assert tuple(values) == problem.size_columns, recipe.name
            # the same measures for the case as read from its text (natively, where it is)
            assert problem.size_values(problem.parse(text)) == values, recipe.name
            assert problem.size(case) >= 0


@pytest.mark.parametrize("problem_id", PROBLEMS)
def test_every_trusted_stage_agrees_with_the_oracle_on_tiny_cases(problem_id):
    problem = get_problem(problem_id)
    checked = 0
    for recipe in (r for r in problem.recipes if r.kind == "tiny"):
        for seed in range(TINY_SEEDS):
            case = problem.generate(recipe.name, 7000 + seed)
            truth = oracle_answer(problem, case)
            assert truth is not None, f"{recipe.name} seed {seed}: beyond every oracle"
            for stage in problem.trusted_stages:
                if stage.role != "oracle" and stage.accepts(case):
                    assert answers_agree(problem, case, stage(case), truth), \
                        (stage.name, recipe.name, seed, problem.render(case))
                    checked += 1
    assert checked


@pytest.mark.parametrize("problem_id", PROBLEMS)
def test_the_samples_are_answered_right_by_every_trusted_stage(problem_id):
    problem = get_problem(problem_id)
    for sample in sorted(problem.samples.glob("*.in")):
        case = problem.parse(sample.read_text())
        expected = sample.with_suffix(".out").read_text()
        problem.validate_answer(case, expected)
        for stage in problem.trusted_stages:
            if stage.accepts(case):
                got = problem.format_answer(case, stage(case))
                assert problem.compare(expected, got) is None, (sample.name, stage.name)


@pytest.mark.parametrize("problem_id", PROBLEMS)
def test_known_wrong_stages_are_still_wrong_on_their_counterexample(problem_id):
    problem = get_problem(problem_id)
    for stage in problem.stages:
        if stage.trusted:
            continue
        assert stage.known_wrong, f"{stage.name}: say why it is wrong"
        case = stage.counterexample()
        problem.parse(problem.render(case))  # a valid judge input
        right = reference_answer(problem, case)
        assert not answers_agree(problem, case, stage(case), right), \
            f"{stage.name} now answers its counterexample right: is it still wrong?"


@pytest.mark.parametrize("problem_id", [p for p in PROBLEMS if get_problem(p).growth])
def test_the_growth_ladder_builds_cases_of_about_each_size(problem_id):
    problem = get_problem(problem_id)
    for size in problem.growth.sizes[:2]:
        case = problem.growth.make(size, 1)
        assert size // 2 <= problem.size(case) <= size + size // 20, size
