"""movcoin2 judge files (T independent trees): the case type, parse, render, answers, sizes.

`parse` tries the native quick path first (native.c: digits, ranges, counts and that each
test's edges form a tree); where native code is unavailable, or on any doubt, `_parse_checked`
reads token by token, so every error comes from one place. A case parsed natively keeps its
packed forest for the kernel.
"""

from __future__ import annotations

import gc
from array import array
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path

from pipeline import native
from pipeline.problems.model import Bound, spread
from pipeline.problems.tokens import TokenReader

MOD = 1_000_000_007
MAX_T = 1000
MAX_N = 300_000
MAX_SUM_N = 300_000
MAX_C = 16

# native.c through ctypes (`pipeline.native`): the quick parse and the kernel; where it cannot
# be built, `functions()` is None: `_parse_checked` parses and the kernel's stages refuse
# (`kernel_refuses`).
NATIVE = native.library("movcoin2", Path(__file__).with_name("native.c"))
functions = native.functions(
    NATIVE, "the checked parse; the stages fast and tester-17bit refuse",
    {"movcoin2_read": "pipipppppp", "movcoin2_solve": "ipppppiipp"})
kernel_refuses = native.refuses_without(NATIVE, functions)


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


def read_native(text: str):
    """(tokens, forest) of a valid input, read and validated natively; None: declined."""
    library = functions()
    if library is None:
        return None
    from pipeline.native.bulk import address, text_buffer, token_capacity, zeroed

    where = text_buffer(text)
    if where is None:
        return None
    capacity = token_capacity(where[1], 1 + 3 * MAX_SUM_N)
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


@dataclass(frozen=True)
class TreeCase:
    """One test: N nodes, the N-1 edges (1-based, input order and orientation), coins c_1..c_N."""

    n: int
    edges: tuple[tuple[int, int], ...]
    coins: tuple[int, ...]

    @property
    def coin_nodes(self) -> tuple[int, ...]:
        """1-based nodes holding an odd number of coins (the only ones that matter)."""
        return tuple(i + 1 for i, c in enumerate(self.coins) if c & 1)


@dataclass(frozen=True)
class Movcoin2Case:
    """A whole judge input: the T tests in order. `forest` (set by the native parse only)
    takes no part in equality; `replace` drops it."""

    tests: tuple[TreeCase, ...]
    forest: Forest | None = field(default=None, init=False, compare=False, repr=False)


# -- parse ------------------------------------------------------------------------------------
def parse(text: str) -> Movcoin2Case:
    case = _parse_native(text)
    return case if case is not None else _parse_checked(text)


def _parse_native(text: str) -> Movcoin2Case | None:
    """The case of a valid input read by native code (tuples built on first use), or None."""
    from pipeline.native.bulk import LazyTuple

    read = read_native(text)
    if read is None:
        return None
    tokens, forest = read
    # a LazyTuple stands in for the tuple it builds (equal, same hash): not a tuple subclass
    case = Movcoin2Case(LazyTuple(len(forest.sizes),  # type: ignore[arg-type]
                                  lambda: _trees(tokens.tolist(), forest.sizes)))
    object.__setattr__(case, "forest", forest)
    return case


def _trees(values: list[int], sizes) -> list[TreeCase]:
    """The tests of a valid input from its values (every token) and the sizes of its tests."""
    enabled = gc.isenabled()
    gc.disable()  # 300,000 small tuples: the collector would rescan them over and over
    try:
        tests = []
        pos = 1
        for n in sizes:
            edge_start = pos + 1
            coin_start = edge_start + 2 * (n - 1)
            pos = coin_start + n
            ends = values[edge_start:coin_start]
            tests.append(TreeCase(n, tuple(zip(ends[0::2], ends[1::2])),
                                  tuple(values[coin_start:pos])))
    finally:
        if enabled:
            gc.enable()
    return tests


