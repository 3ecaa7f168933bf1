"""movcoin2 (Move the Coins 2): what the problem module promises.

Bob wins the game rooted at R iff the XOR of dist(R, v) over the nodes v with an odd number of
coins is 0. The brute oracle plays the games themselves; every other stage computes that XOR
and must agree with it, and with each other beyond brute's reach.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from pipeline.errors import BeyondLimits, InputError
from pipeline.problems import get_problem
from pipeline.problems.movcoin2 import stages
from pipeline.problems.movcoin2.case import (
    MOD,
    Movcoin2Case,
    TreeCase,
    _parse_checked,
    _parse_native,
    path_case,
)
from pipeline.problems.movcoin2.recipes import make_tree
from pipeline.problems.movcoin2.stages import fast_grundy

PROBLEM = get_problem("movcoin2")
SAMPLES = PROBLEM.samples
SAMPLE_IN = "2\n3 \n1 2\n2 3\n1 0 1\n6\n1 2\n1 3\n4 3\n3 5\n4 6\n0 2 2 1 3 2\n"
SAMPLE_OUT = "4\n14\n"
TRUSTED = [s.name for s in PROBLEM.trusted_stages if s.name != "brute"]


# -- samples ----------------------------------------------------------------------------------
def test_sample_files_hold_the_official_sample():
    assert (SAMPLES / "01.in").read_text() == SAMPLE_IN
    assert (SAMPLES / "01.out").read_text() == SAMPLE_OUT


@pytest.mark.parametrize("stage", [s.name for s in PROBLEM.stages])
def test_every_stage_reproduces_the_sample(stage):
    assert PROBLEM.solve_text(SAMPLE_IN, stage) == SAMPLE_OUT


def test_sample_grundy_values_are_xors_of_distances():
    # Test 1: coins on both ends of 1-2-3, g = (0^2, 1^1, 2^0): Bob wins at R = 2 only (4).
    # Test 2: odd coins on nodes 4 and 5; Bob wins exactly at R = 1, 2, 3 (2 + 4 + 8 = 14).
    case = PROBLEM.parse(SAMPLE_IN)
    assert fast_grundy(case).tolist() == [2, 0, 2, 0, 0, 0, 2, 2, 2]
    assert PROBLEM.size(case) == 9
    assert PROBLEM.size_values(case) == {"tests": 2, "sum_n": 9, "max_n": 6, "coin_nodes": 4}


# -- agreement with the game itself ---------------------------------------------------------
def test_trusted_stages_agree_with_brute_on_300_tiny_cases():
    checked = 0
    for seed in range(300):
        case = PROBLEM.generate("tiny", seed)
        assert PROBLEM.stage("brute").accepts(case)
        expected = PROBLEM.stage("brute")(case)
        for name in TRUSTED:
            assert PROBLEM.stage(name)(case) == expected, (name, seed, case)
        checked += 1
    assert checked == 300


@pytest.mark.parametrize("recipe", [r.name for r in PROBLEM.recipes if r.kind == "edge"])
def test_trusted_stages_agree_with_brute_on_edge_recipes(recipe):
    accepted = 0
    for seed in range(12):
        case = PROBLEM.generate(recipe, seed)
        if not PROBLEM.stage("brute").accepts(case):
            continue
        accepted += 1
        expected = PROBLEM.stage("brute")(case)
        for name in TRUSTED:
            assert PROBLEM.stage(name)(case) == expected, (name, recipe, seed)
    assert accepted >= 10


def test_only_parity_of_coins_matters_per_brute():
    rng = random.Random(11)
    checked = 0
    for seed in range(60):
        test = PROBLEM.generate("tiny", 2000 + seed).tests[0]
        bumped = TreeCase(test.n, test.edges,
                          tuple(c + 2 if c <= 1 and rng.random() < 0.3 else c
                                for c in test.coins))
        small, big = Movcoin2Case((test,)), Movcoin2Case((bumped,))
        if bumped != test and PROBLEM.stage("brute").accepts(big):
            assert stages.brute(small) == stages.brute(big)
            checked += 1
    assert checked >= 20


def test_no_coins_and_single_nodes_are_bob_wins_everywhere():
    case = PROBLEM.generate("no-coins", 3)
    expected = [sum(pow(2, r, MOD) for r in range(1, t.n + 1)) % MOD for t in case.tests]
    assert PROBLEM.stage("brute")(case) == expected == PROBLEM.stage("fast")(case)
    single = PROBLEM.generate("single-node", 0)
    assert PROBLEM.stage("fast")(single) == [2] * len(single.tests)


# -- middle oracles beyond brute's reach --------------------------------------------------
@pytest.mark.parametrize("recipe", [r.name for r in PROBLEM.recipes if r.kind == "family"])
def test_fast_agrees_with_quadratic_and_editorial_on_families(recipe):
    for seed in range(2):
        case = PROBLEM.generate(recipe, seed)
        assert not PROBLEM.stage("brute").accepts(case)
        expected = PROBLEM.stage("quadratic")(case)
        assert PROBLEM.stage("fast")(case) == expected
        if seed == 0:
            assert PROBLEM.stage("editorial")(case) == expected


def test_per_coin_agrees_with_quadratic_on_a_few_coin_family():
    gen = np.random.default_rng(5)
    case = Movcoin2Case(tuple(make_tree(shape, 1500, "few", gen)
                              for shape in ("path", "caterpillar", "random")))
    assert PROBLEM.stage("per-coin")(case) == PROBLEM.stage("quadratic")(case) \
        == PROBLEM.stage("fast")(case)


def test_fast_handles_the_17_bit_trap_like_per_coin():
    # A randomly labelled path of 131,075 nodes, odd coins on one end and a few other nodes:
    # distances reach 131,074 > 2^17.
    gen = np.random.default_rng(17)
    case = Movcoin2Case((make_tree("path", 131_075, "few", gen),))
    assert PROBLEM.stage("fast")(case) == PROBLEM.stage("per-coin")(case)


def test_grundy_values_need_19_bits_on_a_max_path():
    # Coin on node 1 of the path 1..300000: g(R) = R - 1 up to 299,999 (19 bits).
    case = path_case(300_000, (1,))
    grundy = fast_grundy(case)
    assert grundy[-1] == 299_999 and int(grundy.max()).bit_length() == 19
    assert np.array_equal(grundy, np.arange(300_000))


# -- the known-wrong stage ------------------------------------------------------------------
def test_tester_17bit_is_registered_as_known_wrong():
    assert PROBLEM.stage("tester-17bit").known_wrong
    assert "tester-17bit" not in [s.name for s in PROBLEM.trusted_stages]


def test_tester_17bit_smallest_counterexample():
    # Below 131,073 nodes every distance, hence every XOR, is < 2^17 and the cut is harmless;
    # the path of 131,073 nodes with a coin at one end has g = 2^17 at the other end, which the
    # 17-bit tester reads as 0 (a Bob win). Brute cannot play a game this large, so per-coin
    # (one BFS from the coin) stands in for it.
    wrong = path_case(131_073, (1,))
    right = PROBLEM.stage("per-coin")(wrong)
    assert PROBLEM.stage("fast")(wrong) == right
    got = PROBLEM.stage("tester-17bit")(wrong)
    assert got != right
    assert (got[0] - right[0]) % MOD == pow(2, 131_073, MOD)  # only root 131073 flips
    below = path_case(131_072, (1,))
    assert PROBLEM.stage("tester-17bit")(below) == PROBLEM.stage("per-coin")(below)


def test_tester_17bit_matches_brute_on_small_cases():
    for seed in range(40):
        case = PROBLEM.generate("tiny", 1000 + seed)
        assert PROBLEM.stage("tester-17bit")(case) == PROBLEM.stage("brute")(case)


# -- editorial DistTracker ------------------------------------------------------------------
def test_dist_tracker_matches_a_plain_list():
    rng = random.Random(3)
    for _ in range(30):
        tracker = stages.DistTracker(7)
        values: list[int] = []
        for _ in range(60):
            if rng.random() < 0.4 or not values or min(values) == 0:
                d = rng.randint(0, 20)
                tracker.insert_dist(d)
                values.append(d)
            else:
                step = rng.choice((1, -1))
                if max(values) + step > 100:
                    step = -1
                tracker.add_to_all_dists(step)
                values = [v + step for v in values]
            expected = 0
            for v in values:
                expected ^= v
            assert tracker.grundy_number() == expected


# -- round trips and recipes ------------------------------------------------------------------
@pytest.mark.parametrize("recipe", [r.name for r in PROBLEM.recipes if r.kind != "max"])
def test_round_trip_small_recipes(recipe):
    for seed in range(3):
        case = PROBLEM.generate(recipe, seed)
        text = PROBLEM.render(case)
        assert PROBLEM.parse(text) == case
        assert _parse_checked(text) == case
        assert PROBLEM.generate(recipe, seed) == case  # deterministic


@pytest.mark.slow
@pytest.mark.parametrize("recipe", ["max-path-few", "max-star-all", "max-caterpillar-half",
                                    "max-binary-all", "max-random-half", "max-shape",
                                    "max-many-tests"])
def test_round_trip_max_recipes(recipe):
    # One case per tree shape (the densities only change the coins).
    case = PROBLEM.generate(recipe, 0)
    assert PROBLEM.size(case) == 300_000
    assert PROBLEM.parse(PROBLEM.render(case)) == case


def test_max_recipes_cover_every_shape_and_density():
    names = {r.name for r in PROBLEM.recipes if r.kind == "max"}
    for shape in ("path", "star", "caterpillar", "binary", "random"):
        for density in ("all", "half", "few"):
            assert f"max-{shape}-{density}" in names
    assert {"max-shape", "max-many-tests"} <= names


def test_native_parse_accepts_a_max_star_whose_centre_has_the_largest_label():
    # Edges in increasing order, every one joining the centre's set: the native union-find
    # must see a tree (no false cycle) and keep the input's edges and coins.
    n = 300_000
    text = (f"1\n{n}\n" + "".join(f"{i} {n}\n" for i in range(1, n))
            + " ".join(["1"] * n) + "\n")
    case = _parse_native(text)
    assert case is not None and case.tests[0].edges[-1] == (n - 1, n)
    assert case == _parse_checked(text)


def test_native_parse_declines_what_it_cannot_vouch_for():
    assert _parse_native(SAMPLE_IN) == _parse_checked(SAMPLE_IN)
    assert _parse_native("1\n2\n1 2\n007 1\n") is None  # leading zeros: the checked path reads it
    assert rejects("1\n2\n1 2\n007 1\n").rule == "non-canonical"
    assert _parse_native("1\n3\n1 2\n2 1\n0 0 0\n") is None


# -- parse: accepted layouts ------------------------------------------------------------------
def test_parse_accepts_crlf_and_extra_spaces():
    messy = "  2\r\n3   \r\n1 2\r\n 2 3\r\n1 0  1\r\n6\n1 2\n1 3\n4 3\n3 5\n4 6\n0 2 2 1 3 2"
    assert PROBLEM.parse(messy) == PROBLEM.parse(SAMPLE_IN)


def test_render_is_canonical():
    assert PROBLEM.render(PROBLEM.parse(SAMPLE_IN)) == SAMPLE_IN.replace("3 \n", "3\n", 1)


# -- parse: every constraint -----------------------------------------------------------------
def rejects(text: str) -> InputError:
    with pytest.raises(InputError) as caught:
        PROBLEM.parse(text)
    return caught.value


def replace_line(number: int, new: str) -> str:
    lines = SAMPLE_IN.split("\n")
    lines[number - 1] = new
    return "\n".join(lines)


@pytest.mark.parametrize("t", ["0", "1001"])
def test_t_out_of_range(t):
    error = rejects(replace_line(1, t))
    assert (error.line, error.rule) == (1, "range")


@pytest.mark.parametrize("n", ["0", "300001"])
def test_n_out_of_range(n):
    error = rejects(f"1\n{n}\n")
    assert (error.line, error.rule) == (2, "range")


def test_sum_of_n_limit_names_the_n_that_crosses_it():
    first = 200_000
    text = ("2\n" + f"{first}\n" + "".join(f"{i} {i + 1}\n" for i in range(1, first))
            + " ".join(["0"] * first) + "\n100001\n")
    error = rejects(text)
    assert (error.line, error.rule) == (first + 3, "sum-limit")
    assert "300001" in error.message


@pytest.mark.parametrize("line, edge, message", [
    (9, "7 3", "u = 7 is above N = 6"),
    (9, "4 0", "v = 0 is below 1"),
])
def test_edge_endpoint_out_of_range(line, edge, message):
    error = rejects(replace_line(line, edge))
    assert (error.line, error.rule) == (line, "range")
    assert message in error.message


def test_self_loop():
    error = rejects(replace_line(4, "2 2"))
    assert (error.line, error.rule) == (4, "self-loop")


def test_edge_closing_a_cycle():
    error = rejects(replace_line(9, "2 3"))
    assert (error.line, error.rule) == (9, "cycle")
    assert str(error) == "line 9: edge 2 3 closes a cycle"


@pytest.mark.parametrize("coins", ["0 2 2 1 17 2", "0 2 -1 1 3 2"])
def test_coins_out_of_range(coins):
    error = rejects(replace_line(12, coins))
    assert (error.line, error.rule) == (12, "range")


def test_non_integer_token():
    error = rejects(replace_line(3, "1 x"))
    assert (error.line, error.column, error.rule) == (3, 3, "not-an-integer")
    assert rejects(replace_line(5, "1 0 1.0")).rule == "not-an-integer"


def test_missing_token():
    error = rejects(replace_line(12, "0 2 2 1 3"))
    assert (error.line, error.rule) == (12, "count")
    assert rejects("1\n3\n1 2\n").rule == "count"


def test_extra_trailing_token():
    error = rejects(SAMPLE_IN + "7\n")
    assert (error.line, error.rule) == (13, "trailing-data")


# -- answers ----------------------------------------------------------------------------------
def test_format_answer():
    case = PROBLEM.parse(SAMPLE_IN)
    assert PROBLEM.format_answer(case, [4, 14]) == SAMPLE_OUT


def test_validate_answer_accepts_the_sample_output():
    PROBLEM.validate_answer(PROBLEM.parse(SAMPLE_IN), SAMPLE_OUT)


@pytest.mark.parametrize("text, line, rule", [
    ("4\n", 1, "count"),
    ("4\n14\n3\n", 3, "trailing-data"),
    ("4\nBob\n", 2, "not-an-integer"),
    ("4\n1000000007\n", 2, "range"),
    ("-1\n14\n", 1, "range"),
])
def test_validate_answer_rejects_malformed_answers(text, line, rule):
    with pytest.raises(InputError) as caught:
        PROBLEM.validate_answer(PROBLEM.parse(SAMPLE_IN), text)
    assert (caught.value.line, caught.value.rule) == (line, rule)


# -- limits -----------------------------------------------------------------------------------
def test_brute_refuses_a_case_beyond_its_limits():
    case = Movcoin2Case((TreeCase(10, tuple((i, i + 1) for i in range(1, 10)), (16,) * 10),))
    assert PROBLEM.stage("brute").refuses(case)
    with pytest.raises(BeyondLimits):
        PROBLEM.stage("brute")(case)


def test_slow_stages_declare_limits():
    big = path_case(40_000, (1, 5))
    for name in ("quadratic", "editorial"):
        with pytest.raises(BeyondLimits):
            PROBLEM.stage(name)(big)
    assert PROBLEM.stage("per-coin").accepts(big)
    assert PROBLEM.stage("fast").accepts(big)
