"""Bipartite Battle: what the module promises, checked against a search of the game itself."""

from __future__ import annotations

import pytest

from pipeline.errors import BeyondLimits, InputError
from pipeline.problems import get_problem
from pipeline.problems.bipartitebattle.case import MOD, BattleCase
from pipeline.problems.bipartitebattle.recipes import BRUTE_SHAPES
from pipeline.problems.bipartitebattle.stages import (
    drawing_grundy_values,
    sg_formula,
    shape_search,
)

P = get_problem("bipartitebattle")
SAMPLES_DIR = P.samples
SAMPLES = [("1\n1 1\n", "1\n"), ("1\n1 2\n", "0\n")]
TRUSTED = [s.name for s in P.trusted_stages if s.name != "brute"]
EDGE_RECIPES = [r.name for r in P.recipes if r.kind == "edge"]


def cases(recipe: str, count: int, seed: int = 0) -> list[BattleCase]:
    return [P.generate(recipe, seed, i) for i in range(count)]


# -- samples ----------------------------------------------------------------------------------

def test_samples_on_disk_are_the_spec_samples():
    for number, (given, expected) in enumerate(SAMPLES, 1):
        assert (SAMPLES_DIR / f"{number:02d}.in").read_text() == given
        assert (SAMPLES_DIR / f"{number:02d}.out").read_text() == expected


@pytest.mark.parametrize("stage", [s.name for s in P.stages])
def test_every_stage_reproduces_the_samples(stage):
    for given, expected in SAMPLES:
        assert P.solve_text(given, stage) == expected


# -- the theory, from search ------------------------------------------------------------------

def test_grundy_of_every_small_bipartite_graph_is_n_mod_2_plus_2_m_mod_2():
    """Every subgraph (vertex subset, edge subset) of K_{a,b} for every shape brute handles."""
    checked = 0
    for a, b in BRUTE_SHAPES:
        if a > b:
            continue
        search = shape_search(a, b)
        n = a + b
        for vmask in range(1 << n):
            allowed = 0
            for i in range(a):
                for j in range(b):
                    if vmask >> i & 1 and vmask >> (a + j) & 1:
                        allowed |= 1 << (i * b + j)
            emask = allowed
            while True:  # every submask of the allowed edges
                got = search.grundy((vmask, emask))
                assert got == sg_formula(bin(vmask).count("1"), bin(emask).count("1")), \
                    (a, b, vmask, emask)
                checked += 1
                if emask == 0:
                    break
                emask = (emask - 1) & allowed
    assert checked > 50_000


def test_drawing_values_of_one_edge_graph():
    # K_{1,1}: no edge (two isolated vertices, value 0) or the edge (value 2).
    assert drawing_grundy_values(1, 1) == (0, 2)


def test_half_the_drawings_of_a_shape_have_each_edge_parity():
    for a, b in [(1, 3), (2, 3), (3, 4)]:
        values = drawing_grundy_values(a, b)
        odd = sum(1 for v in values if v >= 2)
        assert odd * 2 == len(values) == 2 ** (a * b)


# -- stages agree -----------------------------------------------------------------------------

def test_trusted_stages_agree_with_brute_on_tiny_cases():
    tiny = cases("tiny", 300)
    for case in tiny:
        want = P.stage("brute")(case)
        for stage in TRUSTED:
            assert P.stage(stage)(case) == want, (stage, case)
    # the cross-check is not vacuous: both winners occur
    answers = {P.stage("brute")(c) == 0 for c in tiny}
    assert answers == {True, False}


@pytest.mark.parametrize("recipe", EDGE_RECIPES)
def test_trusted_stages_agree_with_brute_on_edge_recipes(recipe):
    compared = 0
    for case in cases(recipe, 12):
        if P.stage("brute").accepts(case):
            want = P.stage("brute")(case)
            compared += 1
        else:
            want = P.stage("fast")(case)
        for stage in TRUSTED:
            if P.stage(stage).accepts(case):
                assert P.stage(stage)(case) == want, (stage, recipe, case)
    if recipe != "huge":
        assert compared > 0


def test_odd_vertex_total_gives_zero():
    for case in cases("odd-total", 30):
        assert sum(a + b for a, b in case.graphs) % 2 == 1
        assert P.stage("fast")(case) == 0
        if P.stage("brute").accepts(case):
            assert P.stage("brute")(case) == 0


def test_all_ones_answer_is_power_of_two():
    for case in cases("all-ones", 5):
        assert P.stage("brute")(case) == pow(2, case.n - 1, MOD)


def test_middle_oracle_agrees_with_fast_on_medium_family():
    for case in cases("medium", 30):
        assert P.stage("sg-binomial").accepts(case)
        assert not P.stage("brute").accepts(case)
        want = P.stage("fast")(case)
        assert want != 0
        assert P.stage("sg-binomial")(case) == want
        assert P.stage("editorial")(case) == want


