"""arc087e (Prefix-free Game): what the module must do, checked against the game's own rules.

The brute stage searches sets of strings directly; everything else (the free-subtree
decomposition, the mex table of heights, the editorial's divide-by-4 rule, the lowbit/parity
shortcut of `fast`) is checked against it on small cases and against each other beyond.
"""

from __future__ import annotations

import random

import pytest

from pipeline.errors import BeyondLimits, InputError
from pipeline.problems import get_problem
from pipeline.problems.arc087e.case import Case, parse_slow
from pipeline.problems.arc087e.stages import (
    GRUNDY_MAX_L,
    brute_grundy,
    editorial_value,
    free_subtree_heights,
    good_superset_count,
    grundy_table,
)

P = get_problem("arc087e")
SAMPLE_DIR = P.samples

SAMPLES = [
    ("2 2\n00\n01\n", "Alice\n"),
    ("2 2\n00\n11\n", "Bob\n"),
    ("3 3\n0\n10\n110\n", "Alice\n"),
    ("2 1\n0\n1\n", "Bob\n"),
    ("1 2\n11\n", "Alice\n"),
    ("2 3\n101\n11\n", "Bob\n"),
]

TRUSTED = [s.name for s in P.trusted_stages]


def cases(recipe: str, count: int, seed: int = 1):
    return [P.generate(recipe, seed, i) for i in range(count)]


def reject(text: str) -> InputError:
    with pytest.raises(InputError) as info:
        P.parse(text)
    return info.value


# -- samples ------------------------------------------------------------------------------------

def test_samples_on_disk_are_the_official_ones():
    for i, (text, answer) in enumerate(SAMPLES, start=1):
        assert (SAMPLE_DIR / f"{i:02d}.in").read_text() == text
        assert (SAMPLE_DIR / f"{i:02d}.out").read_text() == answer
    assert len(list(SAMPLE_DIR.glob("*.in"))) == len(SAMPLES)


@pytest.mark.parametrize("stage", [s.name for s in P.stages])
def test_every_stage_solves_every_sample(stage):
    for text, answer in SAMPLES:
        assert P.solve_text(text, stage) == answer
        assert P.render(P.parse(text)) == text


def test_all_stages_are_trusted():
    # Every claim checked here held up; no stage is registered as known wrong.
    assert TRUSTED == ["brute", "grundy", "editorial", "fast"]


# -- the theory, against the search -------------------------------------------------------------

def test_free_subtree_values_from_search_are_lowbit():
    # S = {"1"} leaves exactly one free subtree (under "0") with L levels.
    table = grundy_table(4)
    for h in range(1, 5):
        assert brute_grundy(Case(h, ("1",))) == table[h] == h & -h


def test_whole_position_grundy_is_xor_of_free_subtrees():
    checked = 0
    for case in cases("tiny", 120, seed=7):
        if good_superset_count(case) > 3000:
            continue
        expected = 0
        for h, count in free_subtree_heights(case).items():
            if count % 2:
                expected ^= h & -h
        assert brute_grundy(case) == expected, case
        checked += 1
    assert checked >= 80


def test_mex_table_equals_lowbit():
    table = grundy_table(GRUNDY_MAX_L)
    assert table[1:9] == [1, 2, 1, 4, 1, 2, 1, 8]
    assert all(table[h] == h & -h for h in range(1, GRUNDY_MAX_L + 1))


def test_editorial_divide_by_four_rule_equals_lowbit():
    assert all(editorial_value(h) == h & -h for h in range(1, 100_001))
    rng = random.Random(3)
    for _ in range(2000):
        h = rng.randint(1, 10**18) << rng.randint(0, 3) >> rng.randint(0, 3) or 1
        assert editorial_value(h) == h & -h
    for k in range(60):
        assert editorial_value(1 << k) == 1 << k


# -- stages agree -------------------------------------------------------------------------------

def test_tiny_cases_all_stages_agree_with_brute():
    checked = 0
    winners = set()
    for case in cases("tiny", 320):
        if not P.stage("brute").accepts(case):
            continue
        expected = P.stage("brute")(case)
        winners.add(expected)
        for name in TRUSTED:
            assert P.stage(name)(case) == expected, (name, case)
        checked += 1
    assert checked >= 300
    assert winners == {True, False}


