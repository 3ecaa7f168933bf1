"""bipartitebattle judge files: the case type, parse (validating), render, answers and sizes.

`parse` tries the native quick path first; where native code is unavailable, or on any doubt,
`_parse_checked` reads token by token, so every error comes from one place. A case read
natively keeps its tokens.
"""

from __future__ import annotations

import operator
from array import array
from dataclasses import dataclass, field
from pathlib import Path

from pipeline import native
from pipeline.errors import InputError
from pipeline.problems.model import Bound, spread
from pipeline.problems.tokens import TokenReader

MOD = 1_000_000_007
MAX_N = 10**5
MAX_SIDE = 10**9

# native.c through ctypes (`pipeline.native`): the quick parse and `fast`'s kernel; where it
# cannot be built, `functions()` is None and the fallback named here runs.
NATIVE = native.library("bipartitebattle", Path(__file__).with_name("native.c"))
functions = native.functions(NATIVE, "the checked parse and Python's sums",
                             {"bipartitebattle_read": "pipip", "bipartitebattle_solve": "p"})
# Every token of a valid input (N, then a_i and b_i), or None (`native.token_reader`).
read_native = native.token_reader(functions, "bipartitebattle_read", 1 + 2 * MAX_N)


@dataclass(frozen=True)
class BattleCase:
    """N graphs as a tuple of (a_i, b_i) pairs, in input order. `packed` (set by the native parse
    only: the input's tokens for `fast`) takes no part in equality; `replace` drops it."""

    graphs: tuple[tuple[int, int], ...]
    packed: array[int] | None = field(default=None, init=False, compare=False, repr=False)

    @property
    def n(self) -> int:
        return len(self.graphs)


def parse(text: str) -> BattleCase:
    case = _parse_native(text)
    return case if case is not None else _parse_checked(text)


def _parse_native(text: str) -> BattleCase | None:
    """The case of a valid input read by native code (pairs built on first use), or None."""
    from pipeline.native.bulk import LazyTuple

    tokens = read_native(text)
    if tokens is None:
        return None

    def graphs():
        values = tokens.tolist()
        return zip(values[1::2], values[2::2])

    # a LazyTuple stands in for the tuple it builds (equal, same hash): not a tuple subclass
    case = BattleCase(LazyTuple(tokens[0], graphs))  # type: ignore[arg-type]
    object.__setattr__(case, "packed", tokens)
    return case


def _parse_checked(text: str) -> BattleCase:
    """Token by token; an error names the line of the first broken rule."""
    reader = TokenReader(text)
    n = reader.int("N", 1, MAX_N)
    try:
        values = reader.ints(2 * n, "a_i/b_i", 1, MAX_SIDE)
        reader.end()
    except InputError as fast_error:
        # Re-read slowly so that the error names the right a_i or b_i; the slow path must fail.
        _parse_slow(text)
        raise fast_error
    return BattleCase(tuple(zip(values[0::2], values[1::2])))


def _parse_slow(text: str) -> BattleCase:
    reader = TokenReader(text)
    n = reader.int("N", 1, MAX_N)
    graphs = [(reader.int(f"a_{i}", 1, MAX_SIDE), reader.int(f"b_{i}", 1, MAX_SIDE))
              for i in range(1, n + 1)]  # (a tuple's items are read left to right)
    reader.end()
    return BattleCase(tuple(graphs))


def render(case: BattleCase) -> str:
    return "\n".join([str(case.n), *(f"{a} {b}" for a, b in case.graphs)]) + "\n"


def format_answer(case: BattleCase, answer: int) -> str:
    return f"{answer}\n"


def validate_answer(case: BattleCase, text: str) -> None:
    reader = TokenReader(text)
    reader.int("the answer (the count modulo 1000000007)", 0, MOD - 1)
    reader.end()


def size(case: BattleCase) -> int:
    return case.n


def size_values(case: BattleCase) -> dict[str, int]:
    if case.packed is not None:  # read natively: the sides are tokens[1:], a_i and b_i in turn
        values = case.packed.tolist()
        sides_a, sides_b = values[1::2], values[2::2]
    else:
        sides_a, sides_b = [a for a, _ in case.graphs], [b for _, b in case.graphs]
    edges = sum(map(operator.mul, sides_a, sides_b))
    return {
        "graphs": case.n,
        "max_side": max(max(sides_a), max(sides_b)),
        "edge_bits": edges.bit_length(),  # sum a_i*b_i reaches 1e23: store its bit length
    }


# The input's bounds, as `parse` enforces them, for constraint coverage.
BOUNDS = (
    Bound("N", 1, MAX_N, lambda case: (case.n, case.n)),
    Bound("a_i, b_i", 1, MAX_SIDE,
          lambda case: spread(side for graph in case.graphs for side in graph)),
)
