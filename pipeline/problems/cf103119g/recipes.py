"""Seeded case generators for cf103119g, and the growth ladder's case."""

from __future__ import annotations

import random

from pipeline.problems.cf103119g.case import MAX_M, MAX_N, Case
from pipeline.problems.model import Recipe, numpy_rng

# An induced 16-cycle of the 8-cube (a "coil"): consecutive values differ in one bit, others in
# at least two.  Walking it, each append flips the state of every last occurrence on it.
COIL = (0, 1, 3, 7, 15, 31, 63, 127, 255, 254, 252, 248, 240, 224, 192, 128)
GRAY = tuple(i ^ (i >> 1) for i in range(256))


def _small_pool(rng: random.Random) -> list[int]:
    kind = rng.randrange(5)
    if kind == 0:
        return list(range(4))
    if kind == 1:
        return list(range(8))
    if kind == 2:  # a random 3-dimensional subcube
        base = rng.randrange(256)
        bits = rng.sample(range(8), 3)
        return sorted({base ^ sum(1 << bits[b] for b in range(3) if mask >> b & 1)
                       for mask in range(8)})
    if kind == 3:  # a stretch of the coil
        start = rng.randrange(16)
        return [COIL[(start + i) % 16] for i in range(rng.randint(3, 6))]
    return rng.sample(range(16), rng.randint(2, 6))


def _random_ops(rng: random.Random, values: list[int], m: int, pool: list[int],
                p_append: float | None, p_last: float = 0.5) -> list[tuple[int, int]]:
    """m operations, each an append with probability p_append (None: every other one, from
    the first); queries hit the last occurrence of some value with probability p_last."""
    last = {v: i for i, v in enumerate(values)}
    length = len(values)
    ops = []
    for t in range(m):
        append = t % 2 == 0 if p_append is None else rng.random() < p_append
        if append:
            v = rng.choice(pool)
            ops.append((1, v))
            last[v] = length
            length += 1
        elif rng.random() < p_last:
            ops.append((2, last[rng.choice(list(last))] + 1))
        else:
            ops.append((2, rng.randint(1, length)))
    return ops


def _make_random(rng: random.Random, n: int, m: int, pool: list[int],
                 p_append: float | None) -> Case:
    values = [rng.choice(pool) for _ in range(n)]
    return Case(tuple(values), tuple(_random_ops(rng, values, m, pool, p_append)))


def _tiny(rng: random.Random) -> Case:
    pool = _small_pool(rng)
    return _make_random(rng, rng.randint(1, 8), rng.randint(1, 10), pool, rng.random())


def _queries_only(rng: random.Random) -> Case:
    n = rng.randint(1, 14)
    values = [rng.choice(_small_pool(rng)) for _ in range(n)]
    ops = [(2, k) for k in range(1, n + 1)]
    ops += [(2, rng.randint(1, n)) for _ in range(rng.randint(0, 5))]
    return Case(tuple(values), tuple(ops))


def _all_equal(rng: random.Random) -> Case:
    v = rng.randrange(256)
    n = rng.randint(1, 10)
    return _make_random(rng, n, rng.randint(1, 20), [v], 0.5)


def _single_element(rng: random.Random) -> Case:
    pool = _small_pool(rng)
    v = rng.choice(pool)
    if rng.random() < 0.3:
        return Case((v,), ((2, 1),))
    return Case((v,), tuple(_random_ops(rng, [v], rng.randint(1, 12), pool, 0.5)))


def _no_queries(rng: random.Random) -> Case:
    pool = _small_pool(rng)
    n = rng.randint(1, 10)
    return Case(tuple(rng.choice(pool) for _ in range(n)),
                tuple((1, rng.choice(pool)) for _ in range(rng.randint(1, 10))))


def _coil_walk(rng: random.Random, n: int, m: int) -> Case:
    """Values walk the coil; after every append, query the last occurrences of coil values."""
    start = rng.randrange(16)
    values = [COIL[(start + i) % 16] for i in range(n)]
    last = {v: i for i, v in enumerate(values)}
    step = n
    ops: list[tuple[int, int]] = []
    length = n
    while len(ops) < m:
        v = COIL[(start + step) % 16]
        step += 1
        ops.append((1, v))
        last[v] = length
        length += 1
        for _ in range(rng.randint(1, 3)):
            if len(ops) < m:
                ops.append((2, last[rng.choice(list(last))] + 1))
    return Case(tuple(values), tuple(ops[:m]))


def _family_alternating(rng: random.Random) -> Case:
    base = rng.randrange(256)
    bits = rng.sample(range(8), rng.randint(3, 6))
    pool = sorted({base ^ sum(1 << b for i, b in enumerate(bits) if mask >> i & 1)
                   for mask in range(1 << len(bits))})
    return _make_random(rng, rng.randint(50, 400), rng.randint(100, 800), pool, None)


