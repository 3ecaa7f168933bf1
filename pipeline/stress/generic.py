"""Shrink passes and hunt mutations over the judge text alone (lines of whitespace-separated
tokens), for a problem that brings no passes of its own (docs/stress.md#shrinking).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator

from pipeline.problems.edits import removals, without

Lines = list[list[str]]
_INTEGER = re.compile(r"-?[0-9]+")
HEADER_TOKENS = 3  # integers of the first line tried as counts


def read_lines(text: str) -> Lines:
    return [line.split() for line in text.splitlines()]


def write_lines(lines: Lines) -> str:
    return "".join(" ".join(tokens) + "\n" for tokens in lines)


def _is_int(token: str) -> bool:
    return bool(_INTEGER.fullmatch(token)) and len(token) <= 30


def _with_counts_lowered(lines: Lines, by: int) -> Iterator[Lines]:
    """`lines` with one integer of the first line lowered by `by` (each of the first few)."""
    if not lines or by <= 0:
        return
    head = lines[0]
    for index, token in enumerate(head[:HEADER_TOKENS]):
        if _is_int(token) and int(token) >= by:
            changed = list(head)
            changed[index] = str(int(token) - by)
            yield [changed] + lines[1:]


def delete_lines(text: str) -> Iterator[str]:
    """Delete runs of lines (halves, quarters, ..., single lines), also with a count of the
    first line lowered to match."""
    lines = read_lines(text)
    for removed in removals(len(lines), minimum_kept=1):
        kept = list(without(lines, removed))
        yield write_lines(kept)
        if removed.start > 0:
            for variant in _with_counts_lowered(kept, len(removed)):
                yield write_lines(variant)


def delete_tokens(text: str) -> Iterator[str]:
    """Delete runs of tokens, the same way; lines left empty go too."""
    lines = read_lines(text)
    places = [(row, col) for row, tokens in enumerate(lines) for col in range(len(tokens))]
    for removed in removals(len(places), minimum_kept=1):
        gone = set(places[removed.start:removed.stop])
        kept = [[t for col, t in enumerate(tokens) if (row, col) not in gone]
                for row, tokens in enumerate(lines)]
        first_row_touched = any(row == 0 for row, _ in gone)
        kept = [tokens for tokens in kept if tokens]
        yield write_lines(kept)
        if not first_row_touched:
            count = len(removed)
            for by in sorted({count, count // 2} - {0}, reverse=True):
                for variant in _with_counts_lowered(kept, by):
                    yield write_lines(variant)


def smaller_magnitudes(value: int) -> Iterator[int]:
    """Numbers between 0 and `value` (a natural number) to try instead of it, boldest first:
    0, 1, half, then `value` less a quarter, an eighth, ..., less one."""
    seen = set()
    steps = [value >> shift for shift in range(2, value.bit_length() + 1)]
    for candidate in (0, 1, value // 2, *(value - step for step in steps if step), value - 1):
        if 0 <= candidate < value and candidate not in seen:
            seen.add(candidate)
            yield candidate


def lower_numbers(text: str) -> Iterator[str]:
    """Every integer token lowered towards 0 and 1 (negative ones raised towards 0)."""
    lines = read_lines(text)
    for row, tokens in enumerate(lines):
        for col, token in enumerate(tokens):
            if not _is_int(token):
                continue
            value = int(token)
            smaller = (smaller_magnitudes(value) if value >= 0
                       else (-v for v in smaller_magnitudes(-value)))
            for candidate in smaller:
                changed = [list(t) for t in lines]
                changed[row][col] = str(candidate)
                yield write_lines(changed)


def cut_words(text: str) -> Iterator[str]:
    """Every word that is not a number cut to its first half, then by its last character."""
    lines = read_lines(text)
    for row, tokens in enumerate(lines):
        for col, token in enumerate(tokens):
            if _is_int(token) or len(token) < 2:
                continue
            for cut in dict.fromkeys((token[:len(token) // 2], token[:-1])):
                changed = [list(t) for t in lines]
                changed[row][col] = cut
                yield write_lines(changed)


SHRINK_PASSES: tuple[tuple[str, Callable[[str], Iterator[str]]], ...] = (
    ("delete-lines", delete_lines),
    ("delete-tokens", delete_tokens),
    ("lower-numbers", lower_numbers),
    ("cut-words", cut_words),
)


# -- hunt mutations over the text ---------------------------------------------------------------

def swap_lines(text: str, rng: random.Random) -> str | None:
    lines = read_lines(text)
    if len(lines) < 3:
        return None
    a, b = rng.sample(range(1, len(lines)), 2)
    lines[a], lines[b] = lines[b], lines[a]
    return write_lines(lines)


def copy_line(text: str, rng: random.Random) -> str | None:
    lines = read_lines(text)
    if len(lines) < 3:
        return None
    a, b = rng.sample(range(1, len(lines)), 2)
    lines[b] = list(lines[a])
    return write_lines(lines)


def _integer_places(lines: Lines) -> list[tuple[int, int]]:
    """Where the integers are, the first line's left out (it usually holds the counts) unless
    it is the only one."""
    first = 0 if len(lines) == 1 else 1
    return [(row, col) for row, tokens in enumerate(lines) for col, token in enumerate(tokens)
            if row >= first and _is_int(token)]


def copy_number(text: str, rng: random.Random) -> str | None:
    """One integer set to the value of another one."""
    lines = read_lines(text)
    places = _integer_places(lines)
    if len(places) < 2:
        return None
    (ra, ca), (rb, cb) = rng.sample(places, 2)
    lines[rb][cb] = lines[ra][ca]
    return write_lines(lines)


def nudge_number(text: str, rng: random.Random) -> str | None:
    lines = read_lines(text)
    places = _integer_places(lines)
    if not places:
        return None
    row, col = rng.choice(places)
    lines[row][col] = str(int(lines[row][col]) + rng.choice((-1, 1)))
    return write_lines(lines)


MUTATIONS: tuple[tuple[str, Callable[[str, random.Random], str | None]], ...] = (
    ("swap-lines", swap_lines),
    ("copy-line", copy_line),
    ("copy-number", copy_number),
    ("nudge-number", nudge_number),
)
