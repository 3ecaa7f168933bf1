"""Holding each submission's verdicts against what its folder, tag or submissions.yaml expects.

Rules (`model.Requirement`): `permitted` (every case in scope gets one of these), `required`
(at least one does), `score` (the submission's or the scoped group's score lies in the range),
`message` (appears in a case's judgemessage.txt), legacy `final_verdict` (problemtools' overall
verdict, also accepted with the safety margin's extra time) and DOMjudge `final_any_of` (the
first rejected case's verdict). Kattis rules know only AC, WA, TLE and RTE: MLE and OLE count
as RE, as problemtools sees them.

A judge error is never held against the submission (`judge-error`); agreeing on the judged
cases while the package holds unjudged ones is `partial` (`on_part`); a submission with no
toolchain here is `skipped`. An agreement that changes between the margin's low and high
limits is "sensitive to time limit", as problemtools flags it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from pipeline.errors import PackageError, UserError
from pipeline.packages.kattis_programs import glob_matches
from pipeline.packages.model import (
    CaseResult,
    Package,
    Program,
    Requirement,
    requirements_of,
)
from pipeline.packages.scoring import aggregate, first_error
from pipeline.verdicts import Verdict

SHOWN_CASES = 20
# The verdicts that stand at every time limit: the submission did not run (CE, SKIP) or the
# judge failed (JE).
NOT_JUDGED = frozenset({Verdict.CE, Verdict.JE, Verdict.SKIP})

# Until a run derives a package's time limit from its accepted submissions, cases are run
# with this much CPU time (the probe) so the accepted ones can be timed.
PROBE_TIME_S = 10.0


def verdict_at(result: CaseResult, time_s: float) -> Verdict:
    """The verdict this run gets when judged at time limit `time_s`."""
    if result.verdict in NOT_JUDGED or result.untimed_verdict == Verdict.JE:
        return result.verdict
    if result.timed_out or result.cpu_s > time_s:
        return Verdict.WA if result.validator_first_wa else Verdict.TLE
    return result.untimed_verdict


def kattis_class(verdict: Verdict) -> Verdict:
    return Verdict.RE if verdict in (Verdict.MLE, Verdict.OLE) else verdict


@dataclass(frozen=True)
class TimeLimit:
    """The time limit a package is judged at, and how it was reached."""

    time_s: float
    low_s: float                   # judged again at these two to find sensitive submissions
    high_s: float
    source: Literal["given", "derived"]
    how: str                       # a sentence: where the number comes from
    conflict: str | None = None    # the format's bounds cannot all be met


def margins(package: Package, time_s: float) -> tuple[float, float]:
    limits = package.limits
    if package.format == "legacy":
        return time_s / limits.time_limit_to_tle, time_s * limits.time_limit_to_tle
    if package.format == "polygon":
        return time_s / 2, time_s * 2
    return time_s / limits.ac_to_time_limit, time_s * limits.time_limit_to_tle


def given_time_limit(package: Package) -> TimeLimit | None:
    if package.limits.time_source != "given" or package.limits.time_s is None:
        return None
    time_s = package.limits.time_s
    return TimeLimit(time_s, *margins(package, time_s), "given", (
        f"the contest's time limit of {time_s:g} s ({package.limits.time_from}; the package "
        "gives none)") if package.limits.time_from else f"the package's time limit of {time_s:g} s")


def bound_submissions(package: Package, upper: bool = False) -> list[Program]:
    """Submissions whose times bound the time limit from below (`upper`: from above) on some
    cases (`bounds`)."""
    return [program for program in package.submissions
            if any(found[1] if upper else found[0] for found in _rule_bounds(package, program))]


def bounds(package: Package, program: Program, case: str) -> tuple[bool, bool]:
    """Whether `program`'s run on `case` bounds a derived time limit from below and from
    above, as its rules in scope say: permitting no TLE (or `use_for_time_limit: lower`)
    bounds it from below, requiring TLE only (or `upper`) from above, `false` neither, as
    BAPCtools reads them. A legacy or Polygon package's accepted (main) submissions bound it
    from below on every case."""
    found = _rule_bounds(package, program, case)
    return any(lower for lower, _ in found), any(upper for _, upper in found)


def _rule_bounds(package: Package, program: Program,
                 case: str | None = None) -> list[tuple[bool, bool]]:
    """(from below, from above) for each rule of `program` in scope of `case` (None: all)."""
    if package.format in ("legacy", "polygon"):
        accepted = bool(program.expectation and program.expectation.label in ("accepted", "main"))
        return [(accepted, False)]
    return [(use == "lower" or (use != "upper" and rule.permitted is not None
                                and Verdict.TLE not in rule.permitted),
             use == "upper" or (use != "lower" and rule.required == frozenset({Verdict.TLE})))
            for rule in requirements_of(program)
            if (case is None or _in_scope(rule.scope, case))
            and (use := rule.use_for_time_limit) is not False]


def times_out_by_design(program: Program, case: str | None = None) -> bool:
    """Whether `program` is meant to time out on `case` (None: every case): a rule in scope
    names TLE as what it must or may get, and none forbids TLE there."""
    rules = [rule for rule in requirements_of(program)
             if case is None or _in_scope(rule.scope, case)]
    return not any(r.permitted is not None and Verdict.TLE not in r.permitted for r in rules) \
        and any(_names_tle(rule) for rule in rules)


def times_out_somewhere(program: Program) -> bool:
    """Whether a rule of `program`'s expectation, on some cases or all, names TLE."""
    return any(_names_tle(rule) for rule in requirements_of(program))


