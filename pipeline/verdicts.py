"""The one vocabulary of verdicts: what each means, their order, which ones fail.

Run, report and nightly all speak it: a verdict is a `Verdict`; `SEVERITY` ranks them worst
first (the verdict a case gets when its repeats disagree); `DISPLAY_ORDER` is the order tables
show them in; `FAILURES` are the verdicts that count against a solver; `ANSWERED` carry an
answer that was graded (or could be); `TIMED` are the ones whose time means something.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from enum import Enum

# The slowdown rule, one for `compare`, the report and the nightly (whose config may set its
# own): a case of a TIMED verdict is slower when NEW/BASE > SLOWDOWN_RATIO and NEW - BASE >
# SLOWDOWN_MIN_MS (CPU time). The floor is measured, not guessed: on a shared 2-core VM the
# same 2,000-node tree case took 9 ms of CPU in one run and 17 ms minutes later, unchanged.
SLOWDOWN_RATIO = 1.5
SLOWDOWN_MIN_MS = 20.0


class Verdict(str, Enum):
    AC = "AC"        # answer matches the expected answer
    WA = "WA"        # answer differs, or is not a valid answer
    TLE = "TLE"      # over the time limit
    MLE = "MLE"      # over the memory limit
    RE = "RE"        # crashed: an exception, a non-zero exit or a signal
    OLE = "OLE"      # wrote more output than allowed
    CE = "CE"        # the program did not compile (the compiler's message is kept)
    JE = "JE"        # the judge failed (a checker or validator crashed): not the solver's fault
    SKIP = "SKIP"    # not run: beyond the stage's declared limits, or no toolchain
    NOEXP = "NOEXP"  # ran fine, but there is no expected answer to compare with

    def __str__(self) -> str:
        return self.value


# Worst first.
SEVERITY: tuple[Verdict, ...] = (Verdict.JE, Verdict.CE, Verdict.RE, Verdict.TLE, Verdict.MLE,
                                 Verdict.OLE, Verdict.WA, Verdict.NOEXP, Verdict.AC,
                                 Verdict.SKIP)
DISPLAY_ORDER: tuple[Verdict, ...] = (Verdict.AC, Verdict.WA, Verdict.TLE, Verdict.MLE,
                                      Verdict.RE, Verdict.OLE, Verdict.CE, Verdict.JE,
                                      Verdict.NOEXP, Verdict.SKIP)
FAILURES = frozenset({Verdict.WA, Verdict.TLE, Verdict.MLE, Verdict.RE, Verdict.OLE,
                      Verdict.CE})
ANSWERED = frozenset({Verdict.AC, Verdict.WA, Verdict.NOEXP})
TIMED = ANSWERED


def names(verdicts: Iterable[Verdict]) -> list[str]:
    """The verdicts' strings (as stored in the tables), in display order."""
    chosen = set(verdicts)
    return [v.value for v in DISPLAY_ORDER if v in chosen]


def severity_rank(verdict: str) -> int:
    """0 for the worst verdict; unknown strings rank after every known one."""
    for rank, known in enumerate(SEVERITY):
        if known.value == verdict:
            return rank
    return len(SEVERITY)


def display_rank(verdict: str) -> tuple[int, str]:
    for rank, known in enumerate(DISPLAY_ORDER):
        if known.value == verdict:
            return (rank, verdict)
    return (len(DISPLAY_ORDER), verdict)


def is_failure(verdict: str) -> bool:
    return verdict in {v.value for v in FAILURES}


def stops_fail_fast(verdict: str) -> bool:
    """Whether `--fail-fast` stops a solver at a case with this verdict: any but `AC` (and
    `SKIP`, a case not run), as `bt run` stops a submission."""
    return verdict not in (Verdict.AC.value, Verdict.SKIP.value)


def grade(answer: str | None, expected: str | None,
          compare: Callable[[str, str], str | None]) -> tuple[Verdict, str | None]:
    """Verdict for a program that ran to completion with output `answer`."""
    if answer is None:
        return Verdict.RE, "no output"
    if expected is None:
        return Verdict.NOEXP, None
    difference = compare(expected, answer)
    return (Verdict.AC, None) if difference is None else (Verdict.WA, difference)
