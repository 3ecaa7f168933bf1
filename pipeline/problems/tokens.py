"""Reading judge files token by token, with errors that say where. Judge files are held to what
a judge's reader sees (docs/faults.md): tokens separated by spaces and newlines only (a tab
only where the statement allows one, `tab=True`; `str.split` splits on more) and canonical
integers (`int` reads `01`). A token is located only to report an error, so the happy path
costs one `str.split` and a few scans.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from itertools import islice

from pipeline.errors import InputError
from pipeline.problems.identity import normalise_newlines

_TOKEN = re.compile(r"\S+")
# An integer as the problems' statements write one, and what merely looks like one.
_INTEGER = re.compile(r"0|-?[1-9][0-9]*")
_NUMERAL = re.compile(r"[+-]?[0-9]+")
QUOTE_CHARS = 100
# Python refuses to convert integers of more digits than this (sys.get_int_max_str_digits).
_MAX_DIGITS = 4000
# Below this many digits a number is converted and range-checked as usual.
_LONG_DIGITS = 40
# What `str.split` splits on besides space and newline, in ASCII (a carriage return is gone
# once newlines are normalised); beyond ASCII, any other whitespace character.
_ASCII_SEPARATORS = "\t\x0b\x0c\r\x1c\x1d\x1e\x1f"
_OTHER_WHITESPACE = re.compile(r"[^\S \n]")
_OTHER_WHITESPACE_BUT_TAB = re.compile(r"[^\S \n\t]")


def quote(text: str, limit: int = QUOTE_CHARS) -> str:
    """`text` as a repr for an error message, cut to about `limit` characters."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text):,} characters)"


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


# Names of the control characters `str.split` splits on (unicodedata names none of them).
_CONTROL_NAMES = {"\x0b": "vertical tab", "\x0c": "form feed", "\x1c": "file separator",
                  "\x1d": "group separator", "\x1e": "record separator",
                  "\x1f": "unit separator", "\x85": "next line"}


def _character_name(ch: str) -> str:
    if ch == "\t":
        return "a tab"
    name = unicodedata.name(ch, "") or _CONTROL_NAMES.get(ch, "a control character")
    return f"U+{ord(ch):04X} ({name.lower()})"


def check_separators(text: str, tab: bool = False) -> None:
    """Fail at the first separator `str.split` takes but a judge's format does not: anything
    but a space or a newline (or a tab, with `tab`); `text`'s newlines are normalised."""
    if text.isascii():
        refused = _ASCII_SEPARATORS.replace("\t", "") if tab else _ASCII_SEPARATORS
        if not any(ch in text for ch in refused):  # a few fast scans: the usual case
            return
    match = (_OTHER_WHITESPACE_BUT_TAB if tab else _OTHER_WHITESPACE).search(text)
    if match is None:
        return
    line, column = _line_col(text, match.start())
    allowed = "spaces, tabs and newlines" if tab else "spaces and newlines"
    raise InputError(line, f"{_character_name(match.group())} between tokens: the format "
                     f"separates tokens by {allowed} only", rule="separator", column=column)


# In TokenReader's body below its method `int`, the name `int` is that method: annotations there
# say Int.
Int = int


