"""Seeded case generators for movcoin2. Trees are built with node 0 as the "special" node (an
end of a path, a star's centre), then relabelled at random, edges shuffled and oriented at
random, so no recipe leaks structure through the numbering.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from pipeline.problems.model import Recipe, numpy_rng
from pipeline.problems.movcoin2.case import MAX_N, MAX_SUM_N, Movcoin2Case, TreeCase
from pipeline.problems.movcoin2.stages import BRUTE_BUDGET, brute_estimate

if TYPE_CHECKING:  # numpy is imported by the generators (not by `pipeline solve`)
    import numpy as np

SHAPES = ("path", "star", "caterpillar", "binary", "random")
DENSITIES = ("all", "half", "few")


# -- tree shapes: edge arrays on 0..n-1 -------------------------------------------------------
def _edges(shape: str, n: int, gen: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    import numpy as np

    if shape == "random":
        return _pruefer_edges(n, gen)
    parent = _parents(shape, n, gen)
    return np.arange(1, n, dtype=np.int64), parent[1:]


def _parents(shape: str, n: int, gen: np.random.Generator) -> np.ndarray:
    """parent[i] < i for i >= 1, parent[0] = -1."""
    import numpy as np

    ids = np.arange(n, dtype=np.int64)
    if shape == "path":
        return ids - 1
    if shape == "star":
        parent = np.zeros(n, dtype=np.int64)
        parent[0] = -1
        return parent
    if shape == "binary":
        return (ids - 1) // 2
    if shape == "caterpillar":
        spine = max(1, n // 2)
        parent = ids - 1
        if n > spine:
            parent[spine:] = gen.integers(0, spine, size=n - spine)
        return parent
    if shape == "recursive":  # parent uniform among earlier nodes: shallow, bushy
        parent = np.full(n, -1, dtype=np.int64)
        if n > 1:
            parent[1:] = (gen.random(n - 1) * ids[1:]).astype(np.int64)
        return parent
    raise ValueError(f"unknown shape {shape}")


def _pruefer_edges(n: int, gen: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A uniformly random labelled tree (linear-time Pruefer decoding) as two edge arrays."""
    import numpy as np

    if n <= 2:
        return np.arange(1, n, dtype=np.int64), np.zeros(n - 1, dtype=np.int64)
    code = gen.integers(0, n, size=n - 2).tolist()
    degree = [1] * n
    for x in code:
        degree[x] += 1
    adj_u, adj_v = [], []
    pointer = 0
    while degree[pointer] != 1:
        pointer += 1
    leaf = pointer
    for x in code:
        adj_u.append(leaf)
        adj_v.append(x)
        degree[x] -= 1
        if degree[x] == 1 and x < pointer:
            leaf = x
        else:
            pointer += 1
            while degree[pointer] != 1:
                pointer += 1
            leaf = pointer
    adj_u.append(leaf)
    adj_v.append(n - 1)
    return np.array(adj_u, dtype=np.int64), np.array(adj_v, dtype=np.int64)


def _coins(n: int, density: str, gen: np.random.Generator) -> np.ndarray:
    if density == "all":
        return 2 * gen.integers(0, 8, size=n) + 1  # odd everywhere
    if density == "half":
        return gen.integers(0, 17, size=n)
    if density == "few":
        coins = 2 * gen.integers(0, 8, size=n) * (gen.random(n) < 0.3)  # even, <= 14
        picks = gen.integers(0, n, size=int(gen.integers(1, 9)))
        coins[picks] += 1
        coins[0] |= 1  # node 0 is an end of the path, the centre of the star, ...
        return coins
    raise ValueError(f"unknown density {density}")


def _tree(ends: tuple[np.ndarray, np.ndarray], coins: np.ndarray,
          gen: np.random.Generator) -> TreeCase:
    """Relabel randomly, shuffle the edges, orient each at random."""
    import numpy as np

    n = len(coins)
    label = gen.permutation(n) + 1
    a = label[ends[0]]
    b = label[ends[1]]
    flip = gen.random(n - 1) < 0.5
    u = np.where(flip, b, a)
    v = np.where(flip, a, b)
    order = gen.permutation(n - 1)
    u = u[order].tolist()
    v = v[order].tolist()
    relabelled = np.empty(n, dtype=np.int64)
    relabelled[label - 1] = coins
    return TreeCase(n, tuple(zip(u, v)), tuple(relabelled.tolist()))


def make_tree(shape: str, n: int, density: str, gen: np.random.Generator) -> TreeCase:
    return _tree(_edges(shape, n, gen), _coins(n, density, gen), gen)


# -- tiny and edge ----------------------------------------------------------------------------
def _small_tree(rng: random.Random, n: int, coin_of) -> TreeCase:
    """A random small tree (random parent among earlier nodes, random labels)."""
    label = list(range(1, n + 1))
    rng.shuffle(label)
    edges = []
    for i in range(1, n):
        a, b = label[i], label[rng.randrange(i)]
        edges.append((a, b) if rng.random() < 0.5 else (b, a))
    rng.shuffle(edges)
    return TreeCase(n, tuple(edges), tuple(coin_of(i) for i in range(n)))


def _within_brute(make, rng: random.Random, budget: int = BRUTE_BUDGET) -> Movcoin2Case:
    """Draw cases until one fits brute's budget (deterministic given rng)."""
    while True:
        case = make(rng)
        if sum(brute_estimate(t) for t in case.tests) <= budget:
            return case


