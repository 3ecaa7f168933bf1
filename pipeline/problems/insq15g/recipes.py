"""Seeded case generators for insq15g, and the growth ladder's case."""

from __future__ import annotations

import random

from pipeline.problems.insq15g.case import MAX_PEOPLE, MAX_SIDE, Case, _cell_counts
from pipeline.problems.model import Recipe, numpy_rng


def _cell(rng: random.Random, n: int, m: int) -> tuple[int, int]:
    return rng.randint(1, n), rng.randint(1, m)


def _near_corner(rng: random.Random, n: int, m: int, reach: int) -> tuple[int, int]:
    """A random cell within `reach` steps (up to) of the corner."""
    dx = rng.randint(0, min(reach, n - 1))
    dy = rng.randint(0, min(reach - dx, m - 1))
    return 1 + dx, m - dy


def make_tiny(rng: random.Random) -> Case:
    n, m = rng.randint(1, 3), rng.randint(1, 3)
    p = rng.randint(1, 4)
    if rng.random() < 0.15:
        n, m, p = rng.randint(1, 4), rng.randint(1, 4), rng.randint(1, 3)
    if rng.random() < 0.3:  # crowd a few cells so that head counts matter
        cells = [_cell(rng, n, m) for _ in range(rng.randint(1, 2))]
        people = [rng.choice(cells) for _ in range(p)]
    else:
        people = [_cell(rng, n, m) for _ in range(p)]
    return Case.of(n, m, people)


def make_one_at_target(rng: random.Random) -> Case:
    n = rng.choice([1, 2, 5, rng.randint(1, 10**18)])
    m = rng.choice([1, 2, 5, rng.randint(1, 10**18)])
    p = rng.randint(1, 5)
    people = [(1, m)] * p
    if rng.random() < 0.5:  # plus one person a step or two away
        people.append(_near_corner(rng, n, m, 2))
        rng.shuffle(people)
    return Case.of(n, m, people)


def make_all_on_one_cell(rng: random.Random) -> Case:
    n, m = rng.randint(1, 4), rng.randint(1, 4)
    p = rng.randint(1, 7)
    cell = _near_corner(rng, n, m, 2) if rng.random() < 0.7 else _cell(rng, n, m)
    if rng.random() < 0.2:
        n, m = rng.randint(1, 10**18), rng.randint(1, 10**18)
        cell = _cell(rng, n, m)
    return Case.of(n, m, [cell] * p)


def make_line(row: bool):
    """N = 1 (a single row) or M = 1, the other side up to 7, 1..4 people."""
    def make(rng: random.Random) -> Case:
        side = rng.randint(1, 7)
        cells = [rng.randint(1, side) for _ in range(rng.randint(1, 4))]
        n, m = (1, side) if row else (side, 1)
        return Case.of(n, m, [(1, c) if row else (c, 1) for c in cells])
    return make


def make_huge_grid(rng: random.Random) -> Case:
    n = m = MAX_SIDE
    p = rng.randint(1, 4)
    if rng.random() < 0.6:
        people = [_near_corner(rng, n, m, 3) for _ in range(p)]
    else:
        people = [rng.choice([(n, 1), (1, 1), (n, m), _cell(rng, n, m)]) for _ in range(p)]
    return Case.of(n, m, people)


def make_two_steps_away(rng: random.Random) -> Case:
    n = rng.choice([1, 2, 3, 4, MAX_SIDE])
    m = rng.choice([1, 2, 3, 4, MAX_SIDE])
    if n + m < 4:
        n = 3
    cells = [(1 + dx, m - (2 - dx)) for dx in range(3) if dx <= n - 1 and 2 - dx <= m - 1]
    p = rng.randint(1, 5)
    people = [rng.choice(cells) for _ in range(p)]
    if rng.random() < 0.4:  # and sometimes a few people on the corner
        people += [(1, m)] * rng.randint(1, 2)
    return Case.of(n, m, people)


def make_random_medium(rng: random.Random) -> Case:
    n = rng.choice([rng.randint(1, 400), rng.randint(1, 10**18)])
    m = rng.choice([rng.randint(1, 400), rng.randint(1, 10**18)])
    p = rng.randint(1, 3000)
    return Case.of(n, m, [_cell(rng, n, m) for _ in range(p)])


def make_clustered_medium(rng: random.Random) -> Case:
    """Few distinct cells with many people each, so that the XOR of head counts decides."""
    n = rng.choice([rng.randint(1, 300), rng.randint(1, 10**18)])
    m = rng.choice([rng.randint(1, 300), rng.randint(1, 10**18)])
    cells = [_cell(rng, n, m) for _ in range(rng.randint(1, 8))]
    p = rng.randint(1, 3000)
    return Case.of(n, m, [rng.choice(cells) for _ in range(p)])


