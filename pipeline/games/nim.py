"""Nim helpers: the mex of a set of Grundy values, Nim sums, lowest set bits."""

from __future__ import annotations

from collections.abc import Iterable
from functools import reduce
from operator import xor


def mex(values: Iterable[int]) -> int:
    """The minimum excludant: the least non-negative integer not among `values`."""
    seen = set(values)
    result = 0
    while result in seen:
        result += 1
    return result


def nim_sum(values: Iterable[int]) -> int:
    """XOR of all values: the Grundy value of a sum of independent games."""
    return reduce(xor, values, 0)


def lowbit(x: int) -> int:
    """The lowest set bit of a positive integer (lowbit(12) == 4)."""
    if x <= 0:
        raise ValueError(f"lowbit is defined for positive integers, got {x}")
    return x & -x
