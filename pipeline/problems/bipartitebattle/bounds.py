"""bipartitebattle's input bounds, as its parser (`case.py`) enforces them, for constraint
coverage."""

from __future__ import annotations

from pipeline.problems.bipartitebattle.case import MAX_N, MAX_SIDE
from pipeline.problems.model import Bound, spread

BOUNDS = (
    Bound("N", 1, MAX_N, lambda case: (case.n, case.n)),
    Bound("a_i, b_i", 1, MAX_SIDE,
          lambda case: spread(side for graph in case.graphs for side in graph)),
)