@pytest.mark.parametrize("recipe", [r.name for r in P.recipes if r.kind == "edge"])
def test_edge_recipes_agree_with_brute_where_it_accepts(recipe):
    for case in cases(recipe, 25):
        expected = P.stage("fast")(case)
        assert P.stage("editorial")(case) == expected, case
        if P.stage("grundy").accepts(case):
            assert P.stage("grundy")(case) == expected, case
        if P.stage("brute").accepts(case):
            assert P.stage("brute")(case) == expected, case


def test_edge_recipes_reach_brute():
    accepted = {r.name: sum(P.stage("brute").accepts(c) for c in cases(r.name, 25))
                for r in P.recipes if r.kind == "edge"}
    assert accepted["l-one"] == 25
    assert accepted["l-huge"] == 0
    assert accepted["single-string"] > 5 and accepted["full-level"] > 5


def test_full_level_and_complete_codes_are_bob():
    for case in cases("full-level", 25):
        assert P.stage("fast")(case) is False


@pytest.mark.parametrize("recipe", [r.name for r in P.recipes if r.kind == "family"])
def test_families_oracles_agree_with_fast(recipe):
    by_grundy = 0
    for case in cases(recipe, 40):
        expected = P.stage("fast")(case)
        assert P.stage("editorial")(case) == expected, case
        if P.stage("grundy").accepts(case):
            assert P.stage("grundy")(case) == expected, case
            by_grundy += 1
    assert by_grundy >= 10


def test_max_cases_editorial_agrees_with_fast():
    for recipe in [r.name for r in P.recipes if r.kind == "max"]:
        case = P.generate(recipe, 1)
        assert P.stage("editorial")(case) == P.stage("fast")(case), recipe
        if P.stage("grundy").accepts(case):
            assert P.stage("grundy")(case) == P.stage("fast")(case), recipe


# -- recipes, sizes, round trips ----------------------------------------------------------------

@pytest.mark.parametrize("recipe", [r.name for r in P.recipes])
def test_recipes_round_trip_and_are_deterministic(recipe):
    count = 1 if recipe.startswith("max") else 20
    for i in range(count):
        case = P.generate(recipe, 5, i)
        assert P.parse(P.render(case)) == case
        assert parse_slow(P.render(case)) == case
        assert P.generate(recipe, 5, i) == case


def test_max_recipes_are_at_the_limits():
    for recipe in [r.name for r in P.recipes if r.kind == "max"]:
        case = P.generate(recipe, 2)
        cols = P.size_values(case)
        assert 99_000 <= P.size(case) == cols["total_length"] <= 100_000
        assert case.L in (10**18, cols["max_length"])


def test_size_columns():
    case = P.parse("3 1000000000000000000\n0\n10\n110\n")
    assert P.size(case) == 6
    assert P.size_values(case) == {"strings": 3, "total_length": 6, "max_length": 3,
                                   "L_bits": 60}


# -- parse: accepted formats --------------------------------------------------------------------

def test_free_whitespace_and_crlf_accepted():
    case = P.parse("  3   3\r\n0 \r\n 10\r\n110   \r\n\r\n")
    assert case == Case(3, ("0", "10", "110"))
    assert P.parse("3 3 0 10 110") == case


def test_largest_l_and_total_accepted():
    assert P.parse("1 1000000000000000000\n0\n").L == 10**18
    long = "0" * 100_000
    assert P.parse(f"1 100000\n{long}\n").strings == (long,)


# -- parse: one test per constraint -------------------------------------------------------------

def test_n_below_one():
    err = reject("0 3\n")
    assert (err.line, err.rule) == (1, "range")


def test_n_above_limit():
    err = reject("100001 3\n0\n")
    assert (err.line, err.rule) == (1, "range")


def test_l_below_one():
    err = reject("1 0\n0\n")
    assert (err.line, err.rule) == (1, "range")


def test_l_above_limit():
    err = reject("1 1000000000000000001\n0\n")
    assert (err.line, err.rule) == (1, "range")
    assert "L = 1000000000000000001" in err.message