def _names_tle(rule: Requirement) -> bool:
    return (Verdict.TLE in (rule.permitted or ()) or Verdict.TLE in (rule.required or ())
            or rule.final_verdict == Verdict.TLE or Verdict.TLE in (rule.final_any_of or ()))


def expected_to_pass(program: Program) -> bool:
    """Whether `program` is `accepted` (or `main`) and no rule permits or requires other than AC,
    names another final verdict or bounds the limit from above."""
    expectation = program.expectation
    if expectation is None or expectation.label not in ("accepted", "main"):
        return False
    return all(_allows_ac(rule) and rule.use_for_time_limit != "upper"
               for rule in requirements_of(program))


def may_pass(program: Program) -> bool:
    """Whether `program` may get every case right: each rule permits AC, requires nothing
    that excludes AC and names no other final verdict (`wrong_answer/` may not)."""
    return all(_allows_ac(rule) and (rule.final_any_of is None or Verdict.AC in rule.final_any_of)
               for rule in requirements_of(program))


def may_not_compile(program: Program) -> bool:
    """Whether it may fail to compile (`@EXPECTED_RESULTS@: COMPILER-ERROR`)."""
    return any(rule.final_any_of and Verdict.CE in rule.final_any_of
               for rule in requirements_of(program))


def _allows_ac(rule: Requirement) -> bool:
    """Whether the rule permits AC, requires nothing that excludes it, names no other verdict."""
    return ((rule.permitted is None or Verdict.AC in rule.permitted)
            and (rule.required is None or Verdict.AC in rule.required)
            and rule.final_verdict in (None, Verdict.AC))


def derive_time_limit(package: Package, runs: Mapping[str, Mapping[str, CaseResult]]) -> TimeLimit:
    """The time limit from the submissions' CPU times, as the package's format says."""
    if (given := given_time_limit(package)) is not None:
        return given
    limits = package.limits
    lower = [p for p in bound_submissions(package) if p.name in runs]
    # each run on a case where its submission bounds the limit from below
    times = [(r.cpu_s, p.name, r.case) for p in lower for r in runs[p.name].values()
             if r.verdict not in NOT_JUDGED and bounds(package, p, r.case)[0]]
    if not times:
        raise UserError(f"package {package.short_name}: no accepted submission ran, so no time "
                        "limit can be derived")
    slowest, who, where = max(times)
    if package.format == "legacy":
        exact = slowest * limits.ac_to_time_limit
        time_s = float(max(1, int(0.5 + exact)))
        low = float(max(1, min(int(0.5 + exact / limits.time_limit_to_tle), int(time_s) - 1)))
        high = float(max(int(time_s) + 1, int(0.5 + exact * limits.time_limit_to_tle)))
        how = (f"slowest accepted run {slowest:.3f} s ({who} on {where}) x time_multiplier "
               f"{limits.ac_to_time_limit:g}, rounded: {time_s:g} s (safety margin "
               f"{limits.time_limit_to_tle:g}: {low:g} s to {high:g} s)")
        return TimeLimit(time_s, low, high, "derived", how)
    resolution = limits.time_resolution_s
    time_s = max(resolution, math.ceil(slowest * limits.ac_to_time_limit / resolution - 1e-9)
                 * resolution)
    low, high = margins(package, time_s)
    how = (f"slowest lower-bound run {slowest:.3f} s ({who} on {where}) x ac_to_time_limit "
           f"{limits.ac_to_time_limit:g}, up to a multiple of {resolution:g} s: {time_s:g} s")
    upper = [p for p in bound_submissions(package, upper=True) if p.name in runs]
    # a run stopped (at its wall-clock cap, at the limit, or waiting forever on the other side
    # of an exchange) would have taken longer: as long as any limit; each submission's slowest
    # run on a case where it bounds the limit from above
    tle_runs = [[r for r in runs[p.name].values() if bounds(package, p, r.case)[1]]
                for p in upper]
    fastest = min((max((math.inf if r.timed_out else r.cpu_s) for r in found)
                   for found in tle_runs if found), default=math.inf)
    conflict = None
    if time_s * limits.time_limit_to_tle > fastest + 1e-9:
        conflict = (f"time limit {time_s:g} s x time_limit_to_tle "
                    f"{limits.time_limit_to_tle:g} exceeds the fastest time_limit_exceeded "
                    f"submission's {fastest:.3f} s")
    return TimeLimit(time_s, low, high, "derived", how, conflict)