def _parse_checked(text: str) -> Movcoin2Case:
    reader = TokenReader(text)
    t_count = reader.int("T", 1, MAX_T)
    total = 0
    tests = []
    for t in range(1, t_count + 1):
        n_index = reader.index
        n = reader.int("N", 1, MAX_N)
        total += n
        if total > MAX_SUM_N:
            raise reader.error(n_index, f"N = {n} of test {t} brings the sum of N to {total}, "
                               f"above {MAX_SUM_N}", rule="sum-limit")
        root = list(range(n + 1))  # union-find over the nodes: a cycle joins one set
        edges = []
        for _ in range(n - 1):
            edge_index = reader.index
            u = _endpoint(reader, "u", n)
            v = _endpoint(reader, "v", n)
            if u == v:
                raise reader.error(edge_index, f"edge {u} {v} is a self-loop", rule="self-loop")
            a, b = _find(root, u), _find(root, v)
            if a == b:
                raise reader.error(edge_index, f"edge {u} {v} closes a cycle", rule="cycle")
            root[a] = b
            edges.append((u, v))
        coins = reader.ints(n, "c_i", 0, MAX_C)
        tests.append(TreeCase(n, tuple(edges), tuple(coins)))
    reader.end()
    return Movcoin2Case(tuple(tests))


def _find(root: list[int], a: int) -> int:
    while root[a] != a:
        root[a] = root[root[a]]
        a = root[a]
    return a


def _endpoint(reader: TokenReader, name: str, n: int) -> int:
    index = reader.index
    value = reader.int(name)
    if value < 1:
        raise reader.error(index, f"{name} = {value} is below 1", rule="range")
    if value > n:
        raise reader.error(index, f"{name} = {value} is above N = {n}", rule="range")
    return value


# -- render and answers -----------------------------------------------------------------------
def render(case: Movcoin2Case) -> str:
    parts = [f"{len(case.tests)}\n"]
    for test in case.tests:
        parts += [f"{test.n}\n", "".join(f"{u} {v}\n" for u, v in test.edges),
                  " ".join(map(str, test.coins)) + "\n"]
    return "".join(parts)


def answer_from_grundy(grundy) -> int:
    """sum of 2^R (mod 1e9+7) over the 1-based roots R whose Grundy value is 0."""
    total = 0
    power = 1
    for value in grundy:
        power = power * 2 % MOD
        if value == 0:
            total += power
    return total % MOD


def format_answer(case: Movcoin2Case, answer) -> str:
    return "".join(f"{value}\n" for value in answer)


def validate_answer(case: Movcoin2Case, text: str) -> None:
    reader = TokenReader(text)
    for t in range(1, len(case.tests) + 1):
        reader.int(f"the answer of test {t}", 0, MOD - 1)
    reader.end()


def path_case(n: int, coin_nodes: tuple[int, ...]) -> Movcoin2Case:
    """The path 1 - 2 - ... - n with one coin on each listed node."""
    coins = [0] * n
    for v in coin_nodes:
        coins[v - 1] = 1
    return Movcoin2Case((TreeCase(n, tuple((i, i + 1) for i in range(1, n)), tuple(coins)),))


# -- sizes ------------------------------------------------------------------------------------
def size(case: Movcoin2Case) -> int:
    if case.forest is not None:  # read natively: no tuples built
        return case.forest.total
    return sum(test.n for test in case.tests)


def size_values(case: Movcoin2Case) -> dict[str, int]:
    forest = case.forest
    if forest is not None:  # read natively: the packed forest has it all, no tuples built
        return {"tests": len(forest.sizes), "sum_n": forest.total, "max_n": max(forest.sizes),
                "coin_nodes": bytes(forest.odd).count(1)}
    return {
        "tests": len(case.tests),
        "sum_n": size(case),
        "max_n": max(test.n for test in case.tests),
        "coin_nodes": sum(sum(c & 1 for c in test.coins) for test in case.tests),
    }


# The input's bounds, as `parse` enforces them, for constraint coverage.
BOUNDS = (
    Bound("T", 1, MAX_T, lambda case: (len(case.tests), len(case.tests))),
    Bound("N of a test", 1, MAX_N, lambda case: spread(test.n for test in case.tests)),
    Bound("sum of N", 1, MAX_SUM_N, lambda case: (size(case), size(case))),
    Bound("c_i", 0, MAX_C, lambda case: spread(c for test in case.tests for c in test.coins)),
)
