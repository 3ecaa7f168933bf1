"""Helpers of the quick parse paths: buffers handed to native code, and the NumPy bulk reader.

A quick path reads and validates a judge file's integers in bulk; on any doubt it declines
(None) and the problem's checked parser runs, so every error message comes from one place.
Native code reads the text in place (`text_buffer`, `uints.h`); `numpy_uints` (a quick path
where native code is unavailable, for the problem whose checked parser is too slow) declines
exactly the same texts. A `LazyTuple` builds a case's tuples from the buffers only when looked
at.
"""

from __future__ import annotations

import functools
from array import array
from collections.abc import Callable, Iterable, Sequence

# The separators of every problem's format (a tab declines: the checked parser decides on it).
WHITESPACE = b" \n\r"
DIGITS_AND_WHITESPACE = b"0123456789" + WHITESPACE


def text_buffer(text: str) -> tuple[int, int] | None:
    """(address, length) of a pure-ASCII text's bytes, without copying (CPython's own storage;
    valid while `text` lives); None when the text is not pure ASCII."""
    if not text.isascii():
        return None
    import ctypes

    size = ctypes.c_ssize_t()
    address = _as_utf8()(ctypes.py_object(text), ctypes.byref(size))
    return address, size.value


@functools.cache
def _as_utf8():
    import ctypes

    function = ctypes.pythonapi.PyUnicode_AsUTF8AndSize
    function.argtypes = [ctypes.py_object, ctypes.POINTER(ctypes.c_ssize_t)]
    function.restype = ctypes.c_void_p
    return function


def zeroed(typecode: str, count: int) -> array:
    """A zeroed array of `count` items of `typecode` ('Q', 'q', 'i', 'B') for native code."""
    return array(typecode, (0,)) * count


def address(buffer: array) -> int:
    """The address of an array's first item (valid while it lives and is not resized)."""
    return buffer.buffer_info()[0]


def token_capacity(length: int, most: int) -> int:
    """Tokens a buffer needs for `length` bytes: at most `most` + 1 (to see too many as such)."""
    return max(1, min(length // 2 + 1, most + 1))


def numpy_uints(text: str, most: int):
    """Every token of `text` as an int64 NumPy array, or None when the text holds anything
    but canonical non-negative decimal integers (no sign, no leading zero, below 2^63 - 1) and
    the whitespace ' \\n\\r', or more than `most` tokens."""
    import numpy as np

    data = text.encode("ascii") if text.isascii() else None
    if data is None or data.translate(None, DIGITS_AND_WHITESPACE):
        return None
    values = np.fromstring(text, dtype=np.int64, sep=" ")
    if len(values) == 0 or len(values) > most or values.max() == np.iinfo(np.int64).max:
        return None  # (fromstring saturates a value beyond int64 at 2^63 - 1)
    # Every value was read exactly from a token without leading zeros iff the values' digits
    # add up to the text's digits (a k-digit token gives a value of at most k digits).
    digits = len(values) + int(np.searchsorted(_powers(), values, side="right").sum())
    return values if digits == len(data) - sum(data.count(c) for c in WHITESPACE) else None


@functools.cache
def _powers():
    import numpy as np

    return np.array([10 ** k for k in range(1, 19)], dtype=np.int64)


class LazyTuple(Sequence):
    """A tuple of `length` items that `build()` produces on first use (then kept): it compares,
    hashes, pickles and copies as the plain tuple it stands for."""

    __slots__ = ("_length", "_build", "_items")

    def __init__(self, length: int, build: Callable[[], Iterable]) -> None:
        self._length = length
        self._build: Callable[[], Iterable] | None = build
        self._items: tuple | None = None

    def materialise(self) -> tuple:
        if self._items is None:
            assert self._build is not None  # dropped only once the items are built
            self._items = tuple(self._build())
            self._build = None
            if len(self._items) != self._length:
                raise ValueError(f"built {len(self._items)} items, expected {self._length}")
        return self._items

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, index):
        return self.materialise()[index]

    def __iter__(self):
        return iter(self.materialise())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyTuple):
            other = other.materialise()
        if not isinstance(other, tuple):
            return NotImplemented
        return self.materialise() == other

    def __hash__(self) -> int:
        return hash(self.materialise())

    def __add__(self, other):
        return self.materialise() + (other.materialise() if isinstance(other, LazyTuple)
                                     else other)

    def __radd__(self, other):
        return other + self.materialise()

    def __repr__(self) -> str:
        return repr(self.materialise())

    def __reduce__(self):
        return (tuple, (self.materialise(),))
