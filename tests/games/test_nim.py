"""Nim helpers: mex, Nim sums and lowest set bits."""

import pytest

from pipeline.games import lowbit, mex, nim_sum


def test_mex_is_the_least_missing_non_negative_integer():
    assert mex([]) == 0
    assert mex([1, 2]) == 0
    assert mex([0, 1, 3]) == 2
    assert mex({0, 1, 2}) == 3


def test_nim_sum_is_xor():
    assert nim_sum([]) == 0
    assert nim_sum([3, 5, 6]) == 0
    assert nim_sum([1, 2, 4]) == 7


def test_lowbit():
    assert [lowbit(x) for x in range(1, 13)] == [1, 2, 1, 4, 1, 2, 1, 8, 1, 2, 1, 4]
    assert lowbit(10**18) == 2**18
    with pytest.raises(ValueError):
        lowbit(0)
