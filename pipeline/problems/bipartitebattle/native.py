"""bipartitebattle's native code through ctypes: the quick parse path and the kernel.

The library is declared at import, built at installation and loaded on first use; where it
cannot be built, `functions()` is None and the callers use their fallback (`FALLBACK`).
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
    return native.read_tokens(library.bipartitebattle_read, text, MOST_TOKENS)


def solve(tokens) -> int:
    """The `fast` answer of the valid input of `tokens` (from `read`)."""
    from pipeline.native.bulk import address

    return functions().bipartitebattle_solve(address(tokens))
