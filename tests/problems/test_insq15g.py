"""insq15g (people pushed to the top-right corner): the specification as tests.

The first player wins iff the XOR, over the cells at odd distance (X - 1) + (M - Y) from the
corner (1, M), of the number of people on the cell is non-zero (Staircase Nim).
"""

from __future__ import annotations

import itertools
import random
from functools import reduce
from operator import xor

import numpy as np
import pytest

from pipeline.errors import BeyondLimits, InputError
from pipeline.problems import get_problem
from pipeline.problems.insq15g import case as cells
from pipeline.problems.insq15g.case import Case, _parse_fast, _parse_slow
from pipeline.problems.insq15g.stages import brute_grundy

PROBLEM = get_problem("insq15g")
SAMPLES_DIR = PROBLEM.samples
SAMPLES = [("2 2 1\n2 1\n", "No\n"), ("2 2 1\n1 1\n", "Yes\n")]
TRUSTED = [s.name for s in PROBLEM.trusted_stages]
EDGE = [r.name for r in PROBLEM.recipes if r.kind == "edge"]
FAMILY = [r.name for r in PROBLEM.recipes if r.kind == "family"]
MAX = [r.name for r in PROBLEM.recipes if r.kind == "max"]


def staircase_value(case: Case) -> int:
    """XOR of head counts over the cells at odd distance, computed naively with a dict."""
    counts: dict[tuple[int, int], int] = {}
    for x, y in case.people():
        if ((x - 1) + (case.m - y)) % 2 == 1:
            counts[x, y] = counts.get((x, y), 0) + 1
    return reduce(xor, counts.values(), 0)


def reject(text: str) -> InputError:
    with pytest.raises(InputError) as info:
        PROBLEM.parse(text)
    return info.value


# -- samples ------------------------------------------------------------------------------------
def test_sample_files_hold_the_spec_samples():
    for number, (given, expected) in enumerate(SAMPLES, start=1):
        assert (SAMPLES_DIR / f"{number:02d}.in").read_text() == given
        assert (SAMPLES_DIR / f"{number:02d}.out").read_text() == expected


@pytest.mark.parametrize("stage", [s.name for s in PROBLEM.stages])
@pytest.mark.parametrize("given,expected", SAMPLES)
def test_every_stage_reproduces_the_samples(stage, given, expected):
    assert PROBLEM.solve_text(given, stage) == expected


# -- cross-checks -------------------------------------------------------------------------------
def test_tiny_cases_agree_with_brute():
    brute = PROBLEM.stage("brute")
    accepted = 0
    for index in range(360):
        case = PROBLEM.generate("tiny", 7, index)
        if not brute.accepts(case):
            continue
        accepted += 1
        want = brute(case)
        for name in TRUSTED:
            stage = PROBLEM.stage(name)
            if stage.accepts(case):
                assert stage(case) == want, (name, case)
    assert accepted >= 300


def test_grundy_value_is_the_xor_of_odd_distance_head_counts():
    """Stronger than win/lose: the brute force's Grundy value of the whole position."""
    for index in range(150):
        case = PROBLEM.generate("tiny", 11, index)
        if PROBLEM.stage("brute").accepts(case):
            assert brute_grundy(case) == staircase_value(case), case


def test_a_crowded_odd_cell_has_grundy_value_equal_to_its_head_count():
    # The editorial: "grundy number of a particular pile (or block) is the number of people".
    for heads in range(1, 7):
        assert brute_grundy(Case.of(2, 2, [(1, 1)] * heads)) == heads
        assert brute_grundy(Case.of(2, 2, [(2, 1)] * heads)) == 0


@pytest.mark.parametrize("recipe", EDGE)
def test_edge_recipes_agree_with_brute(recipe):
    brute = PROBLEM.stage("brute")
    accepted = 0
    for index in range(40):
        case = PROBLEM.generate(recipe, 3, index)
        fast = PROBLEM.stage("fast")(case)
        assert PROBLEM.stage("editorial")(case) == fast, case
        if brute.accepts(case):
            accepted += 1
            assert brute(case) == fast, case
        if PROBLEM.stage("grid").accepts(case):
            assert PROBLEM.stage("grid")(case) == fast, case
    assert accepted > 0


def test_nobody_at_odd_distance_means_the_first_player_loses():
    for index in range(30):
        assert PROBLEM.stage("fast")(PROBLEM.generate("two-steps-away", 5, index)) is False
    corner_only = Case.of(10**18, 10**18, [(1, 10**18)] * 5)
    assert PROBLEM.stage("brute")(corner_only) is False
    assert PROBLEM.stage("fast")(corner_only) is False


@pytest.mark.parametrize("recipe", FAMILY)
def test_families_beyond_brute_agree(recipe):
    grid = PROBLEM.stage("grid")
    for index in range(20):
        case = PROBLEM.generate(recipe, 4, index)
        fast = PROBLEM.stage("fast")(case)
        assert PROBLEM.stage("editorial")(case) == fast, case
        assert (staircase_value(case) != 0) == fast
        if grid.accepts(case):
            assert grid(case) == fast


