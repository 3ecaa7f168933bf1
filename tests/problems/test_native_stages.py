"""Each problem's native code gives exactly what its fallbacks give.

- The quick parse paths (native code, and NumPy where native code is unavailable) return the
  checked path's case on every recipe, decline every bad input (so that the checked path
  names its line and rule), and on randomly mutated inputs accept only what the checked path
  accepts.
- The native kernels return the fallbacks' answers (movcoin2, cf103119g: numba's; insq15g:
  NumPy's).
- Without a compiler, `pipeline solve` answers through the fallbacks after one line on stderr.
- A tiny case is solved without importing NumPy or numba.
"""

from __future__ import annotations

import importlib
import os
import pickle
import random
import subprocess
import sys

import pytest

from pipeline.errors import InputError
from pipeline.problems import get_problem

# problem -> (native quick path, NumPy quick path, checked path), names in its case module
PATHS = {
    "bipartitebattle": ("_parse_native", "_parse_quick", "_parse_checked"),
    "cf103119g": ("_parse_native", "_parse_quick", "_parse_slow"),
    "insq15g": ("_parse_native", "_parse_fast", "_parse_slow"),
    "movcoin2": ("_parse_native", "_parse_quick", "_parse_checked"),
}
NATIVE_PROBLEMS = sorted(PATHS)


def paths(problem_id: str):
    module = importlib.import_module(f"pipeline.problems.{problem_id}.case")
    return tuple(getattr(module, name) for name in PATHS[problem_id])


# problem -> (its fast stage, the fallback that stage uses on cases not read natively)
FALLBACK_FAST = {"insq15g": ("solve_fast", "solve_numpy"),
                 "bipartitebattle": ("solve_fast", "solve_python")}


def fallback_fast(problem_id: str):
    module = importlib.import_module(f"pipeline.problems.{problem_id}.stages")
    return tuple(getattr(module, name) for name in FALLBACK_FAST[problem_id])


def recipe_params():
    for problem_id in NATIVE_PROBLEMS:
        for recipe in get_problem(problem_id).recipes:
            marks = [pytest.mark.slow] if recipe.kind == "max" else []
            yield pytest.param(problem_id, recipe.name, marks=marks,
                               id=f"{problem_id}-{recipe.name}")


@pytest.mark.parametrize("problem_id", NATIVE_PROBLEMS)
def test_native_code_is_built_and_loaded_here(problem_id):
    module = importlib.import_module(f"pipeline.problems.{problem_id}.case")
    assert module.functions() is not None, "the test machine has a compiler: build it"


@pytest.mark.parametrize("problem_id, recipe", list(recipe_params()))
def test_both_quick_paths_return_the_checked_case_on_every_recipe(problem_id, recipe):
    problem = get_problem(problem_id)
    native_path, numpy_path, checked = paths(problem_id)
    seeds = (1,) if problem.recipe(recipe).kind == "max" else (1, 2, 3)
    for seed in seeds:
        case = problem.generate(recipe, seed)
        text = problem.render(case)
        by_native, by_numpy = native_path(text), numpy_path(text)
        assert by_native is not None and by_numpy is not None, (recipe, seed)
        assert by_native == case and by_numpy == case and checked(text) == case
        assert problem.render(by_native) == text
        if problem_id in FALLBACK_FAST and problem.recipe(recipe).kind == "max":
            # (the smaller recipes: test_native_fast_agrees_with_its_fallback_on_every_recipe)
            native_fast, fallback = fallback_fast(problem_id)
            assert native_fast(by_native) == fallback(case), (recipe, seed)


