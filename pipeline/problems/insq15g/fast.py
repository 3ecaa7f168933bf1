"""The `fast` stage of insq15g: numpy, the XOR of the head counts of the cells at odd
distance (counted in cells.py)."""

from __future__ import annotations

import numpy as np

from pipeline.problems.insq15g.case import Case
from pipeline.problems.insq15g.cells import _cell_counts, _odd_mask


def solve_fast(case: Case) -> bool:
    odd = _odd_mask(case)
    counts = _cell_counts(case.xs[odd], case.ys[odd])
    if counts.shape[0] == 0:
        return False
    return int(np.bitwise_xor.reduce(counts)) != 0