def test_fast_on_max_cases_agrees_with_editorial():
    for recipe in ("max-1e5-distinct", "max-1e5-one-cell"):
        for seed in (1, 2):
            case = PROBLEM.generate(recipe, seed)
            assert PROBLEM.stage("fast")(case) == PROBLEM.stage("editorial")(case), recipe


def test_fast_falls_back_to_an_exact_sort_on_hash_collisions(monkeypatch):
    # With a zero multiplier every key hashes to 0: the verification must catch it.
    monkeypatch.setattr(cells, "_MIX2", np.uint64(0))
    for index in range(20):
        case = PROBLEM.generate("clustered-medium", 9, index)
        assert cells._cell_counts(case.xs, case.ys).sum() == case.p
        assert PROBLEM.stage("fast")(case) == (staircase_value(case) != 0)
    huge = Case.of(10**18, 10**18, [(1, 2), (10**18, 3), (1, 2), (5, 10**18), (1, 2)])
    assert sorted(cells._cell_counts(huge.xs, huge.ys).tolist()) == [1, 1, 3]


# -- known-wrong stage --------------------------------------------------------------------------
def test_independent_people_is_wrong_and_its_smallest_counterexample():
    wrong = PROBLEM.stage("independent-people")
    assert wrong.known_wrong
    found = None
    for p in range(1, 4):
        for n, m in sorted(itertools.product(range(1, 4), repeat=2), key=lambda s: s[0] * s[1]):
            cells = list(itertools.product(range(1, n + 1), range(1, m + 1)))
            for people in itertools.combinations_with_replacement(cells, p):
                case = Case.of(n, m, people)
                if wrong(case) != PROBLEM.stage("brute")(case):
                    found = case
                    break
            if found:
                break
        if found:
            break
    assert found == Case.of(1, 2, [(1, 1), (1, 1)])
    assert PROBLEM.stage("brute")(found) is True
    assert wrong(found) is False


# -- parse / render -----------------------------------------------------------------------------
@pytest.mark.parametrize("recipe", [r.name for r in PROBLEM.recipes if r.kind != "max"])
def test_round_trip_small_recipes(recipe):
    for index in range(10):
        case = PROBLEM.generate(recipe, 2, index)
        text = PROBLEM.render(case)
        assert PROBLEM.parse(text) == case
        assert _parse_slow(text) == case


@pytest.mark.parametrize("recipe", MAX)
def test_round_trip_max_recipes(recipe):
    case = PROBLEM.generate(recipe, 1)
    text = PROBLEM.render(case)
    assert _parse_fast(text) == case  # the fast path is taken on a valid max input
    assert PROBLEM.parse(text) == case
    assert hash(PROBLEM.parse(text)) == hash(case)
    assert PROBLEM.size(case) == case.p
    assert case.p in (10**5, 10**6)
    assert PROBLEM.size_values(case)["people"] == case.p


def test_render_is_canonical():
    case = Case.of(3, 4, [(3, 1), (1, 4)])
    assert PROBLEM.render(case) == "3 4 2\n3 1\n1 4\n"
    assert PROBLEM.size_values(case) == {"people": 2, "distinct_cells": 2, "odd_people": 1,
                                         "n_digits": 1, "m_digits": 1}


def test_case_equality_is_by_content():
    a = Case.of(5, 5, [(1, 2), (3, 4)])
    b = Case(5, 5, np.array([1, 3]), np.array([2, 4]))
    assert a == b and hash(a) == hash(b)
    assert a != Case.of(5, 5, [(3, 4), (1, 2)])
    assert a != Case.of(5, 6, [(1, 2), (3, 4)])
    with pytest.raises(ValueError):
        a.xs[0] = 2  # read-only


def test_free_whitespace_and_crlf_are_accepted():
    want = Case.of(2, 3, [(2, 1), (1, 3)])
    for text in ["2 3 2\r\n2 1\r\n1 3\r\n", "  2   3 2\n\n2 1 1 3", "2 3 2\n2 1\n1 3",
                 "2\n3\n2\n2\n1\n1\n3\n\n"]:
        assert PROBLEM.parse(text) == want


def test_largest_values_are_accepted():
    top = 10**18
    case = PROBLEM.parse(f"{top} {top} 2\n{top} 1\n1 {top}\n")
    assert case == Case.of(top, top, [(top, 1), (1, top)])


