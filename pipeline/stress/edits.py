"""Small helpers that the problems' shrink passes and hunt mutations are built from.

Shrink passes yield candidates boldest first, in the manner of delta debugging: remove half of
a list, then each quarter, ..., then each single item; lower a number to the floor, then to
floor + 1, to half, to one less. A pass may yield candidates that are invalid or not simpler:
the shrink loop renders, validates and orders every candidate itself.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")


def lower_int(value: int, floor: int = 0) -> Iterator[int]:
    """Smaller numbers to try instead of `value`, boldest first, each at least `floor`."""
    seen: set[int] = set()
    for candidate in (floor, floor + 1, value // 2, value - 1):
        if floor <= candidate < value and candidate not in seen:
            seen.add(candidate)
            yield candidate


def removals(length: int, minimum_kept: int = 0) -> Iterator[range]:
    """Ranges of indices to remove from a list of `length` items: the first half, the second,
    then each quarter, ..., then each single item (never leaving fewer than `minimum_kept`)."""
    seen: set[tuple[int, int]] = set()
    size = length
    while size >= 1:
        for start in range(0, length, size):
            stop = min(start + size, length)
            if (start, stop) not in seen and length - (stop - start) >= minimum_kept:
                seen.add((start, stop))
                yield range(start, stop)
        if size == 1:
            break
        size = (size + 1) // 2


def without(items: Sequence[T], removed: range) -> tuple[T, ...]:
    """`items` with the indices of `removed` left out."""
    return tuple(items[:removed.start]) + tuple(items[removed.stop:])


def replaced(items: Sequence[T], index: int, value: T) -> tuple[T, ...]:
    """`items` with item `index` set to `value`."""
    return tuple(items[:index]) + (value,) + tuple(items[index + 1:])
