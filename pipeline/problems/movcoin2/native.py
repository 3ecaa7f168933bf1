"""movcoin2's native code through ctypes (`pipeline.native`): the quick parse path and the
kernel; where it cannot be built, `functions()` is None and `FALLBACK` runs."""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

from pipeline import native

KERNELS = native.library("movcoin2", Path(__file__).with_name("native.c"))
FALLBACK = "numba's JIT and the NumPy quick parse"

MAX_T = 1000
MAX_SUM_N = 300_000
MOST_TOKENS = 1 + 3 * MAX_SUM_N


@dataclass(frozen=True)
class Forest:
    """Every test of a case as one forest, in buffers native code reads: test k's nodes are
    starts[k] .. starts[k] + sizes[k] - 1; edge i joins eu[i] and ev[i] (0-based, global);
    odd[v] is the parity of node v's coins. `array` typecodes: i, i, B, q, q."""

    total: int
    eu: array[int]
    ev: array[int]
    odd: array[int]
    starts: array[int]
    sizes: array[int]


functions = native.functions(KERNELS, FALLBACK, {"movcoin2_read": "pipipppppp",
                                                  "movcoin2_solve": "ipppppiipp"})


def read(text: str):
    """(tokens, forest) of a valid input, read and validated natively; None: declined."""
    library = functions()
    if library is None:
        return None
    from pipeline.native.bulk import address, text_buffer, token_capacity, zeroed

    where = text_buffer(text)
    if where is None:
        return None
    capacity = token_capacity(where[1], MOST_TOKENS)
    tokens = zeroed("Q", capacity)
    count = zeroed("q", 1)
    nodes, tests = min(capacity, MAX_SUM_N), min(capacity, MAX_T)  # nodes < tokens
    eu, ev, odd = zeroed("i", nodes), zeroed("i", nodes), zeroed("B", nodes)
    starts, sizes = zeroed("q", tests), zeroed("q", tests)
    tests = library.movcoin2_read(*where, address(tokens), capacity, address(count),
                                  address(eu), address(ev), address(odd), address(starts),
                                  address(sizes))
    if tests == -2:
        raise MemoryError("movcoin2: native parse ran out of memory")
    if tests < 0:
        return None
    del tokens[count[0]:]
    del starts[tests:], sizes[tests:]
    total = sum(sizes)
    del eu[total - tests:], ev[total - tests:], odd[total:]
    return tokens, Forest(total, eu, ev, odd, starts, sizes)


def forest_of(tests) -> Forest:
    """The forest of a case's tests (for cases that were not parsed natively)."""
    sizes = array("q", (test.n for test in tests))
    starts = array("q", bytes(8 * len(sizes)))
    eu, ev = array("i"), array("i")
    offset = 0
    for k, test in enumerate(tests):
        starts[k] = offset
        eu.extend(u + offset - 1 for u, _ in test.edges)
        ev.extend(v + offset - 1 for _, v in test.edges)
        offset += test.n
    odd = array("B", (c & 1 for c in chain.from_iterable(test.coins for test in tests)))
    return Forest(offset, eu, ev, odd, starts, sizes)


def solve(forest: Forest, bit_limit: int, with_grundy: bool = False):
    """Per-test answers (a list), and every node's Grundy value too when `with_grundy`."""
    from pipeline.native.bulk import address, zeroed

    library = functions()
    answers = zeroed("q", len(forest.sizes))
    grundy = zeroed("q", forest.total) if with_grundy else None
    status = library.movcoin2_solve(forest.total, address(forest.eu), address(forest.ev),
                                    address(forest.odd), address(forest.starts),
                                    address(forest.sizes), len(forest.sizes), bit_limit,
                                    address(answers),
                                    address(grundy) if grundy is not None else None)
    if status == -2:
        raise MemoryError("movcoin2: native kernel ran out of memory")
    return (answers.tolist(), grundy) if with_grundy else answers.tolist()
