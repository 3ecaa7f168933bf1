"""The one vocabulary of verdicts: what each means, their order, which ones fail. No other
module spells a verdict as a string; `SPELLINGS` is the one table of how others write them
(folders, `submissions.yaml`, DOMjudge, ...), read by `Verdict.from_string`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from enum import Enum
from typing import Literal

# The slowdown rule, one for `compare`, the report and the nightly (whose config may set its
# own): a case of a TIMED verdict is slower when NEW/BASE > SLOWDOWN_RATIO and NEW - BASE >
# SLOWDOWN_MIN_MS (CPU time), a floor above the noise of an unchanged case's CPU time.
SLOWDOWN_RATIO = 1.5
SLOWDOWN_MIN_MS = 20.0


# Where a verdict is written: the dialects of `SPELLINGS`.
Dialect = Literal["pipeline", "submissions.yaml", "folder", "domjudge", "@EXPECTED_RESULTS@",
                  "expected folder"]


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

    @classmethod
    def from_string(cls, text: str, dialect: Dialect = "pipeline") -> Verdict:
        """The verdict `text` names where it is written (`dialect`, a key of `SPELLINGS`); a
        ValueError listing the known spellings when it names none."""
        known = SPELLINGS[dialect]
        if text not in known:
            raise ValueError(f"unknown verdict {text!r} in {dialect}; known: "
                             f"{', '.join(known)}")
        return known[text]


# DOMjudge's result names (its `@EXPECTED_RESULTS@` words).
_DOMJUDGE = {"CORRECT": Verdict.AC, "WRONG-ANSWER": Verdict.WA, "NO-OUTPUT": Verdict.WA,
             "TIMELIMIT": Verdict.TLE, "RUN-ERROR": Verdict.RE, "MEMORY-LIMIT": Verdict.MLE,
             "OUTPUT-LIMIT": Verdict.OLE, "COMPILER-ERROR": Verdict.CE}

# Every spelling of a verdict, by where it is written (each dialect keeps its own strictness:
# a spelling one reads is not read by another). Order is kept: messages list the spellings.
SPELLINGS: dict[Dialect, dict[str, Verdict]] = {
    # the pipeline's own: the `verdict` column of the tables, a build's cached result
    "pipeline": {v.value: v for v in Verdict},
    # submissions.yaml's `permitted` / `required` lists (the spec's RTE is RE)
    "submissions.yaml": {"AC": Verdict.AC, "WA": Verdict.WA, "TLE": Verdict.TLE,
                         "RTE": Verdict.RE},
    # a legacy package's submission folders: the overall verdict (problemtools' final verdict)
    # each must get
    "folder": {"accepted": Verdict.AC, "partially_accepted": Verdict.AC,
               "wrong_answer": Verdict.WA, "time_limit_exceeded": Verdict.TLE,
               "run_time_error": Verdict.RE},
    "domjudge": _DOMJUDGE,
    # a submission's `@EXPECTED_RESULTS@:` words: DOMjudge's, then the spellings BAPCtools also
    # reads there (`verdicts.from_string_domjudge`)
    "@EXPECTED_RESULTS@": {**_DOMJUDGE, "ACCEPTED": Verdict.AC, "WRONG_ANSWER": Verdict.WA,
                           "TIME_LIMIT_EXCEEDED": Verdict.TLE, "RUN_TIME_ERROR": Verdict.RE},
    # what the strength report reads from `expected to be <folder>`: the verdict that kills
    # the program (`report.strength.kill_verdicts`; any other folder or tag: any failure)
    "expected folder": {"wrong_answer": Verdict.WA, "time_limit_exceeded": Verdict.TLE,
                        "run_time_error": Verdict.RE, "memory_limit_exceeded": Verdict.MLE,
                        "output_limit_exceeded": Verdict.OLE},
}

def _expects(*verdicts: Verdict, **more) -> dict:
    """A rule on a submission's verdicts that permits AC and `verdicts` and requires one of
    `verdicts` (as `packages.model.Requirement`'s fields, with `more`)."""
    return {"permitted": frozenset({Verdict.AC, *verdicts}), "required": frozenset(verdicts),
            **more}


# What a submission's folder expects of it in the 2023-07 / 2025-09 formats (the spec's
# "Default directories"): a rule on its verdicts, as `packages.model.Requirement`'s fields
# (submissions.yaml may override them).
FOLDER_RULES: dict[str, dict] = {
    "accepted": {"permitted": frozenset({Verdict.AC})},
    "rejected": {"required": frozenset({Verdict.RE, Verdict.TLE, Verdict.WA})},
    "wrong_answer": _expects(Verdict.WA),
    "time_limit_exceeded": _expects(Verdict.TLE),
    "run_time_error": _expects(Verdict.RE),
    "brute_force": _expects(Verdict.RE, Verdict.TLE, use_for_time_limit=False),
}

_REJECTED = frozenset({Verdict.WA, Verdict.TLE, Verdict.MLE, Verdict.RE, Verdict.OLE})
# What a Polygon solution tag expects of it: its rules on verdicts, as `Requirement`'s fields
# (none: `do-not-run`, a solution not judged). Order is kept: messages list the tags.
POLYGON_TAGS: dict[str, tuple[dict, ...]] = {
    "main": ({"permitted": frozenset({Verdict.AC})},),
    "accepted": ({"permitted": frozenset({Verdict.AC})},),
    "rejected": ({"required": _REJECTED},),
    "wrong-answer": (_expects(Verdict.WA),),
    "presentation-error": (_expects(Verdict.WA, message="presentation error"),),
    "time-limit-exceeded": (_expects(Verdict.TLE),),
    "time-limit-exceeded-or-accepted": ({"permitted": frozenset({Verdict.AC, Verdict.TLE})},),
    "time-limit-exceeded-or-memory-limit-exceeded": (_expects(Verdict.TLE, Verdict.MLE),),
    "memory-limit-exceeded": (_expects(Verdict.MLE),),
    "failed": (_expects(Verdict.RE),),
    "do-not-run": (),
}


# Worst first: the verdict a case gets when its repeats disagree.
SEVERITY: tuple[Verdict, ...] = (Verdict.JE, Verdict.CE, Verdict.RE, Verdict.TLE, Verdict.MLE,
                                 Verdict.OLE, Verdict.WA, Verdict.NOEXP, Verdict.AC,
                                 Verdict.SKIP)
# The order tables show them in; `FAILURES` count against a solver; `ANSWERED` carry an answer
# that was graded (or could be); `TIMED` are those whose time means something.
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


_DISPLAY_RANKS = {known.value: rank for rank, known in enumerate(DISPLAY_ORDER)}


def display_rank(verdict: str) -> tuple[int, str]:
    return (_DISPLAY_RANKS.get(verdict, len(DISPLAY_ORDER)), verdict)


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
