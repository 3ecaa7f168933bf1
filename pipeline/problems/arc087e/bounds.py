"""arc087e's input bounds, as its parser (`case.py`) enforces them, for constraint coverage."""

from __future__ import annotations

from pipeline.problems.arc087e.case import MAX_L, MAX_N, MAX_TOTAL, size
from pipeline.problems.model import Bound, spread

BOUNDS = (
    Bound("N", 1, MAX_N, lambda case: (case.n, case.n)),
    Bound("L", 1, MAX_L, lambda case: (case.L, case.L)),
    # |s_i| <= L, and the total caps it at 10^5
    Bound("|s_i|", 1, MAX_TOTAL, lambda case: spread(map(len, case.strings))),
    Bound("|s_1| + ... + |s_N|", 1, MAX_TOTAL, lambda case: (size(case), size(case))),
)
