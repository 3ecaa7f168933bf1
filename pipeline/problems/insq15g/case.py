"""insq15g judge files: the case type, parse (validating), render, answers and sizes.

`parse` tries the quick path first (native, else NumPy); on any doubt `_parse_slow` reads token
by token, so every error comes from one place. A case read natively holds its tokens and makes
its NumPy arrays only when something reads them.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline import native
from pipeline.problems.model import Bound
from pipeline.problems.tokens import TokenReader, check_words

if TYPE_CHECKING:  # numpy is imported by the functions (not by `pipeline solve`)
    import numpy as np

MAX_SIDE = 10**18
MAX_PEOPLE = 10**6

# native.cpp through ctypes (`pipeline.native`): the quick parse and `fast`'s kernel; where it
# cannot be built, `functions()` is None and the fallback named here runs.
NATIVE = native.library("insq15g", Path(__file__).with_name("native.cpp"))
functions = native.functions(NATIVE, "NumPy (quick parse and fast)",
                             {"insq15g_read": "pipip", "insq15g_solve": "p"})
# Every token of a valid input (N, M, P, then X_i and Y_i), or None (`native.token_reader`).
read_native = native.token_reader(functions, "insq15g_read", 3 + 2 * MAX_PEOPLE)

# -- people per distinct cell, and who stands at odd distance (`fast`'s core; sizes, recipes) --
_MIX1 = 0x9E3779B97F4A7C15
_MIX2 = 0xC2B2AE3D27D4EB4F


def _odd_mask(xs: np.ndarray, ys: np.ndarray, m: int) -> np.ndarray:
    """People at odd distance (X - 1) + (M - Y) from the corner."""
    return ((xs ^ ys) & 1) != ((m + 1) & 1)


def _run_lengths(same: np.ndarray) -> np.ndarray:
    """The lengths of the runs of a sorted sequence whose neighbours are `same` or not."""
    import numpy as np

    edges = np.flatnonzero(~same) + 1
    return np.diff(np.concatenate(([0], edges, [same.shape[0] + 1])))


def _cell_counts(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Number of people on each distinct cell (in no particular order)."""
    import numpy as np

    if xs.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    x_low, y_low = int(xs.min()), int(ys.min())
    if int(xs.max()) - x_low < 2**31 and int(ys.max()) - y_low < 2**31:
        keys = ((xs - x_low) << 32) | (ys - y_low)  # exact: distinct cells, distinct keys
        keys.sort()
        return _run_lengths(keys[1:] == keys[:-1])
    ux, uy = xs.view(np.uint64), ys.view(np.uint64)
    with np.errstate(over="ignore"):
        h = ux * np.uint64(_MIX1)
        h ^= h >> np.uint64(29)
        h += uy
        h *= np.uint64(_MIX2)
        h ^= h >> np.uint64(32)
    order = np.argsort(h)
    h, sx, sy = h[order], xs[order], ys[order]
    same = h[1:] == h[:-1]
    if np.any(same & ((sx[1:] != sx[:-1]) | (sy[1:] != sy[:-1]))):
        order = np.lexsort((ys, xs))  # a hash collision: sort exactly instead
        sx, sy = xs[order], ys[order]
        same = (sx[1:] == sx[:-1]) & (sy[1:] == sy[:-1])
    return _run_lengths(same)


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
    case = _parse_native(text) if functions() is not None else _parse_fast(text)
    return case if case is not None else _parse_slow(text)


def _parse_native(text: str) -> Case | None:
    """The case of a valid input read by native code, or None."""
    tokens = read_native(text)
    return None if tokens is None else Case.from_tokens(tokens)


def _parse_slow(text: str) -> Case:
    """Token-by-token validating parser: the reference for every accept/reject decision."""
    reader = TokenReader(text)
    n = reader.int("N", 1, MAX_SIDE)
    m = reader.int("M", 1, MAX_SIDE)
    p = reader.int("P", 1, MAX_PEOPLE)
    people = []
    for i in range(p):
        cell = []
        for axis, side, side_name in (("X", n, "N"), ("Y", m, "M")):
            index = reader.index
            value = reader.int(f"{axis}_{i + 1}")
            if not 1 <= value <= side:
                raise reader.error(index, f"person {i + 1}: {axis} = {value} is outside "
                                   f"1..{side_name} = {side}", rule="range")
            cell.append(value)
        people.append(cell)
    reader.end()
    return Case.of(n, m, people)


def _parse_fast(text: str) -> Case | None:
    """The case of a valid input read with NumPy (without native code), or None (every valid
    value is in 1..10^18, within `numpy_uints`' int64)."""
    from pipeline.native.bulk import numpy_uints

    values = numpy_uints(text, 3 + 2 * MAX_PEOPLE)
    if values is None or values.shape[0] < 3:
        return None
    n, m, p = (int(v) for v in values[:3])
    if not (1 <= n <= MAX_SIDE and 1 <= m <= MAX_SIDE and 1 <= p <= MAX_PEOPLE) \
            or values.shape[0] != 3 + 2 * p:
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


# The input's bounds, as `parse` enforces them, for constraint coverage.
BOUNDS = (
    Bound("N", 1, MAX_SIDE, lambda case: (case.n, case.n)),
    Bound("M", 1, MAX_SIDE, lambda case: (case.m, case.m)),
    Bound("P", 1, MAX_PEOPLE, lambda case: (len(case.xs), len(case.xs))),
)
