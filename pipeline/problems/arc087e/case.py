"""arc087e judge files: the case type, parse (validating), render, answers and sizes.

`parse` first checks the strings wholesale (total and largest length, alphabet, duplicates, and
prefixes by sorting); when any check fails, the sequential path reads them again and reports
the first broken rule in reading order. Tokens are separated by spaces and newlines only (the
statement allows no tab) and N and L are canonical integers (`TokenReader`).
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.errors import InputError
from pipeline.problems.model import Bound, spread
from pipeline.problems.tokens import TokenReader, check_words

MAX_N = 10**5
MAX_L = 10**18
MAX_TOTAL = 10**5


@dataclass(frozen=True)
class Case:
    """One judge input: the length bound L and the strings s_1..s_N in input order."""

    L: int
    strings: tuple[str, ...]

    @property
    def n(self) -> int:
        return len(self.strings)


def _show(s: str) -> str:
    """A string for an error message, shortened when long."""
    if len(s) <= 32:
        return f'"{s}"'
    return f'"{s[:24]}..." (length {len(s)})'


def parse(text: str, quick: bool = True) -> Case:
    reader = TokenReader(text)
    n = reader.int("N", 1, MAX_N)
    big_l = reader.int("L", 1, MAX_L)
    start = reader.index
    strings = reader.tokens[start:start + n]
    if quick and len(strings) == n and len(reader.tokens) == start + n \
            and _quick_ok(strings, big_l):
        return Case(big_l, tuple(strings))
    return _parse_slow(reader, n, big_l)


def parse_slow(text: str) -> Case:
    """`parse` without the wholesale fast path (tests check both give the same case)."""
    return parse(text, quick=False)


def _quick_ok(strings: list[str], big_l: int) -> bool:
    """All constraints hold (checked wholesale); False means "let the slow path find out"."""
    lengths = list(map(len, strings))
    if sum(lengths) > MAX_TOTAL or max(lengths) > big_l:
        return False
    joined = "".join(strings)
    if joined.count("0") + joined.count("1") != len(joined):
        return False
    if len(set(strings)) != len(strings):
        return False
    ordered = sorted(strings)
    # In sorted order a string that is a prefix of another is a prefix of its successor.
    return not any(b.startswith(a) for a, b in zip(ordered, ordered[1:]))


def _parse_slow(reader: TokenReader, n: int, big_l: int) -> Case:
    """Sequential validation: the first broken rule, in reading order, is the one reported."""
    # Trie over the strings read so far: the children (by bit), the index of the string ending
    # at a node (-1 if none) and the index of one string passing through it.
    children: list[list[int]] = [[-1, -1]]
    end: list[int] = [-1]
    through: list[int] = [-1]
    token_index: list[int] = []
    strings: list[str] = []
    total = 0
    for i in range(n):
        index = reader.index
        name = f"s_{i + 1}"
        s = reader.word(name)
        token_index.append(index)
        for offset, ch in enumerate(s):
            if ch != "0" and ch != "1":
                line, column = reader.locate(index)
                raise InputError(line, f"{name} = {_show(s)} has character {ch!r} outside "
                                 "{0, 1}", rule="alphabet", column=column + offset)
        if len(s) > big_l:
            raise reader.error(index, f"|{name}| = {len(s)} is above L = {big_l}", rule="range")
        total += len(s)
        if total > MAX_TOTAL:
            raise reader.error(index, f"|s_1| + ... + |{name}| = {total} is above {MAX_TOTAL}",
                               rule="sum-limit")
        node = 0
        created = False
        for ch in s:
            if end[node] >= 0:
                j = end[node]
                raise reader.error(index, f"{name} = {_show(s)} has s_{j + 1} = "
                                   f"{_show(strings[j])} (line {reader.line_of(token_index[j])})"
                                   " as a prefix", rule="prefix")
            bit = 0 if ch == "0" else 1
            nxt = children[node][bit]
            if nxt < 0:
                nxt = children[node][bit] = len(end)
                children.append([-1, -1])
                end.append(-1)
                through.append(i)
                created = True
            node = nxt
        if end[node] >= 0:
            j = end[node]
            raise reader.error(index, f"{name} = {_show(s)} duplicates s_{j + 1} (line "
                               f"{reader.line_of(token_index[j])})", rule="duplicate")
        if not created:
            j = through[node]
            raise reader.error(index, f"{name} = {_show(s)} is a prefix of s_{j + 1} = "
                               f"{_show(strings[j])} (line {reader.line_of(token_index[j])})",
                               rule="prefix")
        end[node] = i
        strings.append(s)
    reader.end()
    return Case(big_l, tuple(strings))


def render(case: Case) -> str:
    return f"{case.n} {case.L}\n" + "\n".join(case.strings) + "\n"


def format_answer(case: Case, answer: bool) -> str:
    return "Alice\n" if answer else "Bob\n"


def validate_answer(case: Case, text: str) -> None:
    check_words(text, 1, ("Alice", "Bob"))


def size(case: Case) -> int:
    return sum(map(len, case.strings))


def size_values(case: Case) -> dict[str, int]:
    lengths = list(map(len, case.strings))
    return {"strings": len(lengths), "total_length": sum(lengths), "max_length": max(lengths),
            "L_bits": case.L.bit_length()}


# The input's bounds, as `parse` enforces them, for constraint coverage.
BOUNDS = (
    Bound("N", 1, MAX_N, lambda case: (case.n, case.n)),
    Bound("L", 1, MAX_L, lambda case: (case.L, case.L)),
    # |s_i| <= L, and the total caps it at 10^5
    Bound("|s_i|", 1, MAX_TOTAL, lambda case: spread(map(len, case.strings))),
    Bound("|s_1| + ... + |s_N|", 1, MAX_TOTAL, lambda case: (size(case), size(case))),
)
