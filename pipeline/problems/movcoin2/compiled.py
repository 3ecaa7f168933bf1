"""The numba-backed stages: `fast` and the known-wrong `tester-17bit` (kernels in kernels.py)."""

from __future__ import annotations

from itertools import chain

import numpy as np

from pipeline.problems.movcoin2.case import Movcoin2Case


def forest_arrays(case: Movcoin2Case):
    """All tests as one forest: (total, eu, ev, odd, starts, sizes), 0-based global ids."""
    sizes = np.array([test.n for test in case.tests], dtype=np.int64)
    starts = np.zeros(len(sizes), dtype=np.int64)
    np.cumsum(sizes[:-1], out=starts[1:])
    total = int(sizes.sum())
    edge_count = total - len(sizes)
    flat = np.fromiter(chain.from_iterable(chain.from_iterable(test.edges for test in case.tests)),
                       dtype=np.int64, count=2 * edge_count)
    shift = np.repeat(starts - 1, sizes - 1)
    eu = flat[0::2] + shift
    ev = flat[1::2] + shift
    odd = np.fromiter(chain.from_iterable(test.coins for test in case.tests),
                      dtype=np.uint8, count=total) & 1
    return total, eu, ev, odd, starts, sizes


def _solve(case: Movcoin2Case, bit_limit: int) -> list[int]:
    from pipeline.problems.movcoin2 import kernels  # numba only when a fast stage runs

    total, eu, ev, odd, starts, sizes = forest_arrays(case)
    answers, _ = kernels.forest_answers(total, eu, ev, odd, starts, sizes, bit_limit)
    return answers.tolist()


def fast_grundy(case: Movcoin2Case):
    """Grundy values of all nodes (tests concatenated in order), for tests and debugging."""
    from pipeline.problems.movcoin2 import kernels

    total, eu, ev, odd, starts, sizes = forest_arrays(case)
    return kernels.forest_answers(total, eu, ev, odd, starts, sizes, 63)[1]


def fast(case: Movcoin2Case) -> list[int]:
    return _solve(case, 63)


def tester_17bit(case: Movcoin2Case) -> list[int]:
    return _solve(case, 17)
