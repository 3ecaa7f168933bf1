"""Shrink passes and hunt mutations of arc087e (structured edits of a `Case`).

An edit may make the set not prefix-free (a cut string becomes a prefix of another); the
problem's parser rejects those candidates and the shrink loop drops them.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from pipeline.problems.arc087e.case import Case
from pipeline.problems.edits import lower_int, removals, replaced


def drop_strings(case: Case) -> Iterator[Case]:
    """Remove runs of strings (halves first, ..., single strings)."""
    for removed in removals(case.n, minimum_kept=1):
        yield Case(case.L, case.strings[:removed.start] + case.strings[removed.stop:])


def cut_strings(case: Case) -> Iterator[Case]:
    """Every string cut to its first half, by its last character, or with a 1 turned 0."""
    for i, s in enumerate(case.strings):
        shorter = dict.fromkeys(t for t in (s[:len(s) // 2], s[:-1]) if t)
        for t in shorter:
            yield Case(case.L, replaced(case.strings, i, t))
        for j, ch in enumerate(s):
            if ch == "1":
                yield Case(case.L, replaced(case.strings, i, s[:j] + "0" + s[j + 1:]))


def lower_l(case: Case) -> Iterator[Case]:
    """L lowered towards the longest string's length."""
    for smaller in lower_int(case.L, max(map(len, case.strings))):
        yield Case(smaller, case.strings)


SHRINKS = (drop_strings, cut_strings, lower_l)


# -- hunt mutations -------------------------------------------------------------------------------

def lengthen_string(case: Case, rng: random.Random) -> Case | None:
    """One string gets a character longer while another (when there is one) gets one shorter,
    so the total length stays."""
    i = rng.randrange(case.n)
    strings = list(case.strings)
    if len(strings[i]) >= case.L:
        return None
    strings[i] += rng.choice("01")
    others = [j for j in range(case.n) if j != i and len(strings[j]) > 1]
    if others:
        j = rng.choice(others)
        strings[j] = strings[j][:-1]
    return Case(case.L, tuple(strings))


def flip_character(case: Case, rng: random.Random) -> Case | None:
    i = rng.randrange(case.n)
    s = case.strings[i]
    j = rng.randrange(len(s))
    flipped = s[:j] + ("1" if s[j] == "0" else "0") + s[j + 1:]
    return Case(case.L, replaced(case.strings, i, flipped))


def swap_strings(case: Case, rng: random.Random) -> Case | None:
    """Two strings trade places in the input (the order of a sort's input)."""
    if case.n < 2:
        return None
    i, j = rng.sample(range(case.n), 2)
    strings = list(case.strings)
    strings[i], strings[j] = strings[j], strings[i]
    return Case(case.L, tuple(strings))


MUTATIONS = (lengthen_string, flip_character, swap_strings)
