"""insq15g's native code through ctypes: the quick parse path and the kernel.

The library is declared at import, built at installation and loaded on first use; where it
cannot be built, `functions()` is None and the callers use their fallback (`FALLBACK`).
"""

from __future__ import annotations

from pathlib import Path

from pipeline import native

KERNELS = native.library("insq15g", Path(__file__).with_name("native.cpp"))
FALLBACK = "NumPy (quick parse and fast)"

MAX_PEOPLE = 10**6
MOST_TOKENS = 3 + 2 * MAX_PEOPLE

# The library's functions with their ctypes signatures (or None without native code).
functions = native.functions(KERNELS, FALLBACK, {"insq15g_read": "pipip",
                                                  "insq15g_solve": "p"})


def read(text: str):
    """Every token of a valid input (N, M, P, then X_i and Y_i) as an array 'Q', read and
    validated natively; None when the quick path declines (or native code is unavailable)."""
    library = functions()
    if library is None:
        return None
    return native.read_tokens(library.insq15g_read, text, MOST_TOKENS)


def solve(tokens) -> bool:
    """Whether the first player wins the valid input of `tokens` (from `read`)."""
    from pipeline.native.bulk import address

    result = functions().insq15g_solve(address(tokens))
    if result == -2:
        raise MemoryError("insq15g: native fast stage ran out of memory")
    return result == 1
