"""The closed set of verdicts a solver can get on one case, and how an answer is graded."""

from __future__ import annotations

from enum import Enum


class Verdict(str, Enum):
    AC = "AC"        # answer matches the expected answer
    WA = "WA"        # answer differs, or is not a valid answer
    TLE = "TLE"      # killed after the time limit
    MLE = "MLE"      # stopped by the memory limit
    RE = "RE"        # crashed: an exception, a non-zero exit or a signal
    OLE = "OLE"      # wrote more output than allowed
    SKIP = "SKIP"    # the case is beyond the stage's declared limits
    NOEXP = "NOEXP"  # ran fine, but there is no expected answer to compare with

    def __str__(self) -> str:
        return self.value


FAILURES = frozenset({Verdict.WA, Verdict.TLE, Verdict.MLE, Verdict.RE, Verdict.OLE})


def grade(answer: str | None, expected: str | None, compare) -> tuple[Verdict, str | None]:
    """Verdict for a program that ran to completion with output `answer`."""
    if answer is None:
        return Verdict.RE, "no output"
    if expected is None:
        return Verdict.NOEXP, None
    difference = compare(expected, answer)
    return (Verdict.AC, None) if difference is None else (Verdict.WA, difference)
