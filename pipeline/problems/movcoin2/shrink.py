"""Shrink passes and hunt mutations of movcoin2 (structured edits of a `Movcoin2Case`).

Trees are rooted at node 1: a shrink cuts an edge and keeps one side, a mutation moves a
subtree. Cuts are tried by levels (about half the tree, a quarter, ...), at most
`CUTS_PER_LEVEL` a level but the last (single leaves).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator

from pipeline.problems.edits import lower_int, removals, replaced
from pipeline.problems.movcoin2.case import MAX_C, Movcoin2Case, TreeCase
from pipeline.problems.movcoin2.stages import adjacency, bfs_tree, subtree_sizes

CUTS_PER_LEVEL = 8


def _with_test(case: Movcoin2Case, index: int, test: TreeCase) -> Movcoin2Case:
    return Movcoin2Case(replaced(case.tests, index, test))


def _rooted(test: TreeCase) -> tuple[list[int], list[int]]:
    """(BFS order from node 1, parent of each node; 0-based, the root's parent -1)."""
    return bfs_tree(adjacency(test), 0)


def _in_subtree(order: list[int], parent: list[int], top: int) -> list[bool]:
    inside = [False] * len(order)
    inside[top] = True
    for u in order:
        if parent[u] >= 0 and inside[parent[u]]:
            inside[u] = True
    return inside


def _induced(test: TreeCase, keep: list[bool]) -> TreeCase:
    """The tree on the kept nodes (connected), relabelled in their old order."""
    label = [0] * test.n
    count = 0
    for i in range(test.n):
        if keep[i]:
            count += 1
            label[i] = count
    edges = tuple((label[u - 1], label[v - 1]) for u, v in test.edges
                  if keep[u - 1] and keep[v - 1])
    coins = tuple(c for c, kept in zip(test.coins, keep) if kept)
    return TreeCase(count, edges, coins)


def drop_tests(case: Movcoin2Case) -> Iterator[Movcoin2Case]:
    """Remove runs of tests (halves first, ..., single tests)."""
    for removed in removals(len(case.tests), minimum_kept=1):
        yield Movcoin2Case(case.tests[:removed.start] + case.tests[removed.stop:])


def _cuts(n: int, size: list[int]) -> list[tuple[int, int, bool]]:
    """(nodes removed, node v, keep v's side) for every cut, by levels (see the module)."""
    every = [(size[v], v, False) for v in range(1, n)] + \
            [(n - size[v], v, True) for v in range(1, n)]
    levels: dict[int, list[tuple[int, int, bool]]] = {}
    for cut in every:
        levels.setdefault(cut[0].bit_length(), []).append(cut)
    chosen = []
    for level in sorted(levels, reverse=True):
        cuts = sorted(levels[level], key=lambda c: (-c[0], c[1], c[2]))
        if level > 1 and len(cuts) > CUTS_PER_LEVEL:
            step = len(cuts) / CUTS_PER_LEVEL
            cuts = [cuts[int(i * step)] for i in range(CUTS_PER_LEVEL)]
        chosen.extend(cuts)
    return chosen


def cut_subtrees(case: Movcoin2Case) -> Iterator[Movcoin2Case]:
    """Cut an edge of a tree and keep one side: bold cuts first, single leaves last."""
    for index, test in enumerate(case.tests):
        if test.n < 2:
            continue
        order, parent = _rooted(test)
        size = subtree_sizes(order, parent)
        for _, v, keep_side in _cuts(test.n, size):
            inside = _in_subtree(order, parent, v)
            keep = inside if keep_side else [not x for x in inside]
            yield _with_test(case, index, _induced(test, keep))


def lower_coins(case: Movcoin2Case) -> Iterator[Movcoin2Case]:
    """Coins lowered: every pile to its parity at once, runs of piles emptied, then every
    pile towards 0 and 1."""
    for index, test in enumerate(case.tests):
        if any(c > 1 for c in test.coins):
            parity = tuple(c & 1 for c in test.coins)
            yield _with_test(case, index, TreeCase(test.n, test.edges, parity))
        holders = [i for i, c in enumerate(test.coins) if c]
        for removed in removals(len(holders)):
            emptied = set(holders[removed.start:removed.stop])
            coins = tuple(0 if i in emptied else c for i, c in enumerate(test.coins))
            yield _with_test(case, index, TreeCase(test.n, test.edges, coins))
        for i in holders:
            for smaller in lower_int(test.coins[i]):
                yield _with_test(case, index, TreeCase(test.n, test.edges,
                                                       replaced(test.coins, i, smaller)))


def relabel(case: Movcoin2Case) -> Iterator[Movcoin2Case]:
    """Every tree relabelled in BFS order from node 1, edges written parent first."""
    for index, test in enumerate(case.tests):
        order, parent = _rooted(test)
        label = [0] * test.n
        for rank, u in enumerate(order):
            label[u] = rank + 1
        edges = tuple((label[parent[u]], label[u]) for u in order[1:])
        coins = tuple(test.coins[u] for u in order)
        yield _with_test(case, index, TreeCase(test.n, edges, coins))


SHRINKS = (drop_tests, cut_subtrees, lower_coins, relabel)


# -- hunt mutations -------------------------------------------------------------------------------

def _pick_test(case: Movcoin2Case, rng: random.Random, minimum: int = 1) -> int | None:
    """A test with at least `minimum` nodes, chosen in proportion to its size."""
    weights = [t.n if t.n >= minimum else 0 for t in case.tests]
    return rng.choices(range(len(case.tests)), weights)[0] if any(weights) else None


def _random_top(test: TreeCase, parent: list[int], rng: random.Random) -> int:
    """A random non-root node, or half the time a random ancestor of one (big subtrees too)."""
    v = rng.randrange(1, test.n)
    if rng.random() < 0.5:
        path = []
        while parent[v] >= 0:
            path.append(v)
            v = parent[v]
        v = rng.choice(path)
    return v


def _moved(case: Movcoin2Case, rng: random.Random, where: str) -> Movcoin2Case | None:
    """A random subtree hung under another node: a random one, a deepest one, or the root."""
    index = _pick_test(case, rng, minimum=3)
    if index is None:
        return None
    test = case.tests[index]
    order, parent = _rooted(test)
    v = _random_top(test, parent, rng)
    inside = _in_subtree(order, parent, v)
    outside = [u for u in range(test.n) if not inside[u]]
    if where == "root":
        target = 0
    elif where == "deepest":
        depth = [0] * test.n
        for u in order[1:]:
            depth[u] = depth[parent[u]] + 1
        deepest = max(depth[u] for u in outside)
        target = rng.choice([u for u in outside if depth[u] == deepest])
    else:
        target = rng.choice(outside)
    if target == parent[v]:
        return None
    old = {(parent[v] + 1, v + 1), (v + 1, parent[v] + 1)}
    edges = tuple((target + 1, v + 1) if edge in old else edge for edge in test.edges)
    return _with_test(case, index, TreeCase(test.n, edges, test.coins))


SHAPES = ("path", "star", "binary", "caterpillar")


def reshape_subtree(case: Movcoin2Case, rng: random.Random) -> Movcoin2Case | None:
    """A random subtree rebuilt as a path, star, binary tree or caterpillar over its own nodes
    in a random order (its top stays where it hangs)."""
    index = _pick_test(case, rng, minimum=3)
    if index is None:
        return None
    test = case.tests[index]
    order, parent = _rooted(test)
    top = _random_top(test, parent, rng)
    inside = _in_subtree(order, parent, top)
    nodes = [u for u in order if inside[u] and u != top]
    if len(nodes) < 2:
        return None
    rng.shuffle(nodes)
    chain = [top] + nodes
    shape = rng.choice(SHAPES)
    spine = max(1, len(chain) // 2)
    above = {"path": lambda i: i - 1, "star": lambda i: 0, "binary": lambda i: (i - 1) // 2,
             # caterpillar: a path over the first half, legs hung on it
             "caterpillar": lambda i: i - 1 if i < spine else rng.randrange(spine)}[shape]
    replacement = iter([(chain[above(i)] + 1, chain[i] + 1) for i in range(1, len(chain))])
    edges = tuple(next(replacement) if inside[u - 1] and inside[v - 1] else (u, v)
                  for u, v in test.edges)
    return _with_test(case, index, TreeCase(test.n, edges, test.coins))


def move_coin(case: Movcoin2Case, rng: random.Random) -> Movcoin2Case | None:
    """One coin moves to another node (or a coin appears or goes when there is none)."""
    index = _pick_test(case, rng)
    if index is None:  # a case without tests: no coin to move
        return None
    test = case.tests[index]
    coins = list(test.coins)
    holders = [i for i, c in enumerate(coins) if c]
    target = rng.randrange(test.n)
    if holders and rng.random() < 0.7:
        source = rng.choice(holders)
        if source == target or coins[target] >= MAX_C:
            return None
        coins[source] -= 1
        coins[target] += 1
    else:
        coins[target] = coins[target] ^ 1 if coins[target] < MAX_C else coins[target] - 1
    return _with_test(case, index, TreeCase(test.n, test.edges, tuple(coins)))


# a random subtree moved under a random node, a deepest node, the root; reshaped; a coin moved
MUTATIONS = (functools.partial(_moved, where="random"), functools.partial(_moved, where="deepest"),
             functools.partial(_moved, where="root"), reshape_subtree, move_coin)
