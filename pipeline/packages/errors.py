"""The one error a problem package raises for bad content: which file, which line, which rule
(`data/secret/a.in: rule missing-answer: test case secret/a has no answer file ...`)."""

from __future__ import annotations

from pipeline.errors import PackageError

__all__ = ["PackageError"]