BAD_INPUTS = {
    "movcoin2": [
        ("0\n", 1, "range"), ("1001\n", 1, "range"), ("x\n", 1, "not-an-integer"),
        ("1\n0\n\n", 2, "range"), ("1\n300001\n", 2, "range"),
        ("2\n200000\n" + "".join(f"{i} {i + 1}\n" for i in range(1, 200000))
         + "0 " * 200000 + "\n100001\n", 200003, "sum-limit"),
        ("1\n3\n1 2\n0 3\n0 0 0\n", 4, "range"), ("1\n3\n1 2\n2 4\n0 0 0\n", 4, "range"),
        ("1\n3\n1 2\n3 3\n0 0 0\n", 4, "self-loop"), ("1\n3\n1 2\n2 1\n0 0 0\n", 4, "cycle"),
        ("1\n2\n1 2\n0 17\n", 4, "range"), ("1\n2\n1 2\n0 -1\n", 4, "range"),
        ("1\n2\n1 2\n0 1.5\n", 4, "not-an-integer"), ("1\n2\n1 2\n0\n", 4, "count"),
        ("1\n2\n1 2\n0 0 5\n", 4, "trailing-data"), ("", 1, "count"),
    ],
    "cf103119g": [
        ("0 1\n\n2 1\n", 1, "range"), ("1 200001\n5\n", 1, "range"),
        ("3 1\n1 256 3\n2 1\n", 2, "range"), ("2 3\n1 2\n2 1\n3 1\n2 2\n", 4, "range"),
        ("2 2\n1 2\n1 256\n2 2\n", 3, "range"), ("2 2\n1 2\n2 0\n2 2\n", 3, "range"),
        ("2 2\n1 2\n2 2\n2 3\n", 4, "range"), ("2 1\n1 x\n2 1\n", 2, "not-an-integer"),
        ("2 1\n1 2\n+2 1\n", 3, "non-canonical"), ("2 2\n1 2\n2 1\n", 3, "count"),
        ("2 1\n1 2\n2 1 7\n", 3, "trailing-data"),
        ("2 1\n1 2\n2 " + "9" * 40 + "\n", 3, "range"),
    ],
    "bipartitebattle": [
        ("0\n", 1, "range"), ("100001\n", 1, "range"), ("2\n1 2\n3 0\n", 3, "range"),
        ("2\n1 2\n1000000001 1\n", 3, "range"), ("1\n1 x\n", 2, "not-an-integer"),
        ("2\n1 2\n3\n", 3, "count"), ("1\n1 2\n3\n", 3, "trailing-data"),
        ("1\n-1 2\n", 2, "range"),
    ],
    "insq15g": [
        ("0 1 1\n1 1\n", 1, "range"), ("1 1000000000000000001 1\n1 1\n", 1, "range"),
        ("2 2 1000001\n", 1, "range"), ("2 2 1\n3 1\n", 2, "range"),
        ("2 2 2\n1 1\n1 0\n", 3, "range"), ("2 2 1\n1 y\n", 2, "not-an-integer"),
        ("2 2 2\n1 1\n", 2, "count"), ("2 2 1\n1 1\n1\n", 3, "trailing-data"),
        ("2 2 1\n+1 1\n", 2, "non-canonical"),
    ],
}


# Valid in Python's eyes (str.split, int) but not in a judge's: each quick path declines them
# and the checked parser names the rule (issue 22, N2 and N3).
VALID_BUT_FOR = {
    "movcoin2": "1\n2\n1 2\n0 1\n",
    "cf103119g": "2 1\n1 2\n2 1\n",
    "bipartitebattle": "1\n1 2\n",
    "insq15g": "2 2 1\n1 1\n",
}
for _problem, _text in VALID_BUT_FOR.items():
    BAD_INPUTS[_problem] += [
        *((_text.replace(" ", separator, 1), 1 + _text.split(" ")[0].count("\n"), "separator")
          for separator in ("\t", "\u00a0", "\u2003", "\x1c", "\x1f", "\x85", "\x0b")),
        ("0" + _text, 1, "non-canonical"), ("0" * 5000 + _text, 1, "non-canonical"),
        ("+" + _text, 1, "non-canonical"), ("-0 " + _text, 1, "non-canonical"),
    ]


@pytest.mark.parametrize("problem_id, text, line, rule",
                         [(p, t, line, rule) for p, cases in BAD_INPUTS.items()
                          for t, line, rule in cases],
                         ids=lambda value: value[:12] if isinstance(value, str) else None)
def test_quick_paths_decline_bad_inputs_and_parse_reports_the_checked_error(
        problem_id, text, line, rule):
    native_path, numpy_path, checked = paths(problem_id)
    assert native_path(text) is None and numpy_path(text) is None
    with pytest.raises(InputError) as from_checked:
        checked(text)
    with pytest.raises(InputError) as from_parse:
        get_problem(problem_id).parse(text)
    assert (from_checked.value.line, from_checked.value.rule) == (line, rule), \
        str(from_checked.value)
    assert str(from_parse.value) == str(from_checked.value)
    assert from_parse.value.rule == rule


