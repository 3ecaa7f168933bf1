"""The `fast` stage of insq15g: the XOR of the head counts of the cells at odd distance, by
native code on a case read natively (native.cpp), else by NumPy (cells.py); both the same.
"""

from __future__ import annotations

from pipeline.problems.insq15g import native
from pipeline.problems.insq15g.case import Case
from pipeline.problems.insq15g.cells import _cell_counts, _odd_mask


def solve_fast(case: Case) -> bool:
    if case.packed is not None and native.functions() is not None:
        return native.solve(case.packed)
    return solve_numpy(case)


def solve_numpy(case: Case) -> bool:
    import numpy as np

    odd = _odd_mask(case.xs, case.ys, case.m)
    counts = _cell_counts(case.xs[odd], case.ys[odd])
    if counts.shape[0] == 0:
        return False
    return int(np.bitwise_xor.reduce(counts)) != 0