class TokenReader:
    """Sequential access to the tokens of one judge file (refuses other separators at once)."""

    def __init__(self, text: str, *, tab: bool = False) -> None:
        self.text = normalise_newlines(text)
        check_separators(self.text, tab)
        self.tokens: list[str] = self.text.split()
        self.index = 0

    # -- locating ---------------------------------------------------------------------------
    def locate(self, index: int) -> tuple[int, int]:
        """1-based (line, column) of token `index`; the end of the text if there is none."""
        found = next(islice(_TOKEN.finditer(self.text), index, None), None) \
            if index < len(self.tokens) else None
        return _line_col(self.text, found.start() if found else len(self.text.rstrip()))

    def line_of(self, index: int) -> int:
        return self.locate(index)[0]

    def error(self, index: int, message: str, rule: str = "format",
              with_column: bool = False) -> InputError:
        """An InputError placed at token `index` (not raised: the caller raises it)."""
        line, column = self.locate(index)
        return InputError(line, message, rule=rule, column=column if with_column else None)

    # -- reading ----------------------------------------------------------------------------
    def _missing(self, what: str) -> InputError:
        return self.error(len(self.tokens), f"expected {what} but the input ended", rule="count")

    def word(self, what: str) -> str:
        if self.index >= len(self.tokens):
            raise self._missing(what)
        token = self.tokens[self.index]
        self.index += 1
        return token

    def int(self, name: str, low: int | None = None, high: int | None = None) -> int:
        """Read one integer named `name` (as the spec names it) and check `low <= x <= high`."""
        index = self.index
        token = self.word(name)
        if not _INTEGER.fullmatch(token):
            raise self._not_an_integer(index, name, token)
        value = self._to_int(index, name, token, low, high)
        self._check_range(index, name, value, low, high)
        return value

    def _not_an_integer(self, index: Int, name: str, token: str) -> InputError:
        """The error for a token that is not a canonical integer."""
        if _NUMERAL.fullmatch(token):
            return self.error(index, f"{name} should be a canonical integer (no leading zero, "
                              f"no '+', no '-0'), found {quote(token)}", rule="non-canonical",
                              with_column=True)
        return self.error(index, f"{name} should be an integer, found {quote(token)}",
                          rule="not-an-integer", with_column=True)

    def _to_int(self, index: Int, name: str, token: str, low: Int | None,
                high: Int | None) -> Int:
        """The integer of a token that matched `_INTEGER`; one with more digits than any
        allowed value is refused before converting it (Python converts at most ~4,300)."""
        negative = token.startswith("-")
        digits = token[negative:]
        bound = low if negative else high
        most = max(len(str(abs(bound))) if bound is not None else _MAX_DIGITS, _LONG_DIGITS)
        if len(digits) > min(most, _MAX_DIGITS):
            side = (f"below {low}" if negative and low is not None else
                    f"above {high}" if not negative and high is not None else
                    "too long to be a number")
            raise self.error(index, f"{name} has {len(digits):,} digits: {quote(token)} is "
                             f"{side}", rule="range")
        return -int(digits) if negative else int(digits)

    def ints(self, count: Int, name: str, low: Int | None = None,
             high: Int | None = None) -> list[Int]:
        """Read `count` integers named `name` (e.g. "c_i") with one range for all of them."""
        start = self.index
        chunk = self.tokens[start:start + count]
        if len(chunk) < count:
            self.index = len(self.tokens)
            raise self._missing(f"{count} values of {name}, got {len(chunk)}")
        try:
            values = list(map(int, chunk))
            joined = " " + " ".join(chunk)
            # (every token that begins with a 0 must be a lone 0, none may begin with -0)
            if not joined.isascii() or "_" in joined or "+" in joined \
                    or joined.count(" 0") != chunk.count("0") or " -0" in joined:
                raise ValueError
        except ValueError:
            for offset, token in enumerate(chunk):
                if not _INTEGER.fullmatch(token):
                    raise self._not_an_integer(start + offset, name, token) from None
            values = [self._to_int(start + offset, name, token, low, high)
                      for offset, token in enumerate(chunk)]
        if values and ((low is not None and min(values) < low)
                       or (high is not None and max(values) > high)):
            for offset, value in enumerate(values):
                self._check_range(start + offset, name, value, low, high)
        self.index = start + count
        return values

    def _check_range(self, index: Int, name: str, value: Int, low: Int | None,
                     high: Int | None) -> None:
        if low is not None and value < low:
            raise self.error(index, f"{name} = {value} is below {low}", rule="range")
        if high is not None and value > high:
            raise self.error(index, f"{name} = {value} is above {high}", rule="range")

    def end(self) -> None:
        """Fail if any token is left over."""
        if self.index < len(self.tokens):
            token = self.tokens[self.index]
            raise self.error(self.index, f"unexpected extra token {quote(token)} after the "
                             "last expected value", rule="trailing-data", with_column=True)


def check_words(text: str, count: int, allowed: tuple[str, ...]) -> None:
    """Check that an output is exactly `count` tokens, each one of `allowed` (as printed)."""
    reader = TokenReader(text)
    if len(reader.tokens) == count and set(reader.tokens) <= set(allowed):
        return  # the usual case, checked at once; the loop below says what is wrong
    choices = " or ".join(allowed)
    if count and not reader.tokens:
        raise InputError(1, f"expected {count} answer(s), {choices}, but the output is empty",
                         rule="count")
    for i in range(count):
        if (token := reader.word(f"answer {i + 1} of {count} ({choices})")) not in allowed:
            raise reader.error(i, f"answer {i + 1} is {quote(token)}, expected {choices}",
                               rule="answer-token", with_column=True)
    reader.end()


def check_tokens_equal(expected: Sequence[str], got: Sequence[str]) -> str | None:
    """None when the token lists agree, else a sentence naming the first difference."""
    for i, (want, have) in enumerate(zip(expected, got)):
        if want != have:
            return f"token {i + 1}: expected {quote(want)}, got {quote(have)}"
    if len(expected) != len(got):
        return f"expected {len(expected)} tokens, got {len(got)}"
    return None
