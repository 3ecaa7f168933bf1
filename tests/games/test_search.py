"""GameSearch: memoised win/lose and Grundy values over a game's own states."""

import itertools

import pytest

from pipeline.games import GameSearch, StateBudgetExceeded, nim_sum


def nim_moves(piles):
    """Nim: take any positive number of stones from one pile (piles kept sorted)."""
    for i, pile in enumerate(piles):
        for left in range(pile):
            yield tuple(sorted(piles[:i] + (left,) + piles[i + 1:]))


def subtract_moves(n):
    """Subtraction game {1, 2, 3}."""
    return [n - k for k in (1, 2, 3) if n >= k]


def test_subtraction_game_losing_positions_are_multiples_of_four():
    search = GameSearch(subtract_moves)
    assert [search.is_winning(n) for n in range(9)] == [n % 4 != 0 for n in range(9)]
    assert [search.grundy(n) for n in range(9)] == [n % 4 for n in range(9)]


def test_grundy_of_a_nim_position_is_the_xor_of_its_piles():
    # Bouton's theorem, checked by searching Nim's states (not assumed by the search).
    search = GameSearch(nim_moves)
    for piles in itertools.product(range(5), repeat=3):
        state = tuple(sorted(piles))
        assert search.grundy(state) == nim_sum(piles)
        assert search.is_winning(state) == (nim_sum(piles) != 0)


def test_long_chains_do_not_hit_the_recursion_limit():
    search = GameSearch(lambda n: [n - 1] if n else [])
    assert search.is_winning(100_001) is True
    assert search.grundy(100_000) == 0


def test_a_state_budget_stops_an_oversized_search():
    search = GameSearch(subtract_moves, max_states=10)
    with pytest.raises(StateBudgetExceeded):
        search.grundy(50)


def test_a_cyclic_game_is_reported():
    with pytest.raises(ValueError, match="cycle"):
        GameSearch(lambda n: [(n + 1) % 3]).is_winning(0)
