"""insq15g's native code through ctypes (`pipeline.native`): the quick parse path and the
kernel; where it cannot be built, `functions()` is None and `FALLBACK` runs."""

from __future__ import annotations

from pathlib import Path

from pipeline import native

KERNELS = native.library("insq15g", Path(__file__).with_name("native.cpp"))
FALLBACK = "NumPy (quick parse and fast)"

MAX_PEOPLE = 10**6
functions = native.functions(KERNELS, FALLBACK, {"insq15g_read": "pipip",
                                                  "insq15g_solve": "p"})
# Every token of a valid input (N, M, P, then X_i and Y_i), or None (`native.token_reader`).
read = native.token_reader(functions, "insq15g_read", 3 + 2 * MAX_PEOPLE)


def solve(tokens) -> bool:
    """Whether the first player wins the valid input of `tokens` (from `read`)."""
    from pipeline.native.bulk import address

    result = functions().insq15g_solve(address(tokens))
    if result == -2:
        raise MemoryError("insq15g: native fast stage ran out of memory")
    return result == 1
