"""cf103119g judge files: the case type, parse (validating), render, answers and sizes.

`parse` tries the native quick path first; where native code is unavailable, or on any doubt,
`_parse_slow` reads token by token, so every error comes from one place. A case parsed natively
keeps its packed tokens for the `fast` kernel.
"""

from __future__ import annotations

import gc
from array import array
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path

from pipeline import native
from pipeline.problems.model import Bound, spread
from pipeline.problems.tokens import TokenReader, check_words

MAX_N = 200_000
MAX_M = 200_000
MAX_VALUE = 255

# native.c through ctypes (`pipeline.native`): the quick parse and `fast`'s kernel; where it
# cannot be built, `functions()` is None: `_parse_slow` parses and `fast` refuses
# (`kernel_refuses`).
NATIVE = native.library("cf103119g", Path(__file__).with_name("native.c"))
functions = native.functions(NATIVE, "the checked parse; the stage fast refuses",
                             {"cf103119g_read": "pipip", "cf103119g_solve": "ipipp"})
kernel_refuses = native.refuses_without(NATIVE, functions)
_read_tokens = native.token_reader(functions, "cf103119g_read", 2 + MAX_N + 2 * MAX_M)

# Compatible values of each byte: itself and its 8 one-bit neighbours.
_COMPATIBLE: tuple[tuple[int, ...], ...] = tuple(
    (v,) + tuple(v ^ (1 << b) for b in range(8)) for v in range(256))


@dataclass(frozen=True)
class Packed:
    """A case as native code reads it: `tokens` (array 'Q') holds n, m, the n values, then
    op and k of each of the m operations."""

    tokens: array[int]
    n: int
    m: int


def read_native(text: str) -> Packed | None:
    """The packed case of a valid input, read and validated natively; None: declined."""
    tokens = _read_tokens(text)
    return None if tokens is None else Packed(tokens, tokens[0], tokens[1])


def pack(values, ops) -> Packed:
    """The packed form of a case's tuples (for cases that were not parsed natively)."""
    tokens = array("Q", (len(values), len(ops)))
    tokens.extend(values)
    tokens.extend(chain.from_iterable(ops))
    return Packed(tokens, len(values), len(ops))


@dataclass(frozen=True)
class Case:
    """The initial values and the operations, each `(1, value)` or `(2, position)`. `packed` (set by
    the native parse only) takes no part in equality; `replace` drops it."""

    values: tuple[int, ...]
    ops: tuple[tuple[int, int], ...]
    packed: Packed | None = field(default=None, init=False, compare=False, repr=False)

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def m(self) -> int:
        return len(self.ops)

    @property
    def appends(self) -> int:
        return self._count(1)

    @property
    def queries(self) -> int:
        return self._count(2)

    def _count(self, kind: int) -> int:
        if self.packed is not None:  # read natively: each operation's kind is a token
            return self.packed.tokens[2 + self.n::2].count(kind)
        return sum(1 for op, _ in self.ops if op == kind)


def parse(text: str) -> Case:
    """Judge input -> Case; InputError naming the line and the rule for any violation."""
    gc_was_enabled = gc.isenabled()
    gc.disable()  # building 2e5 small tuples otherwise triggers many useless collections
    try:
        case = _parse_native(text)
        return case if case is not None else _parse_slow(text)
    finally:
        if gc_was_enabled:
            gc.enable()


def _parse_native(text: str) -> Case | None:
    """The case of a valid input read by native code (tuples built on first use), or None."""
    from pipeline.native.bulk import LazyTuple

    packed = read_native(text)
    if packed is None:
        return None
    tokens, n = packed.tokens, packed.n

    def ops():
        flat = tokens[2 + n:].tolist()
        return zip(flat[0::2], flat[1::2])

    # a LazyTuple stands in for the tuple it builds (equal, same hash): not a tuple subclass
    case = Case(LazyTuple(n, lambda: tokens[2:2 + n].tolist()),  # type: ignore[arg-type]
                LazyTuple(packed.m, ops))  # type: ignore[arg-type]
    object.__setattr__(case, "packed", packed)
    return case


def _parse_slow(text: str) -> Case:
    """Token by token, with a precise error for the first violation."""
    reader = TokenReader(text)
    n = reader.int("n", 1, MAX_N)
    m = reader.int("m", 1, MAX_M)
    values = tuple(reader.int(f"A_{i + 1}", 0, MAX_VALUE) for i in range(n))
    ops = []
    length = n
    for j in range(m):
        index = reader.index
        op = reader.int(f"op of operation {j + 1}")
        if op not in (1, 2):
            raise reader.error(index, f"operation {j + 1}: op = {op} is neither 1 nor 2",
                               rule="range")
        if op == 1:
            k = reader.int(f"k of operation {j + 1} (append)", 0, MAX_VALUE)
            length += 1
        else:
            k = reader.int(f"k of operation {j + 1} (query)", 1, None)
            if k > length:
                raise reader.error(reader.index - 1, f"operation {j + 1}: query position "
                                   f"k = {k} is above the current length {length}",
                                   rule="range")
        ops.append((op, k))
    reader.end()
    return Case(values, tuple(ops))


def render(case: Case) -> str:
    lines = [f"{case.n} {case.m}", " ".join(map(str, case.values))]
    lines.extend(f"{op} {k}" for op, k in case.ops)
    return "\n".join(lines) + "\n"


_WINNER = ("Alice", "Grammy")  # indexed by "the first player wins"


def format_answer(case: Case, answer: tuple[bool, ...]) -> str:
    """One line per query: Grammy (first player wins) or Alice; "" when there is no query."""
    if not answer:
        return ""
    return "\n".join(map(_WINNER.__getitem__, answer)) + "\n"


def validate_answer(case: Case, text: str) -> None:
    check_words(text, case.queries, ("Grammy", "Alice"))


def size(case: Case) -> int:
    return case.n + case.m


def size_values(case: Case) -> dict[str, int]:
    appends = case.appends
    return {"initial": case.n, "operations": case.m, "appends": appends,
            "queries": case.m - appends, "final_length": case.n + appends}


# The input's bounds, as `parse` enforces them, for constraint coverage.
BOUNDS = (
    Bound("n", 1, MAX_N, lambda case: (case.n, case.n)),
    Bound("m", 1, MAX_M, lambda case: (case.m, case.m)),
    Bound("A_i and appended k", 0, MAX_VALUE,
          lambda case: spread([*case.values, *(k for op, k in case.ops if op == 1)])),
)
