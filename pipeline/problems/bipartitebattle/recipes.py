"""Seeded case generators for bipartitebattle, and the growth ladder's case."""

from __future__ import annotations

import random

from pipeline.problems.bipartitebattle.case import MAX_N, MAX_SIDE, BattleCase
from pipeline.problems.bipartitebattle.stages import (
    BRUTE_MAX_EDGES,
    BRUTE_MAX_N,
    BRUTE_MAX_VERTICES,
)
from pipeline.problems.model import Recipe

BRUTE_SHAPES = tuple((a, b) for a in range(1, BRUTE_MAX_VERTICES)
                     for b in range(1, BRUTE_MAX_VERTICES)
                     if a * b <= BRUTE_MAX_EDGES and a + b <= BRUTE_MAX_VERTICES)


def _small_graph(rng: random.Random) -> tuple[int, int]:
    if rng.random() < 0.6:  # mostly the cheap shapes
        while True:
            a, b = rng.randint(1, 3), rng.randint(1, 3)
            if (a, b) in BRUTE_SHAPES:
                return a, b
    return rng.choice(BRUTE_SHAPES)


def _big_graph(rng: random.Random, high: int = MAX_SIDE) -> tuple[int, int]:
    return rng.randint(1, high), rng.randint(1, high)


def _flip_parity(graph: tuple[int, int]) -> tuple[int, int]:
    """The same graph with b moved by one (within [1, 1e9]): a+b changes parity."""
    a, b = graph
    return a, (b - 1 if b > 1 else b + 1)


def make_all_equal(rng: random.Random) -> BattleCase:
    graph = _small_graph(rng) if rng.random() < 0.5 else _big_graph(rng)
    return BattleCase((graph,) * rng.randint(1, 50))


def make_odd_total(rng: random.Random) -> BattleCase:
    small = rng.random() < 0.5
    graphs = [_small_graph(rng) if small else _big_graph(rng) for _ in range(rng.randint(1, 5))]
    if sum(a + b for a, b in graphs) % 2 == 0:
        if small:
            last_parity = (sum(a + b for a, b in graphs[:-1]) + 1) % 2
            graphs[-1] = rng.choice([s for s in BRUTE_SHAPES if sum(s) % 2 == last_parity])
        else:
            graphs[-1] = _flip_parity(graphs[-1])
    return BattleCase(tuple(graphs))


def make_medium(rng: random.Random) -> BattleCase:
    """Up to 30 graphs with sides up to 100, total vertex count even (non-zero answer)."""
    graphs = [_big_graph(rng, 100) for _ in range(rng.randint(1, 30))]
    if sum(a + b for a, b in graphs) % 2:
        graphs[-1] = _flip_parity(graphs[-1])
    return BattleCase(tuple(graphs))


RECIPES = (
    Recipe("tiny", "tiny", "1..3 graphs whose shapes brute can search",
           lambda rng: BattleCase(tuple(_small_graph(rng) for _ in range(rng.randint(1, 3))))),
    Recipe("single-edge", "edge", "one 1x1 graph (sample 1)", lambda rng: BattleCase(((1, 1),))),
    Recipe("all-ones", "edge", f"1..{BRUTE_MAX_N} graphs, all 1x1",
           lambda rng: BattleCase(((1, 1),) * rng.randint(1, BRUTE_MAX_N))),
    Recipe("huge", "edge", "1..20 graphs, all 1e9 x 1e9",
           lambda rng: BattleCase(((MAX_SIDE, MAX_SIDE),) * rng.randint(1, 20))),
    Recipe("all-equal", "edge", "1..50 copies of one graph (small or up to 1e9)",
           make_all_equal),
    Recipe("odd-total", "edge", "1..5 graphs with sum(a_i + b_i) odd: answer 0",
           make_odd_total),
    Recipe("medium", "family", "1..30 graphs, sides up to 100, even vertex total",
           make_medium),
    Recipe("large-random", "family", "1..1000 graphs, sides up to 1e9",
           lambda rng: BattleCase(tuple(_big_graph(rng) for _ in range(rng.randint(1, 1000))))),
    Recipe("max-huge", "max", "N = 1e5 graphs, all 1e9 x 1e9",
           lambda rng: BattleCase(((MAX_SIDE, MAX_SIDE),) * MAX_N)),
    Recipe("max-random", "max", "N = 1e5 graphs, sides uniform in [1, 1e9]",
           lambda rng: BattleCase(tuple(_big_graph(rng) for _ in range(MAX_N)))),
)


def growth_case(size: int, seed: int) -> BattleCase:
    """The growth ladder's case: `size` graphs with sides uniform in [1, 10^9]."""
    import numpy as np

    gen = np.random.default_rng(seed)
    sides = gen.integers(1, 10**9, size=(size, 2), endpoint=True).tolist()
    return BattleCase(tuple(map(tuple, sides)))
