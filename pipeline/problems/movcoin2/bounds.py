"""movcoin2's input bounds, as its parser (`case.py`) enforces them, for constraint coverage."""

from __future__ import annotations

from pipeline.problems.model import Bound, spread
from pipeline.problems.movcoin2.case import MAX_C, MAX_N, MAX_SUM_N, MAX_T


def _sum(case) -> tuple[int, int]:
    total = sum(test.n for test in case.tests)
    return total, total


BOUNDS = (
    Bound("T", 1, MAX_T, lambda case: (len(case.tests), len(case.tests))),
    Bound("N of a test", 1, MAX_N, lambda case: spread(test.n for test in case.tests)),
    Bound("sum of N", 1, MAX_SUM_N, _sum),
    Bound("c_i", 0, MAX_C, lambda case: spread(c for test in case.tests for c in test.coins)),
)