@dataclass(frozen=True)
class Disagreement:
    """One rule a submission broke, and the cases that show it."""

    rule: str
    message: str
    cases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Agreement:
    """A submission held against its expectation."""

    submission: str
    expected: str
    got: str
    status: Literal["agree", "disagree", "judge-error", "skipped", "partial"]
    disagreements: tuple[Disagreement, ...] = ()
    sensitive: str | None = None     # "sensitive to time limit: ..." when it is
    with_extra_time: bool = False    # legacy: right only with the safety margin's extra time

    @property
    def agrees(self) -> bool:
        return self.status == "agree"


def on_part(agreements: Sequence[Agreement], unjudged: Sequence[PackageError]
            ) -> tuple[Agreement, ...]:
    """`agreements` with each `agree` made `partial` when the package holds unjudged cases."""
    return tuple(replace(a, status="partial") if unjudged and a.status == "agree" else a
                 for a in agreements)


def unjudged_note(unjudged: Sequence[PackageError]) -> str:
    """One line naming the test cases the package holds that were not judged, and why."""
    return (f"not judged: {len(unjudged)} test case(s) the package holds: "
            + "; ".join(f"{e.file}{f':{e.line}' if e.line else ''}: rule {e.rule}"
                        + (f": {e.message}" if e.case else "") for e in unjudged))


def partial_status(unjudged: Sequence[PackageError]) -> str:
    """How a `partial` agreement reads in a summary."""
    return f"not judged on {len(unjudged)} case(s)"


def _fmt(verdicts: list[Verdict]) -> str:
    return ", ".join(f"{v} x{n}" for v, n in sorted(Counter(verdicts).items()))


def _in_scope(scope: str, case: str) -> bool:
    return scope == "" or glob_matches(scope, case)


def _check_rule(package: Package, rule: Requirement, results: Mapping[str, CaseResult],
                time_s: float, modern: bool, not_run: frozenset[str] = frozenset()
                ) -> list[Disagreement]:
    found: list[Disagreement] = []
    at_limit = {name: verdict_at(result, time_s) for name, result in results.items()}
    verdicts = {name: kattis_class(v) if modern else v for name, v in at_limit.items()}
    result = aggregate(package, results, lambda r: verdict_at(r, time_s))
    scoped = [name for name in results if _in_scope(rule.scope, name)]
    where = f" on {rule.scope}" if rule.scope else ""
    # A case in scope the submission was stopped before could have met a rule that asks for
    # some case to get something: the rule is not broken (as BAPCtools holds it).
    unrun = any(_in_scope(rule.scope, name) for name in not_run)
    if rule.permitted is not None:
        bad = [n for n in scoped if verdicts[n] not in rule.permitted]
        if bad:
            found.append(Disagreement(
                f"permitted [{', '.join(sorted(rule.permitted))}]{where}",
                f"{len(bad)} case(s) got a verdict not permitted: "
                f"{_fmt([verdicts[n] for n in bad])}", tuple(bad[:SHOWN_CASES])))
    if rule.required is not None and not unrun:
        if not any(verdicts[n] in rule.required for n in scoped):
            found.append(Disagreement(
                f"required [{', '.join(sorted(rule.required))}]{where}",
                f"no case got any of them; got {_fmt([verdicts[n] for n in scoped]) or 'no cases'}",
                tuple(scoped[:SHOWN_CASES])))
    if rule.message is not None and not unrun:
        if not any(rule.message in results[n].message for n in scoped):
            found.append(Disagreement(f"message {rule.message!r}{where}",
                                      "no case's judge message contains it"))
    if rule.score is not None:
        score = result.score if not rule.scope else (
            result.groups[rule.scope].score if rule.scope in result.groups else None)
        low, high = rule.score
        if score is None or not low - 1e-9 <= score <= high + 1e-9:
            wanted = f"{low:g}" if low == high else f"[{low:g}, {high:g}]"
            found.append(Disagreement(f"score {wanted}{where}", f"got score "
                                      f"{'none' if score is None else f'{score:g}'}"))
    if rule.final_verdict is not None:
        got = kattis_class(result.verdict)
        if got != rule.final_verdict:
            bad = [n for n in results if kattis_class(at_limit[n]) != Verdict.AC]
            found.append(Disagreement(f"overall verdict {rule.final_verdict}",
                                      f"got {got}", tuple(bad[:SHOWN_CASES])))
        elif rule.partially and package.type.scoring:
            groups = [g for g in package.groups if g.parent is None]
            top = groups[0].scoring if groups else None
            best = getattr(top, "score_range", (float("-inf"), float("inf")))[1]
            if result.score is not None and result.score >= best:
                found.append(Disagreement("partially accepted", f"got the full score "
                                          f"{result.score:g}"))
    if rule.final_any_of is not None:
        got = first_error(list(at_limit.values()))
        if got not in rule.final_any_of:
            bad = [n for n in results if at_limit[n] == got]
            found.append(Disagreement(f"@EXPECTED_RESULTS@ {', '.join(sorted(rule.final_any_of))}",
                                      f"got {got}", tuple(bad[:SHOWN_CASES])))
    return found