@pytest.mark.parametrize("text,line,rule,fragment", [
    ("0 5 1\n1 1\n", 1, "range", "N = 0 is below 1"),
    ("1000000000000000001 5 1\n1 1\n", 1, "range", "N = 1000000000000000001 is above"),
    ("5 0 1\n1 1\n", 1, "range", "M = 0 is below 1"),
    ("5 1000000000000000001 1\n1 1\n", 1, "range", "M = 1000000000000000001 is above"),
    ("5 5 0\n", 1, "range", "P = 0 is below 1"),
    ("5 5 1000001\n1 1\n", 1, "range", "P = 1000001 is above 1000000"),
    ("5 5 3\n1 1\n0 2\n3 3\n", 3, "range", "person 2: X = 0 is outside 1..N = 5"),
    ("5 5 3\n1 1\n2 2\n6 3\n", 4, "range", "person 3: X = 6 is outside 1..N = 5"),
    ("5 4 2\n1 0\n2 2\n", 2, "range", "person 1: Y = 0 is outside 1..M = 4"),
    ("5 4 2\n1 1\n2 5\n", 3, "range", "person 2: Y = 5 is outside 1..M = 4"),
    ("5 4 2\n1 1\n2 -1\n", 3, "range", "Y = -1 is outside"),
    ("5 4 2\n1 1\n2 99999999999999999999999\n", 3, "range", "is outside 1..M = 4"),
])
def test_each_constraint_is_enforced(text, line, rule, fragment):
    error = reject(text)
    assert (error.line, error.rule) == (line, rule)
    assert fragment in str(error)


@pytest.mark.parametrize("text,line,column", [
    ("5 5 1\n1 x\n", 2, 3),
    ("5 5 1\n1 1.0\n", 2, 3),
    ("5 5 1e0\n1 1\n", 1, 5),
    ("5 5 1\n0x1 1\n", 2, 1),
])
def test_non_integer_tokens_are_rejected(text, line, column):
    error = reject(text)
    assert (error.line, error.column, error.rule) == (line, column, "not-an-integer")


def test_missing_and_extra_tokens_are_rejected():
    assert (reject("5 5 2\n1 1\n2\n").line, reject("5 5 2\n1 1\n2\n").rule) == (3, "count")
    assert reject("5 5\n").rule == "count"
    assert reject("").rule == "count"
    assert reject("   \n ").rule == "count"
    error = reject("5 5 1\n1 1\n2 2\n")
    assert (error.line, error.column, error.rule) == (3, 1, "trailing-data")


def test_fast_parse_matches_slow_parse_on_mutated_inputs():
    """Whatever the text, parse accepts exactly what the token-by-token reader accepts."""
    rng = random.Random(2024)
    alphabet = "0123456789  \n\r\t+-.x\u00a0\x0b\x0c"
    for index in range(600):
        text = PROBLEM.render(PROBLEM.generate("tiny", 13, index))
        if index % 3 == 0:
            text = f"{10**18} {10**18} 2\n{10**18} 1\n1 {10**18}\n"
        chars = list(text)
        for _ in range(rng.randint(1, 3)):
            position = rng.randrange(len(chars) + 1)
            action = rng.random()
            if action < 0.4 and chars:
                chars[min(position, len(chars) - 1)] = rng.choice(alphabet)
            elif action < 0.7:
                chars.insert(position, rng.choice(alphabet))
            elif chars:
                del chars[min(position, len(chars) - 1)]
        mutated = "".join(chars)
        try:
            want = _parse_slow(mutated)
        except InputError as error:
            got = reject(mutated)
            assert (got.line, got.rule) == (error.line, error.rule), repr(mutated)
            continue
        assert PROBLEM.parse(mutated) == want, repr(mutated)


# -- answers ------------------------------------------------------------------------------------
def test_format_answer():
    case = Case.of(2, 2, [(1, 1)])
    assert PROBLEM.format_answer(case, True) == "Yes\n"
    assert PROBLEM.format_answer(case, False) == "No\n"


def test_validate_answer_accepts_yes_and_no():
    case = Case.of(2, 2, [(1, 1)])
    for text in ("Yes\n", "No\n", "  No", "Yes\r\n"):
        PROBLEM.validate_answer(case, text)


@pytest.mark.parametrize("text,line,rule", [
    ("", 1, "count"),
    ("\n", 1, "count"),
    ("yes\n", 1, "answer-token"),
    ("YES\n", 1, "answer-token"),
    ("1\n", 1, "answer-token"),
    ("Alice\n", 1, "answer-token"),
    ("Yes\nNo\n", 2, "trailing-data"),
    ("Yes Yes\n", 1, "trailing-data"),
])
def test_validate_answer_rejects_malformed_answers(text, line, rule):
    with pytest.raises(InputError) as info:
        PROBLEM.validate_answer(Case.of(2, 2, [(1, 1)]), text)
    assert (info.value.line, info.value.rule) == (line, rule)


# -- limits -------------------------------------------------------------------------------------
def test_brute_refuses_big_cases():
    brute = PROBLEM.stage("brute")
    for case in (Case.of(10**18, 10**18, [(10**18, 1)]),
                 Case.of(5, 5, [(5, 1)] * 6),
                 PROBLEM.generate("random-medium", 1)):
        assert brute.refuses(case)
        with pytest.raises(BeyondLimits):
            brute(case)
    assert brute.accepts(Case.of(3, 3, [(3, 1)] * 6))


def test_grid_refuses_big_grids():
    with pytest.raises(BeyondLimits):
        PROBLEM.stage("grid")(Case.of(1000, 1000, [(1, 1)]))