def test_editorial_agrees_with_fast_on_large_random_family():
    for case in cases("large-random", 20):
        assert P.stage("editorial")(case) == P.stage("fast")(case)


def test_editorial_agrees_with_fast_at_max_size():
    for recipe in ("max-huge", "max-random"):
        case = P.generate(recipe, 0)
        assert case.n == 10**5
        assert P.stage("editorial")(case) == P.stage("fast")(case)


# -- limits -----------------------------------------------------------------------------------

def test_brute_refuses_too_big_graphs():
    for text in ("1\n1 11\n", "1\n4 4\n", "2\n1 1\n3 5\n"):
        with pytest.raises(BeyondLimits):
            P.stage("brute")(P.parse(text))
    with pytest.raises(BeyondLimits):
        P.stage("brute")(BattleCase(((1, 1),) * 1001))


def test_middle_oracle_refuses_huge_graphs():
    with pytest.raises(BeyondLimits):
        P.stage("sg-binomial")(P.parse("1\n1000 1001\n"))


# -- round trips and sizes --------------------------------------------------------------------

@pytest.mark.parametrize("recipe", [r.name for r in P.recipes])
def test_round_trip(recipe):
    count = 1 if P.recipe(recipe).kind == "max" else 10
    for case in cases(recipe, count, seed=7):
        text = P.render(case)
        assert P.parse(text) == case
        assert text.endswith("\n") and "  " not in text


def test_recipes_are_deterministic():
    assert P.generate("tiny", 3, 5) == P.generate("tiny", 3, 5)
    assert P.generate("max-random", 1) == P.generate("max-random", 1)


def test_sizes():
    case = P.parse("3\n1 2\n1000000000 7\n3 3\n")
    assert P.size(case) == 3
    assert P.size_values(case) == {
        "graphs": 3, "max_side": 10**9, "edge_bits": (2 + 7 * 10**9 + 9).bit_length()}


# -- parse: accepted whitespace and every constraint ------------------------------------------

def test_parse_accepts_crlf_and_extra_spaces():
    assert P.parse("  2 \r\n 3   4\r\n\r\n5 6  \r\n") == BattleCase(((3, 4), (5, 6)))


def rejects(text: str, line: int, rule: str) -> InputError:
    with pytest.raises(InputError) as info:
        P.parse(text)
    assert (info.value.line, info.value.rule) == (line, rule), str(info.value)
    return info.value


def test_rejects_n_below_1():
    assert "N = 0 is below 1" in str(rejects("0\n", 1, "range"))


def test_rejects_n_above_limit():
    rejects("100001\n" + "1 1\n" * 100001, 1, "range")


def test_rejects_a_below_1():
    assert "a_3 = 0" in str(rejects("3\n1 1\n2 2\n0 5\n", 4, "range"))


def test_rejects_b_above_limit():
    assert "b_2 = 1000000001" in str(rejects("2\n1 1\n2 1000000001\n", 3, "range"))


def test_rejects_a_above_limit_and_b_below_1():
    rejects("1\n1000000001 1\n", 2, "range")
    rejects("2\n1 1\n5 -3\n", 3, "range")


def test_rejects_non_integer_tokens():
    error = rejects("2\n1 1\n2 x\n", 3, "not-an-integer")
    assert error.column == 3
    rejects("1\n1.5 2\n", 2, "not-an-integer")
    rejects("two\n1 1\n", 1, "not-an-integer")


def test_rejects_missing_tokens():
    assert "b_2" in str(rejects("2\n1 1\n3\n", 3, "count"))
    rejects("", 1, "count")


def test_rejects_extra_trailing_token():
    error = rejects("1\n1 1\n\n7\n", 4, "trailing-data")
    assert "'7'" in str(error)
    rejects("1\n1 1 1\n", 2, "trailing-data")


# -- answers ----------------------------------------------------------------------------------

def test_format_answer():
    case = P.parse("1\n1 1\n")
    assert P.format_answer(case, 1) == "1\n"


def test_validate_answer_accepts_valid_answers():
    case = P.parse("1\n1 1\n")
    for text in ("1\n", "0", " 1000000006 \r\n"):
        P.validate_answer(case, text)


@pytest.mark.parametrize("text,line,rule", [
    ("", 1, "count"),
    ("\n\n", 1, "count"),
    ("1 2\n", 1, "trailing-data"),
    ("1\n2\n", 2, "trailing-data"),
    ("Yes\n", 1, "not-an-integer"),
    ("-1\n", 1, "range"),
    ("007\n", 1, "non-canonical"),
    ("1000000007\n", 1, "range"),
    ("99999999999999999999\n", 1, "range"),
])
def test_validate_answer_rejects_malformed_answers(text, line, rule):
    case = P.parse("1\n1 1\n")
    with pytest.raises(InputError) as info:
        P.validate_answer(case, text)
    assert (info.value.line, info.value.rule) == (line, rule)
