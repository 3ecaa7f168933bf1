"""arc087e's input bounds, as its parser (`case.py`) enforces them, for constraint coverage."""

from __future__ import annotations

from pipeline.problems.arc087e.case import MAX_L, MAX_N, MAX_TOTAL
from pipeline.problems.model import Bound


def _lengths(case) -> tuple[int, int]:
    lengths = [len(s) for s in case.strings]
    return min(lengths), max(lengths)


def _total(case) -> tuple[int, int]:
    total = sum(len(s) for s in case.strings)
    return total, total


BOUNDS = (
    Bound("N", 1, MAX_N, lambda case: (case.n, case.n)),
    Bound("L", 1, MAX_L, lambda case: (case.L, case.L)),
    Bound("|s_i|", 1, MAX_TOTAL, _lengths),  # |s_i| <= L, and the total caps it at 10^5
    Bound("|s_1| + ... + |s_N|", 1, MAX_TOTAL, _total),
)