def test_alphabet_names_line_and_column():
    err = reject("3 4\n01\n1a0\n11\n")
    assert (err.line, err.column, err.rule) == (3, 2, "alphabet")
    err = reject("2 4\n01\n  1102\n")
    assert (err.line, err.column, err.rule) == (3, 6, "alphabet")


def test_string_longer_than_l():
    err = reject("3 2\n01\n100\n11\n")
    assert (err.line, err.rule) == (3, "range")
    assert "|s_2| = 3 is above L = 2" in err.message


def test_duplicate_names_both_lines():
    err = reject("4 4\n0\n10\n11\n0\n")
    assert (err.line, err.rule) == (5, "duplicate")
    assert "s_4" in err.message and "s_1" in err.message and "(line 2)" in err.message


def test_later_string_is_prefix_of_earlier():
    err = reject("4 4\n10\n011\n11\n01\n")
    assert (err.line, err.rule) == (5, "prefix")
    assert str(err) == 'line 5: s_4 = "01" is a prefix of s_2 = "011" (line 3)'


def test_earlier_string_is_prefix_of_later():
    err = reject("3 4\n01\n10\n011\n")
    assert (err.line, err.rule) == (4, "prefix")
    assert 's_3 = "011" has s_1 = "01" (line 2) as a prefix' in err.message


def test_total_length_limit():
    err = reject("2 100000\n" + "0" * 60_000 + "\n" + "1" * 50_000 + "\n")
    assert (err.line, err.rule) == (3, "sum-limit")


def test_not_an_integer():
    err = reject("2 x\n0\n1\n")
    assert (err.line, err.column, err.rule) == (1, 3, "not-an-integer")
    err = reject("2.0 3\n0\n1\n")
    assert (err.line, err.rule) == (1, "not-an-integer")


def test_missing_string():
    err = reject("3 2\n01\n10\n")
    assert (err.line, err.rule) == (3, "count")
    err = reject("1\n")
    assert err.rule == "count"


def test_extra_trailing_token():
    err = reject("2 2\n01\n10\n11\n")
    assert (err.line, err.rule) == (4, "trailing-data")


def test_first_error_in_reading_order_is_reported():
    # s_2 is a prefix of s_1 and s_3 has a bad character: the prefix error comes first.
    err = reject("3 5\n011\n01\n2\n")
    assert (err.line, err.rule) == (3, "prefix")


# -- answers ------------------------------------------------------------------------------------

def test_format_answer():
    case = P.parse(SAMPLES[0][0])
    assert P.format_answer(case, True) == "Alice\n"
    assert P.format_answer(case, False) == "Bob\n"


def test_validate_answer_accepts_both_words():
    case = P.parse(SAMPLES[0][0])
    P.validate_answer(case, "Alice\n")
    P.validate_answer(case, "  Bob \r\n")


@pytest.mark.parametrize("text,line,rule", [
    ("", 1, "count"),
    ("\n", 1, "count"),
    ("alice\n", 1, "answer-token"),
    ("1\n", 1, "answer-token"),
    ("Alice Bob\n", 1, "trailing-data"),
    ("Bob\nBob\n", 2, "trailing-data"),
])
def test_validate_answer_rejects(text, line, rule):
    case = P.parse(SAMPLES[0][0])
    with pytest.raises(InputError) as info:
        P.validate_answer(case, text)
    assert (info.value.line, info.value.rule) == (line, rule)


# -- limits -------------------------------------------------------------------------------------

def test_brute_refuses_too_big():
    with pytest.raises(BeyondLimits):
        P.stage("brute")(Case(9, ("0",)))
    with pytest.raises(BeyondLimits):  # L = 5, S = {1}: 458 330 good supersets
        P.stage("brute")(Case(5, ("1",)))
    assert P.stage("brute").accepts(Case(8, tuple(format(x, "08b") for x in range(256))))
    assert all(P.stage("brute").accepts(c) for c in cases("tiny", 50))


def test_grundy_refuses_huge_l():
    with pytest.raises(BeyondLimits):
        P.stage("grundy")(Case(10**18, ("0",)))
    assert P.stage("grundy").accepts(Case(GRUNDY_MAX_L, ("0",)))
