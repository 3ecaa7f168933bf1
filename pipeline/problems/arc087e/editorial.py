"""The `editorial` stage of arc087e: the seed editorial's divide-by-4 rule for the Grundy
value of a free subtree, over the trie's free subtree heights."""

from __future__ import annotations

from pipeline.problems.arc087e.case import Case
from pipeline.problems.arc087e.trie import free_subtree_heights


def editorial_value(h: int) -> int:
    """The seed's rule for the Grundy value of a free subtree with h >= 1 levels."""
    v = h - 1  # the editorial counts heights from 0 (a single node)
    factor = 1
    while v % 4 == 3:
        v //= 4
        factor *= 4
    return 2 * factor if v % 4 == 1 else factor


def solve_editorial(case: Case) -> bool:
    total = 0
    for h, count in free_subtree_heights(case).items():
        if count & 1:
            total ^= editorial_value(h)
    return total != 0
