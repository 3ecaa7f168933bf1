"""Shrink passes and hunt mutations of bipartitebattle (structured edits of a `BattleCase`)."""

from __future__ import annotations

import random
from collections.abc import Iterator

from pipeline.problems.bipartitebattle.case import MAX_SIDE, BattleCase
from pipeline.problems.edits import lower_int, removals, replaced


def drop_graphs(case: BattleCase) -> Iterator[BattleCase]:
    """Remove runs of graphs (halves first, ..., single graphs)."""
    for removed in removals(case.n, minimum_kept=1):
        yield BattleCase(case.graphs[:removed.start] + case.graphs[removed.stop:])


def lower_sides(case: BattleCase) -> Iterator[BattleCase]:
    """Every side of every graph lowered towards 1."""
    for i, (a, b) in enumerate(case.graphs):
        for smaller in lower_int(a, 1):
            yield BattleCase(replaced(case.graphs, i, (smaller, b)))
        for smaller in lower_int(b, 1):
            yield BattleCase(replaced(case.graphs, i, (a, smaller)))


SHRINKS = (drop_graphs, lower_sides)


# -- hunt mutations -------------------------------------------------------------------------------

def resize_side(case: BattleCase, rng: random.Random) -> BattleCase | None:
    """One side becomes a random size: small, huge, or near the other side."""
    i = rng.randrange(case.n)
    a, b = case.graphs[i]
    value = rng.choice((rng.randint(1, 10), rng.randint(1, MAX_SIDE),
                        max(1, b + rng.randint(-2, 2))))
    return BattleCase(replaced(case.graphs, i, (min(value, MAX_SIDE), b)))


def copy_graph(case: BattleCase, rng: random.Random) -> BattleCase | None:
    if case.n < 2:
        return None
    i, j = rng.sample(range(case.n), 2)
    return BattleCase(replaced(case.graphs, j, case.graphs[i]))


MUTATIONS = (resize_side, copy_graph)
