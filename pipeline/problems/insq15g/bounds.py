"""insq15g's input bounds, as its parser (`case.py`) enforces them, for constraint coverage."""

from __future__ import annotations

from pipeline.problems.insq15g.case import MAX_PEOPLE, MAX_SIDE
from pipeline.problems.model import Bound

BOUNDS = (
    Bound("N", 1, MAX_SIDE, lambda case: (case.n, case.n)),
    Bound("M", 1, MAX_SIDE, lambda case: (case.m, case.m)),
    Bound("P", 1, MAX_PEOPLE, lambda case: (len(case.xs), len(case.xs))),
)
