"""bipartitebattle's native code through ctypes (`pipeline.native`): the quick parse path and
the kernel; where it cannot be built, `functions()` is None and `FALLBACK` runs."""

from __future__ import annotations

from pathlib import Path

from pipeline import native

KERNELS = native.library("bipartitebattle", Path(__file__).with_name("native.c"))
FALLBACK = "the NumPy quick parse and Python's sums"

MAX_N = 10**5
functions = native.functions(KERNELS, FALLBACK, {"bipartitebattle_read": "pipip",
                                                  "bipartitebattle_solve": "p"})
# Every token of a valid input (N, then a_i and b_i), or None (`native.token_reader`).
read = native.token_reader(functions, "bipartitebattle_read", 1 + 2 * MAX_N)


def solve(tokens) -> int:
    """The `fast` answer of the valid input of `tokens` (from `read`)."""
    from pipeline.native.bulk import address

    return functions().bipartitebattle_solve(address(tokens))
