"""insq15g judge files: the case type, parse (validating), render, answers and sizes.

`parse` tries the quick path first (native, else NumPy); on any doubt `_parse_slow` reads token
by token, so every error comes from one place. A case read natively holds its tokens and makes
its NumPy arrays only when something reads them.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pipeline.problems.insq15g.cells import _cell_counts, _odd_mask
from pipeline.problems.tokens import TokenReader, check_words

if TYPE_CHECKING:
    import numpy as np

MAX_SIDE = 10**18
MAX_PEOPLE = 10**6


@dataclass(frozen=True, eq=False)
class Case:
    """A grid of n rows and m columns with person i at row xs[i], column ys[i] (input order):
    read-only int64 arrays compared by content. A case read natively holds the input's tokens
    in `packed` (no part in equality) and builds `xs` and `ys` on first use."""

    n: int
    m: int
    xs: np.ndarray
    ys: np.ndarray
    packed: array[int] | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        import numpy as np

        object.__setattr__(self, "n", int(self.n))
        object.__setattr__(self, "m", int(self.m))
        for name in ("xs", "ys"):
            array = np.array(getattr(self, name), dtype=np.int64).reshape(-1)
            array.setflags(write=False)
            object.__setattr__(self, name, array)
        if self.xs.shape != self.ys.shape:
            raise ValueError("xs and ys must have the same length")

    @classmethod
    def of(cls, n: int, m: int, people) -> Case:
        """A case from a list of (X, Y) pairs."""
        import numpy as np

        people = list(people)
        return cls(n, m, np.array([x for x, _ in people], dtype=np.int64),
                   np.array([y for _, y in people], dtype=np.int64))

    @classmethod
    def from_tokens(cls, tokens) -> Case:
        """The case of a valid input's tokens (arrays built on first use)."""
        case = object.__new__(cls)
        object.__setattr__(case, "n", int(tokens[0]))
        object.__setattr__(case, "m", int(tokens[1]))
        object.__setattr__(case, "packed", tokens)
        return case

    def __getattr__(self, name: str):
        # Reached only for `xs` and `ys` of a case made by `from_tokens`, before first use.
        packed = self.__dict__.get("packed")
        if name not in ("xs", "ys") or packed is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        import numpy as np

        values = np.frombuffer(packed, dtype=np.int64)  # every value is at most 10^18 < 2^63
        for column, start in (("xs", 3), ("ys", 4)):
            array = values[start::2].copy()
            array.setflags(write=False)
            object.__setattr__(self, column, array)
        return self.__dict__[name]

    @property
    def p(self) -> int:
        packed = self.packed
        if "xs" not in self.__dict__ and packed is not None:
            return int(packed[2])
        return int(self.xs.shape[0])

    def people(self) -> list[tuple[int, int]]:
        return list(zip(self.xs.tolist(), self.ys.tolist()))

    def __eq__(self, other: object) -> bool:
        import numpy as np

        if not isinstance(other, Case):
            return NotImplemented
        return (self.n == other.n and self.m == other.m
                and np.array_equal(self.xs, other.xs) and np.array_equal(self.ys, other.ys))

    def __hash__(self) -> int:
        return hash((self.n, self.m, self.xs.tobytes(), self.ys.tobytes()))

    def __repr__(self) -> str:
        if self.p <= 12:
            return f"Case(n={self.n}, m={self.m}, people={self.people()})"
        return f"Case(n={self.n}, m={self.m}, p={self.p}, people={self.people()[:6]}...)"


def parse(text: str) -> Case:
    """Judge input -> Case; raises InputError naming the line of the first broken rule."""
    from pipeline.problems.insq15g import native

    case = _parse_native(text) if native.functions() is not None else _parse_fast(text)
    return case if case is not None else _parse_slow(text)


def _parse_native(text: str) -> Case | None:
    """The case of a valid input read by native code, or None."""
    from pipeline.problems.insq15g import native

    tokens = native.read(text)
    return None if tokens is None else Case.from_tokens(tokens)


def _parse_slow(text: str) -> Case:
    """Token-by-token validating parser: the reference for every accept/reject decision."""
    reader = TokenReader(text)
    n = reader.int("N", 1, MAX_SIDE)
    m = reader.int("M", 1, MAX_SIDE)
    p = reader.int("P", 1, MAX_PEOPLE)
    xs = [0] * p
    ys = [0] * p
    for i in range(p):
        index = reader.index
        x = reader.int(f"X_{i + 1}")
        if not 1 <= x <= n:
            raise reader.error(index, f"person {i + 1}: X = {x} is outside 1..N = {n}",
                               rule="range")
        index = reader.index
        y = reader.int(f"Y_{i + 1}")
        if not 1 <= y <= m:
            raise reader.error(index, f"person {i + 1}: Y = {y} is outside 1..M = {m}",
                               rule="range")
        xs[i] = x
        ys[i] = y
    reader.end()
    return Case.of(n, m, zip(xs, ys))


def _parse_fast(text: str) -> Case | None:
    """The case of a valid input read with NumPy (without native code), or None (every valid
    value is in 1..10^18, within `numpy_uints`' int64)."""
    from pipeline.native.bulk import numpy_uints

    values = numpy_uints(text, 3 + 2 * MAX_PEOPLE)
    if values is None or values.shape[0] < 3:
        return None
    n, m, p = (int(v) for v in values[:3])
    if not (1 <= n <= MAX_SIDE and 1 <= m <= MAX_SIDE and 1 <= p <= MAX_PEOPLE):
        return None
    if values.shape[0] != 3 + 2 * p:
        return None
    xs = values[3::2].copy()
    ys = values[4::2].copy()
    if int(xs.min()) < 1 or int(xs.max()) > n or int(ys.min()) < 1 or int(ys.max()) > m:
        return None
    return Case(n, m, xs, ys)


def render(case: Case) -> str:
    head = f"{case.n} {case.m} {case.p}\n"
    if case.p == 0:
        return head
    body = "\n".join(map("{} {}".format, case.xs.tolist(), case.ys.tolist()))
    return head + body + "\n"


def format_answer(case: Case, answer: bool) -> str:
    return "Yes\n" if answer else "No\n"


def validate_answer(case: Case, text: str) -> None:
    check_words(text, 1, ("Yes", "No"))


def size(case: Case) -> int:
    return case.p


def size_values(case: Case) -> dict[str, int]:
    import numpy as np

    odd = _odd_mask(case.xs, case.ys, case.m)
    return {
        "people": case.p,
        "distinct_cells": int(_cell_counts(case.xs, case.ys).shape[0]),
        "odd_people": int(np.count_nonzero(odd)),
        "n_digits": len(str(case.n)),
        "m_digits": len(str(case.m)),
    }