JUNK = {
    "movcoin2": ["0", "1", "2", "3", "16", "17", "-1", "x", "1000"],
    "cf103119g": ["0", "1", "2", "3", "255", "256", "-1", "x", "7", "12"],
    "bipartitebattle": ["0", "1", "2", "3", "1000000000", "1000000001", "-1", "x"],
    "insq15g": ["0", "1", "2", "3", "4", "1000000000000000000", "-1", "y"],
}


@pytest.mark.parametrize("problem_id", NATIVE_PROBLEMS)
@pytest.mark.parametrize("quick", [0, 1], ids=["native", "numpy"])
def test_quick_paths_accept_only_what_the_checked_path_accepts_on_mutated_inputs(
        problem_id, quick):
    # Random replacements, insertions and deletions of tokens (never a leading zero or an
    # unusual space, which a quick path declines although the checked path reads them).
    problem = get_problem(problem_id)
    read, checked = paths(problem_id)[quick], paths(problem_id)[2]
    rng = random.Random(f"mutations/{problem_id}")
    accepted = declined = 0
    for index in range(300):
        tokens = problem.render(problem.generate("tiny", seed=5, index=index)).split()
        for _ in range(rng.randint(0, 2)):
            where = rng.randrange(len(tokens) + 1)
            action = rng.randrange(3)
            if action == 0 and where < len(tokens):
                tokens[where] = rng.choice(JUNK[problem_id])
            elif action == 1:
                tokens.insert(where, rng.choice(JUNK[problem_id]))
            elif where < len(tokens):
                del tokens[where]
        text = " ".join(tokens) + "\n"
        case = read(text)
        if case is not None:
            accepted += 1
            assert checked(text) == case, text
        else:
            declined += 1
            with pytest.raises(InputError):
                checked(text)
    assert accepted > 50 and declined > 20


@pytest.fixture(scope="module")
def numba_kernels() -> None:
    """The numba kernels (movcoin2's and cf103119g's) compiled into numba's cache, once, before
    the tests that run them: their tests are kept on one xdist worker (tests/conftest.py), so
    no two workers compile them at once, and `pipeline solve` without a compiler then loads
    them from the cache as a machine that ran them before does."""
    from pipeline.problems.cf103119g import stages as cf103119g
    from pipeline.problems.movcoin2 import stages as movcoin2

    movcoin2.jit_solve(get_problem("movcoin2").generate("tiny", 1), 63)
    cf103119g.jit_fast(get_problem("cf103119g").generate("tiny", 1))


def kernel_cases(problem_id: str, per_recipe: int):
    problem = get_problem(problem_id)
    for recipe in problem.recipes:
        if recipe.kind != "max":
            for seed in range(per_recipe):
                yield recipe.name, problem.generate(recipe.name, 300 + seed)


def test_movcoin2_native_kernel_agrees_with_numba_on_random_cases(numba_kernels):
    from pipeline.problems.movcoin2 import stages

    problem = get_problem("movcoin2")
    checked = 0
    for recipe, case in kernel_cases("movcoin2", 12):
        assert stages.fast(case) == stages.jit_solve(case, 63), recipe
        assert stages.tester_17bit(case) == stages.jit_solve(case, 17), recipe
        parsed = problem.parse(problem.render(case))  # the packed forest of the native parse
        assert parsed.forest is not None and stages.fast(parsed) == stages.fast(case)
        checked += 1
    assert checked >= 12 * 11


@pytest.mark.slow
@pytest.mark.parametrize("recipe", ["max-random-half", "max-star-few", "max-many-tests"])
def test_movcoin2_native_kernel_agrees_with_numba_on_max_cases(recipe, numba_kernels):
    from pipeline.problems.movcoin2 import stages

    problem = get_problem("movcoin2")
    case = problem.parse(problem.render(problem.generate(recipe, 2)))
    assert stages.fast(case) == stages.jit_solve(case, 63)


def test_cf103119g_native_kernel_agrees_with_numba_on_random_cases(numba_kernels):
    from pipeline.problems.cf103119g import stages

    problem = get_problem("cf103119g")
    checked = 0
    for recipe, case in kernel_cases("cf103119g", 25):
        assert stages._fast(case) == stages.jit_fast(case), recipe
        parsed = problem.parse(problem.render(case))
        assert parsed.packed is not None and stages._fast(parsed) == stages.jit_fast(case)
        checked += 1
    assert checked >= 25 * 9


