"""movcoin2's input bounds, as its parser (`case.py`) enforces them, for constraint coverage."""

from __future__ import annotations

from pipeline.problems.model import Bound
from pipeline.problems.movcoin2.case import MAX_C, MAX_N, MAX_SUM_N, MAX_T


def _sizes(case) -> tuple[int, int]:
    sizes = [test.n for test in case.tests]
    return min(sizes), max(sizes)


def _sum(case) -> tuple[int, int]:
    total = sum(test.n for test in case.tests)
    return total, total


def _coins(case) -> tuple[int, int]:
    coins = [c for test in case.tests for c in test.coins]
    return min(coins), max(coins)


BOUNDS = (
    Bound("T", 1, MAX_T, lambda case: (len(case.tests), len(case.tests))),
    Bound("N of a test", 1, MAX_N, _sizes),
    Bound("sum of N", 1, MAX_SUM_N, _sum),
    Bound("c_i", 0, MAX_C, _coins),
)
