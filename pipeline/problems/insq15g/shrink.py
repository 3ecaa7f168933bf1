"""Shrink passes and hunt mutations of insq15g (structured edits of a `Case`). Only distances
to the corner matter, so dropping columns left of everybody and reflecting the grid keep the
game. NumPy is imported inside the passes: registering the problem must not load it.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from pipeline.problems.edits import lower_int, removals
from pipeline.problems.insq15g.case import Case


def _with_people(case: Case, xs, ys) -> Case:
    import numpy as np
    return Case(case.n, case.m, np.asarray(xs), np.asarray(ys))


def drop_people(case: Case) -> Iterator[Case]:
    """Remove runs of people (halves first, ..., single people)."""
    import numpy as np
    for removed in removals(case.p, minimum_kept=1):
        keep = np.ones(case.p, dtype=bool)
        keep[removed.start:removed.stop] = False
        yield _with_people(case, case.xs[keep], case.ys[keep])


def drop_cells(case: Case) -> Iterator[Case]:
    """Keep only the people of one cell; then remove everybody on runs of the distinct cells."""
    import numpy as np
    cells = list(dict.fromkeys(zip(case.xs.tolist(), case.ys.tolist())))
    if len(cells) > 1:
        for x, y in cells:
            on_cell = (case.xs == x) & (case.ys == y)
            yield _with_people(case, case.xs[on_cell], case.ys[on_cell])
    for removed in removals(len(cells), minimum_kept=1):
        gone = set(cells[removed.start:removed.stop])
        keep = np.array([cell not in gone for cell in zip(case.xs.tolist(), case.ys.tolist())])
        yield _with_people(case, case.xs[keep], case.ys[keep])


def shrink_grid(case: Case) -> Iterator[Case]:
    """Fewer rows, fewer columns left or right of everybody, the grid reflected."""
    lowest = int(case.xs.max())
    for rows in lower_int(case.n, lowest):
        yield Case(rows, case.m, case.xs, case.ys)
    for columns in lower_int(case.m, int(case.ys.max())):
        yield Case(case.n, columns, case.xs, case.ys)
    free = int(case.ys.min()) - 1
    for columns in dict.fromkeys((free, free // 2, 1)):
        if 0 < columns <= free:
            yield Case(case.n, case.m - columns, case.xs, case.ys - columns)
    yield Case(case.m, case.n, case.m - case.ys + 1, case.n - case.xs + 1)


def move_people(case: Case) -> Iterator[Case]:
    """Every person moved to a lower row or column number (towards 1)."""
    for i in range(case.p):
        x, y = int(case.xs[i]), int(case.ys[i])
        for smaller in lower_int(x, 1):
            xs = case.xs.copy()
            xs[i] = smaller
            yield _with_people(case, xs, case.ys)
        for smaller in lower_int(y, 1):
            ys = case.ys.copy()
            ys[i] = smaller
            yield _with_people(case, case.xs, ys)


def move_cells(case: Case) -> Iterator[Case]:
    """Everybody on one cell moved together to a lower row or column number."""
    import numpy as np
    cells = dict.fromkeys(zip(case.xs.tolist(), case.ys.tolist()))
    for x, y in cells:
        on_cell = (case.xs == x) & (case.ys == y)
        for smaller in lower_int(x, 1):
            yield _with_people(case, np.where(on_cell, smaller, case.xs), case.ys)
        for smaller in lower_int(y, 1):
            yield _with_people(case, case.xs, np.where(on_cell, smaller, case.ys))


SHRINKS = (drop_people, drop_cells, shrink_grid, move_cells, move_people)


# -- hunt mutations -------------------------------------------------------------------------------

def cluster_people(case: Case, rng: random.Random) -> Case | None:
    """A few people join the cell of another person."""
    if case.p < 2:
        return None
    target = rng.randrange(case.p)
    movers = [rng.randrange(case.p) for _ in range(rng.randint(1, max(1, case.p // 20)))]
    xs, ys = case.xs.copy(), case.ys.copy()
    xs[movers], ys[movers] = case.xs[target], case.ys[target]
    return _with_people(case, xs, ys)


def scatter_person(case: Case, rng: random.Random) -> Case | None:
    """One person moves to a random cell."""
    i = rng.randrange(case.p)
    xs, ys = case.xs.copy(), case.ys.copy()
    xs[i], ys[i] = rng.randint(1, case.n), rng.randint(1, case.m)
    return _with_people(case, xs, ys)


def step_person(case: Case, rng: random.Random) -> Case | None:
    """One person moves one cell in any direction inside the grid."""
    i = rng.randrange(case.p)
    dx, dy = rng.choice(((1, 0), (-1, 0), (0, 1), (0, -1)))
    x, y = int(case.xs[i]) + dx, int(case.ys[i]) + dy
    if not (1 <= x <= case.n and 1 <= y <= case.m):
        return None
    xs, ys = case.xs.copy(), case.ys.copy()
    xs[i], ys[i] = x, y
    return _with_people(case, xs, ys)


MUTATIONS = (cluster_people, scatter_person, step_person)
