"""cf103119g's input bounds, as its parser (`case.py`) enforces them, for constraint
coverage."""

from __future__ import annotations

from pipeline.problems.cf103119g.case import MAX_M, MAX_N, MAX_VALUE
from pipeline.problems.model import Bound, spread

BOUNDS = (
    Bound("n", 1, MAX_N, lambda case: (case.n, case.n)),
    Bound("m", 1, MAX_M, lambda case: (case.m, case.m)),
    Bound("A_i and appended k", 0, MAX_VALUE,
          lambda case: spread([*case.values, *(k for op, k in case.ops if op == 1)])),
)