def _alternating_ops(rng: random.Random, values: list[int], m: int, gen) -> list:
    """Appends of random bytes alternating with queries (half on last occurrences)."""
    appended = iter(gen.integers(0, 256, (m + 1) // 2).tolist())
    last = [-1] * 256
    for i, v in enumerate(values):
        last[v] = i
    length = len(values)
    ops = []
    for t in range(m):
        if t % 2 == 0:
            v = next(appended)
            ops.append((1, v))
            last[v] = length
            length += 1
        elif rng.random() < 0.5:
            v = rng.randrange(256)
            while last[v] < 0:
                v = rng.randrange(256)
            ops.append((2, last[v] + 1))
        else:
            ops.append((2, rng.randint(1, length)))
    return ops


def _max_alternating_case(rng: random.Random) -> Case:
    gen = numpy_rng(rng)
    values = gen.integers(0, 256, MAX_N).tolist()
    return Case(tuple(values), tuple(_alternating_ops(rng, values, MAX_M, gen)))


def _max_adversarial(rng: random.Random) -> Case:
    """All 256 values present (Gray code); appends walk the coil, each flipping every coil
    value, and every query asks about a last occurrence (a full recomputation)."""
    shift = rng.randrange(256)
    values = [GRAY[(shift + i) % 256] for i in range(MAX_N)]
    last = [0] * 256
    for i, v in enumerate(values):
        last[v] = i
    length = MAX_N
    start = rng.randrange(16)
    ops = []
    for t in range(MAX_M):
        if t % 2 == 0:
            v = COIL[(start + t // 2) % 16]
            ops.append((1, v))
            last[v] = length
            length += 1
        else:
            v = COIL[rng.randrange(16)] if rng.random() < 0.5 else rng.randrange(256)
            ops.append((2, last[v] + 1))
    return Case(tuple(values), tuple(ops))


def _max_all_equal(rng: random.Random) -> Case:
    v = rng.randrange(256)
    length = MAX_N
    ops = []
    for t in range(MAX_M):
        if t % 2 == 0:
            ops.append((1, v))
            length += 1
        elif rng.random() < 0.5:
            ops.append((2, length))
        else:
            ops.append((2, rng.randint(1, length)))
    return Case((v,) * MAX_N, tuple(ops))


def _max_queries_only(rng: random.Random) -> Case:
    gen = numpy_rng(rng)
    values = gen.integers(0, 16, MAX_N).tolist()
    last = {v: i for i, v in enumerate(values)}
    present = sorted(last)
    ops = [(2, last[rng.choice(present)] + 1) if rng.random() < 0.5
           else (2, rng.randint(1, MAX_N)) for _ in range(MAX_M)]
    return Case(tuple(values), tuple(ops))


RECIPES = (
    Recipe("tiny", "tiny", "n <= 8, m <= 10, values from a small pool (0..3, 0..7, a 3-cube, "
           "a stretch of the coil, a few of 0..15), random appends and queries", _tiny),
    Recipe("queries-only", "edge", "no appends: every position queried, then a few more",
           _queries_only),
    Recipe("all-equal", "edge", "one value everywhere, appends of it and queries", _all_equal),
    Recipe("single-element", "edge", "n = 1, sometimes the single query 2 1", _single_element),
    Recipe("no-queries", "edge", "appends only: the output is empty", _no_queries),
    Recipe("coil-flip", "edge", "values walk an induced 16-cycle of the cube; each append "
           "flips every last occurrence on it (winning -> losing too)",
           lambda rng: _coil_walk(rng, rng.randint(1, 17), rng.randint(1, 40))),
    Recipe("alternating", "family", "n <= 400, m <= 800, append/query alternating, values in "
           "a random 3..6-dimensional subcube", _family_alternating),
    Recipe("values-dense", "family", "n, m <= 1000, values 0..15, random mix",
           lambda rng: _make_random(rng, rng.randint(100, 1000), rng.randint(100, 1000),
                                    list(range(16)), rng.uniform(0.2, 0.8))),
    Recipe("coil-walk", "family", "n <= 300, m <= 600 walking the 16-cycle, queries on last "
           "occurrences", lambda rng: _coil_walk(rng, rng.randint(20, 300), rng.randint(100, 600))),
    Recipe("max-alternating", "max", "n = m = 2e5, random bytes, append/query alternating",
           _max_alternating_case),
    Recipe("max-adversarial", "max", "n = m = 2e5, all 256 values present, appends walk the "
           "coil (each flips 16 states), every query on a last occurrence", _max_adversarial),
    Recipe("max-all-equal", "max", "n = m = 2e5, one value, append/query alternating",
           _max_all_equal),
    Recipe("max-queries-only", "max", "n = m = 2e5, values 0..15, queries only",
           _max_queries_only),
)


def growth_case(size: int, seed: int) -> Case:
    """The growth ladder's case: n = m = size / 2, as `max-alternating`."""
    import numpy as np

    gen = np.random.default_rng(seed)
    n = max(1, size // 2)
    values = gen.integers(0, 256, n).tolist()
    ops = _alternating_ops(random.Random(seed), values, size - n, gen)
    return Case(tuple(values), tuple(ops))
