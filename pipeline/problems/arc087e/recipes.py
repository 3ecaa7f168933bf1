"""Seeded case generators for arc087e, and the growth ladder's case."""

from __future__ import annotations

import random

from pipeline.problems.arc087e.case import MAX_L, MAX_TOTAL, Case
from pipeline.problems.arc087e.stages import GRUNDY_MAX_L, _brute_refuses
from pipeline.problems.model import Recipe


def _random_bits(rng: random.Random, length: int) -> str:
    return format(rng.getrandbits(length), f"0{length}b") if length > 0 else ""


def _insertion_set(rng: random.Random, big_l: int, attempts: int, max_len: int) -> list[str]:
    """A random good set: try random strings, keep those compatible with the ones kept."""
    kept: list[str] = []
    for _ in range(attempts):
        t = _random_bits(rng, rng.randint(1, max_len))
        if all(not (t.startswith(s) or s.startswith(t)) for s in kept):
            kept.append(t)
    if not kept:
        kept.append(_random_bits(rng, rng.randint(1, max_len)))
    return kept


def _tree_set(rng: random.Random, max_len: int, budget: int, p_leaf: float,
              p_missing: float) -> list[str]:
    """A random good set grown top-down: each slot is a string, left empty, or split.

    The total length stays within `budget`; the set is never empty."""
    out: list[str] = []
    total = 0
    stack = ["1", "0"]
    while stack:
        p = stack.pop()
        r = rng.random()
        if total + len(p) > budget or r < p_missing:
            continue
        if len(p) == max_len or r < p_missing + p_leaf:
            out.append(p)
            total += len(p)
        else:
            stack += [p + "1", p + "0"]
    if not out:
        out.append(_random_bits(rng, rng.randint(1, max_len)))
    return out


def _pick_l(rng: random.Random, low: int) -> int:
    """A bound L >= low: often the minimum, a power of two or near one, or huge."""
    kinds = (lambda: low,
             lambda: low + rng.randint(1, 5),
             lambda: MAX_L,
             lambda: min(MAX_L, max(low, (1 << rng.randint(max(low, 1).bit_length(), 59))
                                    + rng.choice((-1, 0, 1)))),  # a power of two, or near one
             lambda: rng.randint(low, MAX_L),
             lambda: rng.randint(low, low + 1000),
             lambda: max(low, MAX_L - rng.randint(0, 10)))
    return kinds[rng.randrange(len(kinds))]()


def _case(rng: random.Random, strings: list[str], big_l: int) -> Case:
    strings = list(strings)
    rng.shuffle(strings)
    return Case(big_l, tuple(strings))


def _make_tiny(rng: random.Random) -> Case:
    for _ in range(50):
        big_l = rng.choice((1, 2, 2, 3, 3, 3, 4, 4, 4, 5, 6))
        if rng.random() < 0.5:
            strings = _insertion_set(rng, big_l, rng.randint(1, 3 * big_l), big_l)
        else:
            strings = _tree_set(rng, big_l, 10**9, rng.uniform(0.1, 0.6), rng.uniform(0, 0.4))
        case = _case(rng, strings, big_l)
        if _brute_refuses(case) is None:
            return case
    return _case(rng, _insertion_set(rng, 3, 6, 3), 3)


def _make_l_huge(rng: random.Random) -> Case:
    max_len = rng.choice((1, 3, 8, 40))
    strings = _insertion_set(rng, MAX_L, rng.randint(1, 3), max_len)
    return _case(rng, strings, MAX_L)


def _make_single(rng: random.Random) -> Case:
    length = rng.randint(1, 8)
    big_l = length + rng.choice((0, 0, 1, 2, 3)) if rng.random() < 0.7 else _pick_l(rng, length)
    return Case(big_l, (_random_bits(rng, length),))


def _complete_code(rng: random.Random, max_len: int) -> list[str]:
    """A random complete prefix code: every trie node that is not an end has two children."""
    out = []
    stack = ["1", "0"]
    while stack:
        p = stack.pop()
        if len(p) == max_len or rng.random() < 0.35:
            out.append(p)
        else:
            stack.extend((p + "1", p + "0"))
    return out


def _make_full_level(rng: random.Random) -> Case:
    if rng.random() < 0.5:
        m = rng.randint(1, 8)
        return _case(rng, [format(x, f"0{m}b") for x in range(2 ** m)], m)
    strings = _complete_code(rng, rng.randint(1, 8))
    low = max(map(len, strings))
    big_l = low + rng.choice((0, 0, 1, 2)) if rng.random() < 0.6 else _pick_l(rng, low)
    return _case(rng, strings, big_l)


