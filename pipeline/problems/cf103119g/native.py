"""cf103119g's native code through ctypes (`pipeline.native`): the quick parse path and the
kernel; where it cannot be built, `functions()` is None and `FALLBACK` runs."""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

from pipeline import native

KERNEL = native.library("cf103119g", Path(__file__).with_name("native.c"))
FALLBACK = "numba's JIT and the NumPy quick parse"

MAX_N = 200_000
MAX_M = 200_000


@dataclass(frozen=True)
class Packed:
    """A case as native code reads it: `tokens` (array 'Q') holds n, m, the n values, then
    op and k of each of the m operations."""

    tokens: array[int]
    n: int
    m: int


functions = native.functions(KERNEL, FALLBACK, {"cf103119g_read": "pipip",
                                                 "cf103119g_solve": "ipipp"})
_read = native.token_reader(functions, "cf103119g_read", 2 + MAX_N + 2 * MAX_M)


def read(text: str) -> Packed | None:
    """The packed case of a valid input, read and validated natively; None: declined."""
    tokens = _read(text)
    return None if tokens is None else Packed(tokens, tokens[0], tokens[1])


def pack(values, ops) -> Packed:
    """The packed form of a case's tuples (for cases that were not parsed natively)."""
    tokens = array("Q", (len(values), len(ops)))
    tokens.extend(values)
    tokens.extend(chain.from_iterable(ops))
    return Packed(tokens, len(values), len(ops))


def solve(packed: Packed) -> tuple[bool, ...]:
    """Whether the position of each query wins, in order."""
    from pipeline.native.bulk import address, zeroed

    library = functions()
    out = zeroed("B", packed.m)
    base = address(packed.tokens)
    queries = library.cf103119g_solve(packed.n, base + 8 * 2, packed.m,
                                      base + 8 * (2 + packed.n), address(out))
    if queries == -2:
        raise MemoryError("cf103119g: native kernel ran out of memory")
    return tuple(map(bool, out[:queries]))