def _huge_side(rng: random.Random) -> int:
    return rng.choice([MAX_SIDE, rng.randint(10**17, MAX_SIDE)])


def _make_distinct(p: int):
    def make(rng: random.Random) -> Case:
        import numpy as np

        gen = numpy_rng(rng)
        if rng.random() < 0.5:  # a huge grid
            n, m = _huge_side(rng), _huge_side(rng)
            xs = gen.integers(1, n, size=p, endpoint=True, dtype=np.int64)
            ys = gen.integers(1, m, size=p, endpoint=True, dtype=np.int64)
            if _cell_counts(xs, ys).shape[0] != p:  # practically never: drop repeats, top up
                seen = set(zip(xs.tolist(), ys.tolist()))
                while len(seen) < p:
                    seen.add(_cell(rng, n, m))
                cells = sorted(seen)
                xs = np.array([x for x, _ in cells], dtype=np.int64)
                ys = np.array([y for _, y in cells], dtype=np.int64)
            order = gen.permutation(p)
            return Case(n, m, xs[order], ys[order])
        # a tight grid with barely more cells than people: P distinct cells out of N * M
        n = rng.randint(1, p)
        m = -(-p // n) + rng.randint(0, 3)
        chosen = gen.choice(n * m, size=p, replace=False).astype(np.int64)
        return Case(n, m, chosen // m + 1, chosen % m + 1)
    return make


def _make_one_cell(p: int):
    def make(rng: random.Random) -> Case:
        import numpy as np

        n, m = _huge_side(rng), _huge_side(rng)
        x, y = _cell(rng, n, m)
        return Case(n, m, np.full(p, x, dtype=np.int64), np.full(p, y, dtype=np.int64))
    return make


def make_max_random(rng: random.Random) -> Case:
    """10^6 people in a huge grid: uniform cells, or drawn from a pool of repeated cells."""
    import numpy as np

    gen = numpy_rng(rng)
    n, m = _huge_side(rng), _huge_side(rng)
    p = MAX_PEOPLE
    if rng.random() < 0.5:
        xs = gen.integers(1, n, size=p, endpoint=True, dtype=np.int64)
        ys = gen.integers(1, m, size=p, endpoint=True, dtype=np.int64)
    else:
        pool = rng.choice([1, 2, 100, 10_000, 300_000])
        px = gen.integers(1, n, size=pool, endpoint=True, dtype=np.int64)
        py = gen.integers(1, m, size=pool, endpoint=True, dtype=np.int64)
        pick = gen.integers(0, pool, size=p)
        xs, ys = px[pick], py[pick]
    return Case(n, m, xs, ys)


RECIPES = (
    Recipe("tiny", "tiny", "grids up to 3x3 (sometimes 4x4), 1..4 people, sometimes crowded",
           make_tiny),
    Recipe("one-at-target", "edge", "people on the corner (1, M), sometimes plus one near it",
           make_one_at_target),
    Recipe("all-on-one-cell", "edge", "up to 7 people on one cell", make_all_on_one_cell),
    Recipe("single-row", "edge", "N = 1, M up to 7", make_line(row=True)),
    Recipe("single-column", "edge", "M = 1, N up to 7", make_line(row=False)),
    Recipe("huge-grid", "edge", "N = M = 10^18 with 1..4 people, mostly near the corner",
           make_huge_grid),
    Recipe("two-steps-away", "edge", "everyone two steps from the corner (or on it): always No",
           make_two_steps_away),
    Recipe("random-medium", "family", "up to 3000 people on uniform cells of a small or huge "
           "grid", make_random_medium),
    Recipe("clustered-medium", "family", "up to 3000 people on at most 8 distinct cells",
           make_clustered_medium),
    Recipe("max-1e5-distinct", "max", "10^5 people on distinct cells of a huge or tight grid",
           _make_distinct(10**5)),
    Recipe("max-1e5-one-cell", "max", "10^5 people on one cell of a huge grid",
           _make_one_cell(10**5)),
    Recipe("max-1e6-distinct", "max", "10^6 people on distinct cells of a huge or tight grid",
           _make_distinct(MAX_PEOPLE)),
    Recipe("max-1e6-one-cell", "max", "10^6 people on one cell of a huge grid",
           _make_one_cell(MAX_PEOPLE)),
    Recipe("max-1e6-random", "max", "10^6 people on uniform cells of a huge grid, or drawn "
           "from a pool of repeated cells", make_max_random),
)


def growth_case(size: int, seed: int) -> Case:
    """The growth ladder's case: `size` people on uniform cells of a 10^18 x 10^18 grid."""
    import numpy as np

    gen = np.random.default_rng(seed)
    side = 10**18
    return Case(side, side, gen.integers(1, side, size=size, endpoint=True, dtype=np.int64),
                gen.integers(1, side, size=size, endpoint=True, dtype=np.int64))
