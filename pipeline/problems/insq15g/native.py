"""insq15g's native code (native.c) through ctypes: the quick parse path.

`READER` is declared (registered with `pipeline.native`) at import; the library is built at
installation and loaded on first use. Where it cannot be built, `functions()` is None and
`parse` uses the NumPy quick path instead.
"""

from __future__ import annotations

from pathlib import Path

from pipeline import native

READER = native.library("insq15g", Path(__file__).with_name("native.c"))
FALLBACK = "the NumPy quick parse"

MAX_PEOPLE = 10**6
MOST_TOKENS = 3 + 2 * MAX_PEOPLE

_FUNCTIONS = None


def functions():
    """The library's functions with their ctypes signatures, or None without native code."""
    global _FUNCTIONS
    if _FUNCTIONS is None:
        library = native.load(READER, FALLBACK)
        if library is None:
            return None
        import ctypes

        i64, ptr = ctypes.c_int64, ctypes.c_void_p
        library.insq15g_read.argtypes = [ctypes.c_char_p, i64, ptr, i64, ptr]
        library.insq15g_read.restype = i64
        _FUNCTIONS = library
    return _FUNCTIONS


def read(text: str):
    """Every token of a valid input (N, M, P, then X_i and Y_i) as an array 'Q', read and
    validated natively; None when the quick path declines (or native code is unavailable)."""
    library = functions()
    if library is None:
        return None
    from pipeline.native.bulk import (address, ascii_bytes, int64_buffer, token_capacity,
                                      uint64_buffer)

    data = ascii_bytes(text)
    if data is None:
        return None
    capacity = token_capacity(data, MOST_TOKENS)
    tokens = uint64_buffer(capacity)
    count = int64_buffer(1)
    if library.insq15g_read(data, len(data), address(tokens), capacity, address(count)) < 0:
        return None
    del tokens[count[0]:]
    return tokens
