"""bipartitebattle's native code (native.c) through ctypes: the quick parse path and `fast`.

`KERNELS` is declared (registered with `pipeline.native`) at import; the library is built at
installation and loaded on first use. Where it cannot be built, `functions()` is None:
`parse` uses the NumPy quick path and `fast` its Python sums instead.
"""

from __future__ import annotations

from pathlib import Path

from pipeline import native

KERNELS = native.library("bipartitebattle", Path(__file__).with_name("native.c"))
FALLBACK = "the NumPy quick parse and Python's sums"

MAX_N = 10**5
MOST_TOKENS = 1 + 2 * MAX_N

# The library's functions with their ctypes signatures (or None without native code).
functions = native.functions(KERNELS, FALLBACK, {"bipartitebattle_read": "pipip",
                                                  "bipartitebattle_solve": "p"})


def read(text: str):
    """Every token of a valid input (N, then a_i and b_i) as an array 'Q', read and validated
    natively; None when the quick path declines (or native code is unavailable)."""
    library = functions()
    if library is None:
        return None
    from pipeline.native.bulk import (
        address,
        int64_buffer,
        text_buffer,
        token_capacity,
        uint64_buffer,
    )

    where = text_buffer(text)
    if where is None:
        return None
    capacity = token_capacity(where[1], MOST_TOKENS)
    tokens = uint64_buffer(capacity)
    count = int64_buffer(1)
    if library.bipartitebattle_read(*where, address(tokens), capacity, address(count)) < 0:
        return None
    del tokens[count[0]:]
    return tokens


def solve(tokens) -> int:
    """The `fast` answer of the valid input of `tokens` (from `read`)."""
    from pipeline.native.bulk import address

    return functions().bipartitebattle_solve(address(tokens))
