"""The one error a problem package raises for bad content: which file, which line, which rule.

A `PackageError` is what the loaders raise when a package breaks its format (a missing
`problem.yaml`, an `.in` without its `.ans`, an unknown key, a Polygon test without its file):
it names the file (relative to the package when possible), the 1-based line where one is known,
a short machine-readable rule name and a sentence a problem setter understands. Its `str` reads
`data/secret/a.in: rule missing-answer: test case secret/a has no answer file secret/a.ans`.
"""

from __future__ import annotations

from pipeline.errors import PackageError

__all__ = ["PackageError"]
