"""The one error a problem package raises for bad content: which file, which line, which rule.

A `PackageError` is what the loaders raise when a package breaks its format (a missing
`problem.yaml`, an `.in` without its `.ans`, an unknown key, a Polygon test without its file):
it names the file (relative to the package when possible), the 1-based line where one is known,
a short machine-readable rule name and a sentence a problem setter understands. Its `str` reads
`data/secret/a.in: rule missing-answer: test case secret/a has no answer file secret/a.ans`.
"""

from __future__ import annotations

from pipeline.errors import UserError


class PackageError(UserError):
    """A problem package breaks a rule of its format at a known file (and line)."""

    def __init__(self, file: str, rule: str, message: str, *, line: int | None = None) -> None:
        self.file = file
        self.rule = rule
        self.message = message
        self.line = line
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: rule {self.rule}: {self.message}"

    def __reduce__(self):  # keep every field when pickled across worker processes
        return (_rebuild, (self.file, self.rule, self.message, self.line))


def _rebuild(file: str, rule: str, message: str, line: int | None) -> PackageError:
    return PackageError(file, rule, message, line=line)
