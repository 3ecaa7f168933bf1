"""Telling a program that could not start (not exec'd, exit 127 or 126, an interpreter or JVM
that gave up before its first line) from one that ran and failed. A program most of whose cases
end with one start-up failure is named in one line with a hint, and the run exits non-zero.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from pipeline.untrusted import fatal_line
from pipeline.verdicts import Verdict

# What an interpreter or a loader says when the program never started (the first error line).
START_MESSAGES = (
    "can't open file",                              # python3 nosuch.py
    "Could not find or load main class",            # java
    "Unable to access jarfile",                     # java -jar
    "Error occurred during initialization of VM",   # the JVM's heap or class space
    "Could not reserve enough space",
    "ModuleNotFoundError: No module named",         # an interpreter without its packages
    "error while loading shared libraries",         # the dynamic loader
    "cannot execute binary file",
    "Exec format error",
)
NOT_FOUND = 127    # a shell's (and a shim's) "command not found"
NOT_EXECUTABLE = 126


TRACEBACK = "Traceback (most recent call last):"


# How an outcome's error starts: why the program ended, then what it said (`external`).
_REASON = re.compile(r"^(?:exit code -?\d+|signal \d+(?: \(\w+\))?|memory limit \d+ MB): ")


def error_line(error: str | None) -> str:
    """The first non-empty line of an outcome's error (''); where a later line says why it
    died (`fatal_line`), why it ended (`exit code 1: `) and that line instead."""
    lines = [line.strip() for line in (error or "").splitlines() if line.strip()]
    if not lines:
        return ""
    fatal = fatal_line(error or "")
    if fatal is None or fatal == lines[0]:
        return lines[0]
    if reason := _REASON.match(lines[0]):
        return reason.group(0) + fatal
    if lines[0].endswith(TRACEBACK):
        return lines[0][:-len(TRACEBACK)] + fatal
    return fatal


def is_start_failure(verdict: str, exit_code: int | None, error: str | None) -> bool:
    """Whether a result with this verdict, exit code and error is a program never started."""
    text = error or ""
    return verdict == Verdict.RE.value and (
        text.startswith("cannot start ") or exit_code in (NOT_FOUND, NOT_EXECUTABLE)
        or any(m in text for m in START_MESSAGES))


def hint(line: str, sandboxed: bool) -> str:
    """What to try about a start-up failure whose first error line is `line`."""
    missing = any(word in line for word in ("No such file", "can't open file", "not found",
                                            "No module named", "Permission denied",
                                            "Could not find or load"))
    if sandboxed and missing:
        return ("the sandbox shows the program only the system folders, the program and the "
                "files named in its command: try --sandbox off")
    if "initialization of VM" in line or "reserve enough space" in line:
        return "the JVM could not reserve its memory: give it more with --memory"
    if "can't open file" in line or "Unable to access jarfile" in line:
        return "a file named in the command does not exist: check its path"
    if missing:
        return "a file or command it needs is missing: run the command by hand to see"
    return "run the command by hand in a shell to see why"


@dataclass(frozen=True)
class StartFailure:
    """A program most of whose cases ended with the same start-up failure."""

    solver: str
    cases: int     # the cases that ended with `line`
    total: int     # every result of the program
    line: str      # the first line of the error
    hint: str

    def text(self) -> str:
        return (f"{self.solver} could not start ({self.cases} of {self.total} cases): "
                f"{self.line} (hint: {self.hint})")


def start_failure(solver: str, total: int, failures: Counter,
                  sandboxed: bool) -> StartFailure | None:
    """The start-up failure of `solver` when its most common one (of `failures`, not empty)
    ended at least half of its `total` results, else None."""
    line, count = failures.most_common(1)[0]
    if 2 * count < total:
        return None
    return StartFailure(solver, count, total, line, hint(line, sandboxed))