@pytest.mark.slow
@pytest.mark.parametrize("recipe", ["max-adversarial", "max-alternating"])
def test_cf103119g_native_kernel_agrees_with_numba_on_max_cases(recipe, numba_kernels):
    from pipeline.problems.cf103119g import stages

    problem = get_problem("cf103119g")
    case = problem.parse(problem.render(problem.generate(recipe, 2)))
    assert stages._fast(case) == stages.jit_fast(case)


@pytest.mark.parametrize("problem_id, recipe", [
    param for param in recipe_params()
    if param.values[0] in FALLBACK_FAST and not param.marks])
def test_native_fast_agrees_with_its_fallback_on_every_recipe(problem_id, recipe):
    # insq15g and bipartitebattle solve a case read natively on its tokens, natively; any
    # other case with NumPy or Python. (Their max recipes are checked with the quick paths.)
    native_fast, fallback = fallback_fast(problem_id)
    problem = get_problem(problem_id)
    for seed in range(12):
        case = problem.generate(recipe, seed)
        parsed = problem.parse(problem.render(case))
        assert parsed.packed is not None
        assert native_fast(parsed) == fallback(case), (recipe, seed)


def test_a_natively_read_case_builds_its_tuples_and_arrays_only_when_read():
    from pipeline.native.bulk import LazyTuple

    battle = get_problem("bipartitebattle").parse("2\n1 2\n3 4\n")
    assert isinstance(battle.graphs, LazyTuple) and len(battle.graphs) == 2
    assert battle.graphs == ((1, 2), (3, 4)) and battle.graphs[1] == (3, 4)
    people = get_problem("insq15g").parse("3 3 2\n1 1\n2 3\n")
    assert "xs" not in vars(people) and people.p == 2
    assert people.xs.tolist() == [1, 2] and people.ys.tolist() == [1, 3]
    assert not people.xs.flags.writeable


def solve_in_child(problem_id: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    sample = get_problem(problem_id).samples / "01.in"
    return subprocess.run([sys.executable, "-m", "pipeline", "solve", problem_id, str(sample)],
                          capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.parametrize("problem_id", NATIVE_PROBLEMS)
def test_without_a_compiler_solve_notes_it_once_and_answers_through_the_fallbacks(
        problem_id, tmp_path, numba_kernels):
    env = {k: v for k, v in os.environ.items() if k not in ("CC", "CXX")}
    env.update(PATH="", PIPELINE_NATIVE_DIR=str(tmp_path / "empty-cache"))
    done = solve_in_child(problem_id, env)
    expected = (get_problem(problem_id).samples / "01.out").read_text()
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected
    [note] = done.stderr.splitlines()
    assert note.startswith(f"note: native code {problem_id!r} unavailable (no "), note
    assert "compiler on PATH" in note
    assert "using " in note


@pytest.mark.parametrize("problem_id", ["arc087e", *NATIVE_PROBLEMS])
def test_a_tiny_case_is_solved_without_importing_numpy_or_numba(problem_id):
    sample = get_problem(problem_id).samples / "01.in"
    script = ("import sys\nfrom pipeline.run.solve import main\n"
              f"code = main([{problem_id!r}, {str(sample)!r}])\n"
              "heavy = sorted({'numpy', 'numba', 'polars', 'pyarrow'} & set(sys.modules))\n"
              "print(code, heavy, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.stderr.strip() == "0 []", done.stderr
    assert done.stdout == (get_problem(problem_id).samples / "01.out").read_text()


def test_the_packed_forms_take_no_part_in_equality_and_are_dropped_by_replace():
    from dataclasses import replace

    problem = get_problem("movcoin2")
    text = (problem.samples / "01.in").read_text()
    parsed = problem.parse(text)
    plain = problem.generate("tiny", 1)
    assert parsed.forest is not None and plain.forest is None
    assert parsed == replace(parsed) and replace(parsed).forest is None
    assert hash(parsed) == hash(replace(parsed)) == hash(problem.parse(text))
    again = pickle.loads(pickle.dumps(parsed))
    assert again == parsed and type(again.tests) is tuple