def tiny(rng: random.Random) -> Movcoin2Case:
    def make(rng):
        tests = []
        for _ in range(rng.randint(1, 3)):
            n = rng.randint(1, 8)
            weights = rng.choice(((6, 3, 1, 0), (3, 3, 2, 1), (8, 2, 0, 0)))
            # _small_tree calls the lambda before the loop moves on
            tests.append(_small_tree(rng, n, lambda i: rng.choices((0, 1, 2, 3), weights)[0]))  # noqa: B023
        return Movcoin2Case(tuple(tests))
    return _within_brute(make, rng, BRUTE_BUDGET // 4)


def coins_one_node(rng: random.Random) -> Movcoin2Case:
    def make(rng):
        tests = []
        for _ in range(rng.randint(1, 3)):
            n = rng.randint(1, 7)
            where = rng.randrange(n)
            amount = rng.randint(1, 16)
            # _small_tree calls the lambda before the loop moves on
            tests.append(_small_tree(rng, n, lambda i: amount if i == where else 0))  # noqa: B023
        return Movcoin2Case(tuple(tests))
    return _within_brute(make, rng)


def all_even_coins(rng: random.Random) -> Movcoin2Case:
    return _within_brute(lambda rng: _small_trees(rng, rng.randint(1, 3), 5,
                                                  lambda rng: rng.choice((0, 0, 2, 2, 4))), rng)


def _small_trees(rng: random.Random, count: int, most: int, coins) -> Movcoin2Case:
    """`count` small trees of 1..`most` nodes, a node's coins drawn by `coins(rng)`."""
    return Movcoin2Case(tuple(_small_tree(rng, rng.randint(1, most), lambda i: coins(rng))
                              for _ in range(count)))


# -- families and max -------------------------------------------------------------------------
def family(shape: str):
    def make(rng: random.Random) -> Movcoin2Case:
        gen = numpy_rng(rng)
        return Movcoin2Case(tuple(make_tree(shape, int(gen.integers(1000, 2501)),
                                            DENSITIES[int(gen.integers(0, 3))], gen)
                                  for _ in range(3)))
    return make


def max_one(shape: str | None, density: str | None):
    def make(rng: random.Random) -> Movcoin2Case:
        gen = numpy_rng(rng)
        chosen_shape = shape or SHAPES[int(gen.integers(0, len(SHAPES)))]
        chosen_density = density or DENSITIES[int(gen.integers(0, len(DENSITIES)))]
        return Movcoin2Case((make_tree(chosen_shape, MAX_N, chosen_density, gen),))
    return make


def max_many_tests(rng: random.Random) -> Movcoin2Case:
    import numpy as np

    gen = numpy_rng(rng)
    count = 1000
    cuts = np.sort(gen.choice(np.arange(1, MAX_SUM_N), size=count - 1, replace=False))
    sizes = np.diff(np.concatenate(([0], cuts, [MAX_SUM_N])))
    shapes = ("path", "star", "caterpillar", "binary", "random", "recursive")
    return Movcoin2Case(tuple(make_tree(shapes[int(gen.integers(0, 6))], n,
                                        DENSITIES[int(gen.integers(0, 3))], gen)
                              for n in sizes.tolist()))


def _recipes() -> tuple[Recipe, ...]:
    recipes = [
        Recipe("tiny", "tiny", "1-3 random trees of 1-8 nodes, c_i mostly 0..2; fits brute",
               tiny),
        Recipe("single-node", "edge", "1-5 tests of one node each (Bob always wins: answer 2)",
               lambda rng: Movcoin2Case(tuple(TreeCase(1, (), (rng.randint(0, 16),))
                                              for _ in range(rng.randint(1, 5))))),
        Recipe("no-coins", "edge", "small trees without any coin: Bob wins every game",
               lambda rng: _small_trees(rng, rng.randint(1, 4), 9, lambda rng: 0)),
        Recipe("coins-one-node", "edge", "small trees, 1-16 coins all on one node",
               coins_one_node),
        Recipe("all-even-coins", "edge", "small trees, every c_i even (only parity matters)",
               all_even_coins),
        Recipe("many-tests-tiny", "edge", "T = 1000 trees of 1-3 nodes",
               lambda rng: _small_trees(rng, 1000, 3, lambda rng: rng.choice((0, 0, 1, 1, 2)))),
    ]
    recipes += [Recipe(name, "family", f"3 {shape} trees of 1000-2500 nodes, coin density "
                       "all/half/few", family(shape))
                for shape, name in (("path", "path"), ("star", "star"),
                                    ("caterpillar", "caterpillar"), ("binary", "binary-tree"),
                                    ("random", "random-tree"))]
    recipes += [Recipe(f"max-{shape}-{density}", "max",
                       f"one {shape} tree of {MAX_N} nodes, coin density {density}",
                       max_one(shape, density)) for shape in SHAPES for density in DENSITIES]
    recipes += [Recipe("max-shape", "max", f"one tree of {MAX_N} nodes, shape and density "
                       "drawn at random", max_one(None, None)),
                Recipe("max-many-tests", "max", "T = 1000 trees of random shapes, sum of "
                       f"N = {MAX_SUM_N}", max_many_tests)]
    return tuple(recipes)


RECIPES = _recipes()


def growth_case(size: int, seed: int) -> Movcoin2Case:
    """The growth ladder's case: one random tree of `size` nodes, coin density half."""
    import numpy as np

    gen = np.random.default_rng(seed)
    return Movcoin2Case((make_tree("random", size, "half", gen),))