def _summary(package: Package, results: Mapping[str, CaseResult], time_s: float) -> str:
    """The overall verdict, and a scoring problem's score said as one ("TLE, score 20")."""
    result = aggregate(package, results, lambda r: verdict_at(r, time_s))
    return result.verdict + (f", score {result.score:g}" if result.score is not None else "")


def check_expectations(package: Package, submission: Program,
                       results: Mapping[str, CaseResult], time_limit: TimeLimit,
                       not_run: frozenset[str] = frozenset()) -> Agreement:
    """Hold one submission's case results, in the package's order, against its expectation; a rule
    that some case get something is met when one of `not_run` (`--fail-fast`) is in scope."""
    place = {case.name: index for index, case in enumerate(package.cases)}
    results = {name: results[name] for name in sorted(
        results, key=lambda name: (place.get(name, len(place)), name))}
    expectation = submission.expectation
    expected = expectation.label if expectation else "(none)"
    first = {r.verdict: r for r in reversed(results.values())}  # the first of each verdict
    if (skipped := first.get(Verdict.SKIP)) is not None:
        return Agreement(submission.name, expected, Verdict.SKIP, "skipped",
                         (Disagreement("toolchain", skipped.message),))
    if (failed := first.get(Verdict.CE)) is not None:
        if may_not_compile(submission):
            return Agreement(submission.name, expected, Verdict.CE, "agree")
        return Agreement(submission.name, expected, Verdict.CE, "disagree",
                         (Disagreement("compiles", failed.message[:2000]),))
    judge_errors = [r for r in results.values() if r.verdict == Verdict.JE]
    if judge_errors:
        return Agreement(submission.name, expected, Verdict.JE, "judge-error",
                         tuple(Disagreement("judge error", r.message[:500], (r.case,))
                               for r in judge_errors[:SHOWN_CASES]))
    got = _summary(package, results, time_limit.time_s)
    if expectation is None:
        return Agreement(submission.name, expected, got, "agree")
    modern = package.format in ("2023-07", "2025-09")

    def broken(time_s: float) -> list[Disagreement]:
        return [d for rule in requirements_of(submission)
                for d in _check_rule(package, rule, results, time_s, modern, not_run)]

    at_limit = broken(time_limit.time_s)
    at_low, at_high = broken(time_limit.low_s), broken(time_limit.high_s)
    sensitive = None
    if bool(at_low) != bool(at_high):
        sensitive = (f"sensitive to time limit: limit of {time_limit.low_s:g} s -> "
                     f"{_summary(package, results, time_limit.low_s)}, limit of "
                     f"{time_limit.high_s:g} s -> {_summary(package, results, time_limit.high_s)}")
    extra_time = False
    if at_limit and package.format == "legacy" and not at_high:
        extra_time = True  # problemtools: "OK with extra time"
        at_limit = []
    return Agreement(submission.name, expected, got, "disagree" if at_limit else "agree",
                     tuple(at_limit), sensitive, extra_time)
