"""Errors the pipeline reports to its users: the command line prints a `UserError` in one line
(exit 1, 2 for an option's value); an `InputError` (a 1-based line and column, a rule name and a
sentence) is also stored as a `rejects` row. A `UserError` is a `ValueError`, so code that
catches bad values still does.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial


class UserError(ValueError):
    """What the user asked for cannot be done as asked; the message says why, in one line."""


class InputError(UserError):
    """A judge file breaks its problem's format or constraints at a known place."""

    def __init__(self, line: int | None, message: str, *, rule: str = "format",
                 column: int | None = None) -> None:
        self.line, self.column, self.rule, self.message = line, column, rule, message
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.line is None:
            return self.message
        column = f", column {self.column}" if self.column is not None else ""
        return f"line {self.line}{column}: {self.message}"

    def __reduce__(self):  # keep all fields when pickled across worker processes
        return partial(InputError, rule=self.rule, column=self.column), (self.line, self.message)


class BeyondLimits(Exception):
    """A solver stage was handed a case beyond its declared limits: `SKIP`, never wrong."""


class UnknownName(KeyError):
    """A problem, stage or recipe name that is not registered."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown name"


class PackageError(UserError):
    """The one error a problem package raises for bad content, at a known file (and line):
    `data/secret/a.in: rule missing-answer: ...`. `case`: the test case it costs when that is
    not `file` itself (`secret/03`, for a case generators.yaml could not make)."""

    def __init__(self, file: str, rule: str, message: str, *, line: int | None = None,
                 case: str | None = None) -> None:
        self.file, self.rule, self.message, self.line, self.case = file, rule, message, line, case
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: rule {self.rule}: {self.message}"

    def __reduce__(self):  # keep every field when pickled across worker processes
        fields = (self.file, self.rule, self.message)
        return partial(PackageError, line=self.line, case=self.case), fields


def closest_name(name: str, names: Iterable[str]) -> str | None:
    """The one of `names` closest to the mistyped `name` (None when none is close)."""
    import difflib

    close = difflib.get_close_matches(name, list(names), n=1)
    return close[0] if close else None
