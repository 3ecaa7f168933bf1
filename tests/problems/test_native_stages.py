"""Each problem's native code gives exactly what its fallbacks or its other stages give.

- The quick parse paths (native code, and insq15g's NumPy one where native code is
  unavailable) return the checked path's case on every recipe, decline every bad input (so
  that the checked path names its line and rule), and on randomly mutated inputs accept only
  what the checked path accepts. Without native code the other problems parse by their
  checked path, and the note on stderr says so.
- The native kernels return what independent stages return: movcoin2's `fast` and
  `tester-17bit` the pure-Python editorial's (per-coin's and quadratic's on max recipes),
  cf103119g's `fast` recompute's; insq15g's and bipartitebattle's their fallbacks'.
- Without native code, the stages that need their kernel (movcoin2 `fast` and `tester-17bit`,
  cf103119g `fast`) refuse, saying why, in `pipeline solve` (exit 1, no traceback) and in
  `pipeline run` (SKIP with the reason), while the stages with a fallback answer.
- A tiny case is solved without importing NumPy.
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
from pipeline.problems.movcoin2.case import Movcoin2Case

# problem -> (its quick paths: native, then NumPy where it has one; its checked path), names
# in its case module
PATHS = {
    "bipartitebattle": (("_parse_native",), "_parse_checked"),
    "cf103119g": (("_parse_native",), "_parse_slow"),
    "insq15g": (("_parse_native", "_parse_fast"), "_parse_slow"),
    "movcoin2": (("_parse_native",), "_parse_checked"),
}
NATIVE_PROBLEMS = sorted(PATHS)
# problem -> how parse reads without native code (named by the note on stderr)
PARSE_WITHOUT_NATIVE = {"bipartitebattle": "the checked parse", "cf103119g": "the checked parse",
                        "insq15g": "NumPy", "movcoin2": "the checked parse"}


def paths(problem_id: str):
    """(the problem's quick paths, its checked path), as functions."""
    module = importlib.import_module(f"pipeline.problems.{problem_id}.case")
    quick, checked = PATHS[problem_id]
    return tuple(getattr(module, name) for name in quick), getattr(module, checked)


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
def test_every_quick_path_returns_the_checked_case_on_every_recipe(problem_id, recipe):
    problem = get_problem(problem_id)
    (native_path, *numpy_path), checked = paths(problem_id)
    seeds = (1,) if problem.recipe(recipe).kind == "max" else (1, 2, 3)
    for seed in seeds:
        case = problem.generate(recipe, seed)
        text = problem.render(case)
        by_native = native_path(text)
        assert by_native is not None, (recipe, seed)
        assert by_native == case and checked(text) == case
        assert problem.render(by_native) == text
        for read in numpy_path:
            assert read(text) == case, (recipe, seed)
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
    quick_paths, checked = paths(problem_id)
    assert [read(text) for read in quick_paths] == [None] * len(quick_paths)
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


@pytest.mark.parametrize("problem_id, quick", [
    pytest.param(problem_id, quick, id=f"{problem_id}-{('native', 'numpy')[quick]}")
    for problem_id in NATIVE_PROBLEMS for quick in range(len(PATHS[problem_id][0]))])
def test_quick_paths_accept_only_what_the_checked_path_accepts_on_mutated_inputs(
        problem_id, quick):
    # Random replacements, insertions and deletions of tokens (never a leading zero or an
    # unusual space, which a quick path declines although the checked path reads them).
    problem = get_problem(problem_id)
    quick_paths, checked = paths(problem_id)
    read = quick_paths[quick]
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


def kernel_cases(problem_id: str, per_recipe: int):
    problem = get_problem(problem_id)
    for recipe in problem.recipes:
        if recipe.kind != "max":
            for seed in range(per_recipe):
                yield recipe.name, problem.generate(recipe.name, 300 + seed)


def test_movcoin2_native_kernel_agrees_with_the_editorial_on_random_cases():
    problem = get_problem("movcoin2")
    fast, tester, editorial = (problem.stage(name)
                               for name in ("fast", "tester-17bit", "editorial"))
    checked = 0
    for recipe, case in kernel_cases("movcoin2", 4):
        expected = editorial(case)  # every case here has fewer than 2^17 nodes
        assert fast(case) == expected and tester(case) == expected, recipe
        parsed = problem.parse(problem.render(case))  # the packed forest of the native parse
        assert parsed.forest is not None and fast(parsed) == expected
        checked += 1
    assert checked == 4 * 11


@pytest.mark.slow
@pytest.mark.parametrize("recipe", ["max-random-few", "max-star-few", "max-path-few"])
def test_movcoin2_native_kernel_agrees_with_per_coin_on_max_cases(recipe):
    problem = get_problem("movcoin2")
    case = problem.parse(problem.render(problem.generate(recipe, 2)))
    assert problem.size(case) == 300_000
    assert problem.stage("fast")(case) == problem.stage("per-coin")(case)


@pytest.mark.slow
def test_movcoin2_native_kernel_agrees_with_quadratic_on_each_test_of_a_max_case():
    # 1000 tests in one forest: the quadratic stage takes one test at a time
    problem = get_problem("movcoin2")
    case = problem.parse(problem.render(problem.generate("max-many-tests", 2)))
    quadratic = problem.stage("quadratic")
    expected = [answer for test in case.tests for answer in quadratic(Movcoin2Case((test,)))]
    assert len(expected) == 1000 and problem.size(case) == 300_000
    assert problem.stage("fast")(case) == expected


def test_cf103119g_native_kernel_agrees_with_recompute_on_random_cases():
    problem = get_problem("cf103119g")
    fast, recompute = problem.stage("fast"), problem.stage("recompute")
    checked = 0
    for recipe, case in kernel_cases("cf103119g", 25):
        expected = recompute(case)
        assert fast(case) == expected, recipe
        parsed = problem.parse(problem.render(case))
        assert parsed.packed is not None and fast(parsed) == expected
        checked += 1
    assert checked == 25 * 9


@pytest.mark.slow
@pytest.mark.parametrize("recipe", ["max-adversarial", "max-alternating", "max-all-equal"])
def test_cf103119g_native_kernel_agrees_with_recompute_on_max_cases(recipe):
    # recompute reaches the longest prefix of the operations within its limits (its work grows
    # with every query after an append); a query's answer does not depend on what follows it
    from pipeline.problems.cf103119g.case import Case

    problem = get_problem("cf103119g")
    case = problem.parse(problem.render(problem.generate(recipe, 2)))
    recompute = problem.stage("recompute")
    low, high = 0, case.m  # the longest accepted prefix: accepts(prefix(low)), not high + 1
    while low < high:
        middle = (low + high + 1) // 2
        if recompute.accepts(Case(case.values, case.ops[:middle])):
            low = middle
        else:
            high = middle - 1
    expected = recompute(Case(case.values, case.ops[:low]))
    assert len(expected) >= 5, recipe
    assert problem.stage("fast")(case)[:len(expected)] == expected


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


def solve_in_child(problem_id: str, env: dict[str, str],
                   solver: str = "fast") -> subprocess.CompletedProcess:
    sample = get_problem(problem_id).samples / "01.in"
    return subprocess.run([sys.executable, "-m", "pipeline", "solve", problem_id, str(sample),
                           "--solver", solver], capture_output=True, text=True, env=env,
                          timeout=300)


def without_a_compiler(tmp_path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CC", "CXX")}
    env.update(PATH="", PIPELINE_NATIVE_DIR=str(tmp_path / "empty-cache"))
    return env


# problem -> the stages that need its native kernel (they refuse without it)
NEEDS_KERNEL = {"movcoin2": ("fast", "tester-17bit"), "cf103119g": ("fast",)}
NEEDS_KERNEL_IN_FALLBACK = {"movcoin2": "the stages fast and tester-17bit refuse",
                            "cf103119g": "the stage fast refuses"}
# problem -> a trusted stage of it that answers without native code
NO_KERNEL = {"movcoin2": "editorial", "cf103119g": "recompute"}


@pytest.mark.parametrize("problem_id", NATIVE_PROBLEMS)
def test_without_a_compiler_solve_notes_it_once_and_answers_or_refuses(problem_id, tmp_path):
    expected = (get_problem(problem_id).samples / "01.out").read_text()
    refusing = NEEDS_KERNEL.get(problem_id, ())
    answering = NO_KERNEL.get(problem_id, "fast")  # fast: it has a fallback
    done = solve_in_child(problem_id, without_a_compiler(tmp_path), answering)
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected
    [note] = done.stderr.splitlines()
    assert note.startswith(f"note: native code {problem_id!r} unavailable (no "), note
    assert "compiler on PATH" in note
    assert f"; using {PARSE_WITHOUT_NATIVE[problem_id]}" in note, note
    if refusing:
        assert note.endswith(f"; {NEEDS_KERNEL_IN_FALLBACK[problem_id]}"), note
    why = note[note.index("(") + 1:note.rindex("); using ")]
    for stage in refusing:
        refused = solve_in_child(problem_id, without_a_compiler(tmp_path), stage)
        assert refused.returncode == 1 and refused.stdout == ""
        sample = get_problem(problem_id).samples / "01.in"
        assert refused.stderr.splitlines() == [
            note, f"error: {sample}: {stage}: needs its native kernel (native.c), which is "
                  f"unavailable here: {why}"], refused.stderr


@pytest.mark.parametrize("problem_id", sorted(NEEDS_KERNEL))
def test_with_native_code_switched_off_solve_refuses_the_kernel_stages_saying_why(problem_id):
    env = {**os.environ, "PIPELINE_NATIVE": "0"}
    sample = get_problem(problem_id).samples / "01.in"
    for stage in NEEDS_KERNEL[problem_id]:
        refused = solve_in_child(problem_id, env, stage)
        assert refused.returncode == 1 and refused.stdout == ""
        assert refused.stderr == (
            f"error: {sample}: {stage}: needs its native kernel (native.c), which is "
            f"unavailable here: native code is switched off (PIPELINE_NATIVE=0)\n")
    answered = solve_in_child(problem_id, env, NO_KERNEL[problem_id])
    assert answered.returncode == 0 and answered.stderr == "", answered.stderr
    assert answered.stdout == (get_problem(problem_id).samples / "01.out").read_text()


def test_with_native_code_switched_off_a_run_skips_the_kernel_stages_saying_why(tmp_path):
    import polars as pl

    env = {**os.environ, "PIPELINE_NATIVE": "0"}
    data = tmp_path / "data"
    for problem_id in sorted(NEEDS_KERNEL):
        samples = get_problem(problem_id).samples
        stages = [*NEEDS_KERNEL[problem_id], NO_KERNEL[problem_id]]
        for argv in (["ingest", str(samples), "--problem", problem_id],
                     ["run", "--problem", problem_id, "--jobs", "1",
                      *(word for stage in stages for word in ("--solver", stage))]):
            done = subprocess.run([sys.executable, "-m", "pipeline", "--data-dir", str(data),
                                   *argv], capture_output=True, text=True, env=env,
                                  timeout=300)
            assert done.returncode == 0, done.stdout + done.stderr
            assert "Traceback" not in done.stdout + done.stderr
    results = pl.read_parquet(data / "tables" / "results" / "*.parquet")
    reason = ("needs its native kernel (native.c), which is unavailable here: native code is "
              "switched off (PIPELINE_NATIVE=0)")
    for problem_id in sorted(NEEDS_KERNEL):
        cases = len(list(get_problem(problem_id).samples.glob("*.in")))
        mine = results.filter(pl.col("problem") == problem_id)
        for stage in NEEDS_KERNEL[problem_id]:
            rows = mine.filter(pl.col("solver") == stage)
            assert rows.height == cases
            assert rows["verdict"].to_list() == ["SKIP"] * cases
            assert rows["error"].to_list() == [reason] * cases
        answered = mine.filter(pl.col("solver") == NO_KERNEL[problem_id])
        assert answered["verdict"].to_list() == ["AC"] * cases


@pytest.mark.parametrize("problem_id", ["arc087e", *NATIVE_PROBLEMS])
def test_a_tiny_case_is_solved_without_importing_numpy(problem_id):
    sample = get_problem(problem_id).samples / "01.in"
    script = ("import sys\nfrom pipeline.run.solve import main\n"
              f"code = main([{problem_id!r}, {str(sample)!r}])\n"
              "heavy = sorted({'numpy', 'polars', 'pyarrow'} & set(sys.modules))\n"
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
