"""Helpers the shrink passes and hunt mutations are built from: candidates boldest first, as
in delta debugging. A pass may yield invalid or not simpler candidates: the shrink loop
validates and orders them itself.
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
    """Ranges of indices to remove from a list of `length` items, biggest first: the whole,
    each half, each quarter, ..., each item, and runs of every power of two (4 of 44 people);
    never leaving fewer than `minimum_kept`."""
    sizes = {1 << k for k in range(max(0, length.bit_length()))} | {length}
    size = length
    while size > 1:
        size = (size + 1) // 2
        sizes.add(size)
    seen: set[tuple[int, int]] = set()
    for size in sorted((s for s in sizes if 0 < s <= length), reverse=True):
        for start in range(0, length, size):
            stop = min(start + size, length)
            if (start, stop) not in seen and length - (stop - start) >= minimum_kept:
                seen.add((start, stop))
                yield range(start, stop)


def without(items: Sequence[T], removed: range) -> tuple[T, ...]:
    """`items` with the indices of `removed` left out."""
    return tuple(items[:removed.start]) + tuple(items[removed.stop:])


def replaced(items: Sequence[T], index: int, value: T) -> tuple[T, ...]:
    """`items` with item `index` set to `value`."""
    return tuple(items[:index]) + (value,) + tuple(items[index + 1:])