def _make_random_medium(rng: random.Random) -> Case:
    if rng.random() < 0.5:
        max_len = rng.choice((10, 30, 60, 200))
        strings = _tree_set(rng, max_len, rng.randint(50, 3000), rng.uniform(0.05, 0.4),
                            rng.uniform(0.0, 0.4))
    else:
        max_len = rng.choice((5, 20, 100, 1000))
        strings = _insertion_set(rng, MAX_L, rng.randint(1, 60), max_len)
    low = max(map(len, strings))
    big_l = _pick_l(rng, low) if rng.random() < 0.6 else rng.randint(low, GRUNDY_MAX_L)
    return _case(rng, strings, big_l)


def _comb(rng: random.Random, k: int, with_end: bool) -> list[str]:
    """Teeth spine[:i] + flipped spine[i] for i < k, plus the spine itself if `with_end`."""
    spine = _random_bits(rng, k)
    flip = {"0": "1", "1": "0"}
    return [spine[:i] + flip[spine[i]] for i in range(k)] + ([spine] if with_end else [])


def _make_comb(rng: random.Random) -> Case:
    k = rng.randint(1, 150)
    strings = _comb(rng, k, rng.random() < 0.3)
    low = max(map(len, strings))
    big_l = _pick_l(rng, low) if rng.random() < 0.5 else rng.randint(low, min(GRUNDY_MAX_L,
                                                                               low + 3000))
    return _case(rng, strings, big_l)


def _make_balanced(rng: random.Random) -> Case:
    m = rng.randint(1, 11)
    everything = [format(x, f"0{m}b") for x in range(2 ** m)]
    strings = everything if rng.random() < 0.3 else rng.sample(everything,
                                                                rng.randint(1, 2 ** m))
    big_l = _pick_l(rng, m) if rng.random() < 0.5 else rng.randint(m, GRUNDY_MAX_L)
    return _case(rng, strings, big_l)


def _max_one_long(rng: random.Random, big_l: int | None) -> Case:
    s = _random_bits(rng, MAX_TOTAL)
    return Case(MAX_TOTAL if big_l is None else big_l, (s,))


def _max_comb(rng: random.Random, big_l: int | None) -> Case:
    k = 446  # 446 * 447 / 2 = 99 681 <= 10^5
    return _case(rng, _comb(rng, k, False), k if big_l is None else big_l)


def _max_balanced(rng: random.Random, big_l: int | None) -> Case:
    m = 13  # 7692 strings of length 13 (of 8192), total 99 996
    count = MAX_TOTAL // m
    strings = [format(x, f"0{m}b") for x in rng.sample(range(2 ** m), count)]
    return _case(rng, strings, m if big_l is None else big_l)


RECIPES = (
    Recipe("tiny", "tiny", "L <= 6 (mostly <= 4), random good sets within brute's state budget",
           _make_tiny),
    Recipe("l-one", "edge", "L = 1: {0}, {1} or {0, 1}",
           lambda rng: _case(rng, rng.choice((["0"], ["1"], ["0", "1"])), 1)),
    Recipe("l-huge", "edge", "L = 10^18 with one to three short or medium strings",
           _make_l_huge),
    Recipe("single-string", "edge", "N = 1, a string of length <= 8, L near its length or any",
           _make_single),
    Recipe("full-level", "edge", "all 2^m strings of length m with L = m, or a random complete "
           "prefix code (no free subtree at all: Bob)", _make_full_level),
    Recipe("random-medium", "family", "random good sets (total length up to 3000, strings up "
           "to 1000 long), L from the minimum to 10^18", _make_random_medium),
    Recipe("comb", "family", "teeth branching off a random spine of length <= 150",
           _make_comb),
    Recipe("balanced", "family", "a random subset (or all) of the strings of one length <= 11",
           _make_balanced),
    Recipe("max-one-long", "max", "one random string of length 10^5, L = 10^18",
           lambda rng: _max_one_long(rng, MAX_L)),
    Recipe("max-one-long-min-l", "max", "one random string of length 10^5, L = 10^5",
           lambda rng: _max_one_long(rng, None)),
    Recipe("max-comb", "max", "446 teeth off a random spine (total 99 681), L = 10^18",
           lambda rng: _max_comb(rng, MAX_L)),
    Recipe("max-comb-min-l", "max", "446 teeth off a random spine (total 99 681), L = 446",
           lambda rng: _max_comb(rng, None)),
    Recipe("max-balanced", "max", "7692 random strings of length 13 (total 99 996), L = 10^18",
           lambda rng: _max_balanced(rng, MAX_L)),
    Recipe("max-balanced-min-l", "max", "7692 random strings of length 13 (total 99 996), "
           "L = 13", lambda rng: _max_balanced(rng, None)),
)


def growth_case(size: int, seed: int) -> Case:
    """The growth ladder's case: distinct random strings of length 17, L = 20."""
    import numpy as np

    width = 17
    gen = np.random.default_rng(seed)
    picks = gen.choice(2 ** width, size=max(1, size // width), replace=False)
    return Case(20, tuple(format(int(x), f"0{width}b") for x in picks))
