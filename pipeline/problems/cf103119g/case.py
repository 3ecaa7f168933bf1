"""cf103119g judge files: the case type, parse (validating), render, answers and sizes.

`parse` first tries a bulk conversion of the tokens (the operations of a large input checked
with numpy); on any doubt that path returns None and the token-by-token path runs, which names
the line and the rule of the first violation.
"""

from __future__ import annotations

import gc
import re
from dataclasses import dataclass

from pipeline.errors import InputError
from pipeline.problems.tokens import TokenReader, check_words

MAX_N = 200_000
MAX_M = 200_000
MAX_VALUE = 255

# Compatible values of each byte: itself and its 8 one-bit neighbours.
_COMPATIBLE: tuple[tuple[int, ...], ...] = tuple(
    (v,) + tuple(v ^ (1 << b) for b in range(8)) for v in range(256))

_INTEGER = re.compile(r"-?[0-9]+")


@dataclass(frozen=True)
class Case:
    """The initial values and the operations, each `(1, value)` or `(2, position)`."""

    values: tuple[int, ...]
    ops: tuple[tuple[int, int], ...]

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def m(self) -> int:
        return len(self.ops)

    @property
    def appends(self) -> int:
        return sum(1 for op, _ in self.ops if op == 1)

    @property
    def queries(self) -> int:
        return sum(1 for op, _ in self.ops if op == 2)


def parse(text: str) -> Case:
    """Judge input -> Case; InputError naming the line and the rule for any violation."""
    gc_was_enabled = gc.isenabled()
    gc.disable()  # building 2e5 small tuples otherwise triggers many useless collections
    try:
        case = _parse_fast(text)
        if case is not None:
            return case
        return _parse_slow(text)
    finally:
        if gc_was_enabled:
            gc.enable()


_VECTORISE_FROM = 20_000  # operations; below this numpy's import costs more than it saves


def _parse_fast(text: str) -> Case | None:
    """The happy path: bulk conversion; None on any doubt (the slow path then explains)."""
    try:
        reader = TokenReader(text)
        tokens = reader.tokens
        if len(tokens) < 2:
            return None
        n = _read_int(reader, "n", 1, MAX_N)
        m = _read_int(reader, "m", 1, MAX_M)
        if len(tokens) != 2 + n + 2 * m:
            return None
        values = reader.ints(n, "A_i", 0, MAX_VALUE)
        flat = reader.ints(2 * m, "op or k")
    except (InputError, ValueError):
        return None
    kinds = flat[0::2]
    args = flat[1::2]
    if m >= _VECTORISE_FROM:
        if not _ops_valid_numpy(n, flat):
            return None
    else:
        length = n
        for op, k in zip(kinds, args):
            if op == 1:
                if not 0 <= k <= MAX_VALUE:
                    return None
                length += 1
            elif op == 2:
                if not 1 <= k <= length:
                    return None
            else:
                return None
    return Case(tuple(values), tuple(zip(kinds, args)))


def _ops_valid_numpy(n: int, flat: list[int]) -> bool:
    """The same checks as the loop of `_parse_fast`, vectorised."""
    import numpy as np

    if min(flat) < 0 or max(flat) > MAX_N + MAX_M:  # also keeps the int64 conversion safe
        return False
    array = np.array(flat, dtype=np.int64)
    kinds = array[0::2]
    args = array[1::2]
    appends = kinds == 1
    queries = kinds == 2
    if not (appends | queries).all() or not (args[appends] <= MAX_VALUE).all():
        return False
    # A query may ask about any position up to the length at that moment.
    lengths = n + np.cumsum(appends)
    return bool((args[queries] >= 1).all() and (args[queries] <= lengths[queries]).all())


def _read_int(reader: TokenReader, name: str, low: int | None, high: int | None) -> int:
    """One integer with a range check; absurdly long tokens are range errors, not crashes."""
    index = reader.index
    token = reader.word(name)
    if not _INTEGER.fullmatch(token):
        raise reader.error(index, f"{name} should be an integer, found {token!r}",
                           rule="not-an-integer", with_column=True)
    if len(token.lstrip("-").lstrip("0")) > 30:
        raise reader.error(index, f"{name} = {token[:12]}... ({len(token)} characters) is "
                           "out of range", rule="range")
    value = int(token)
    if low is not None and value < low:
        raise reader.error(index, f"{name} = {value} is below {low}", rule="range")
    if high is not None and value > high:
        raise reader.error(index, f"{name} = {value} is above {high}", rule="range")
    return value


def _parse_slow(text: str) -> Case:
    """Token by token, with a precise error for the first violation."""
    reader = TokenReader(text)
    n = _read_int(reader, "n", 1, MAX_N)
    m = _read_int(reader, "m", 1, MAX_M)
    values = tuple(_read_int(reader, f"A_{i + 1}", 0, MAX_VALUE) for i in range(n))
    ops = []
    length = n
    for j in range(m):
        index = reader.index
        op = _read_int(reader, f"op of operation {j + 1}", None, None)
        if op not in (1, 2):
            raise reader.error(index, f"operation {j + 1}: op = {op} is neither 1 nor 2",
                               rule="range")
        if op == 1:
            k = _read_int(reader, f"k of operation {j + 1} (append)", 0, MAX_VALUE)
            length += 1
        else:
            k = _read_int(reader, f"k of operation {j + 1} (query)", 1, None)
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


def format_answer(case: Case, answer: tuple[bool, ...]) -> str:
    """One line per query: Grammy (first player wins) or Alice; "" when there is no query."""
    if not answer:
        return ""
    return "\n".join("Grammy" if win else "Alice" for win in answer) + "\n"


def validate_answer(case: Case, text: str) -> None:
    check_words(text, case.queries, ("Grammy", "Alice"))


def size(case: Case) -> int:
    return case.n + case.m


def size_values(case: Case) -> dict[str, int]:
    appends = case.appends
    return {"initial": case.n, "operations": case.m, "appends": appends,
            "queries": case.m - appends, "final_length": case.n + appends}
