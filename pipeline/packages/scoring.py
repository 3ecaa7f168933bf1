"""Scores of cases and groups, and a submission's overall verdict, as the package's settings say.

- 2023-07 / 2025-09 scoring problems: a case in a `sum` or `min` group scores 0 unless accepted;
  accepted, its score is `score.txt`, or `score_multiplier.txt` times its maximum, or its maximum
  (its group's `max_score` shared among the group's cases for `sum`, the whole of it for `min`).
  A group scores the sum or the minimum of its children, or for `pass-fail` its maximum when
  every case in it is accepted and 0 otherwise; a group whose `require_pass` groups are not all
  accepted scores 0. A score above its maximum, or a validator's score where none belongs, is a
  judge error. The submission's score is the score of `secret`.
- Legacy scoring problems (problemtools' default grader): a case scores `accept_score` (or the
  validator's `score.txt` with `validation: custom score`) when accepted, `reject_score`
  otherwise; a group's verdict is the worst of its children's (`first_error` takes the first,
  `always_accept` AC, `accept_if_any_accepted`), its score their `sum` (or `avg`, `max`, `min`);
  with `on_reject: break` the children after the first rejected one are not counted;
  `ignore_sample` at the root leaves the sample group out.
- Polygon: a test earns its points when accepted (a checker's `quitp` points, as a percentage of
  them when `treat-points-from-checker-as-percent`); a `complete-group` group earns its points
  only when all its tests pass, an `each-test` group the sum of its tests' points; a group whose
  dependencies did not all pass earns nothing.

The overall verdict of a pass-fail run is the verdict of its first rejected case in judging
order (AC when there is none); a judge error anywhere makes it JE.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from pipeline.packages.model import (
    CaseResult,
    KattisGroupScoring,
    LegacyGrading,
    Package,
    PolygonGroupScoring,
    TestCase,
)
from pipeline.programs.checkers import CheckResult
from pipeline.verdicts import Verdict

WORST_FIRST = (Verdict.JE, Verdict.CE, Verdict.RE, Verdict.MLE, Verdict.TLE, Verdict.OLE,
               Verdict.WA, Verdict.AC)
EPSILON = 1e-9
# How a legacy group's grader flag combines its children's scores.
COMBINE: dict[str, Callable[[list[float]], float]] = {
    "sum": sum, "avg": lambda xs: sum(xs) / len(xs), "max": max, "min": min}


def case_score(package: Package, case: TestCase, verdict: Verdict,
               check: CheckResult | None) -> tuple[float | None, str | None]:
    """(the case's score, or None where cases are not scored; a judge error, or None)."""
    raw = check.score if check else None
    multiplier = check.score_multiplier if check else None
    if package.format == "polygon":
        points = case.points or 0.0
        if verdict != Verdict.AC:
            return (0.0 if case.points is not None else None), None
        if raw is not None:
            return (points * raw / 100.0 if package.treat_points_as_percent else raw), None
        return (points if case.points is not None else None), None
    if not package.type.scoring:
        if raw is not None or multiplier is not None:
            return None, "the validator wrote a score, but the problem is not a scoring problem"
        return None, None
    if package.format == "legacy":
        grading = package.group(case.group).scoring
        assert isinstance(grading, LegacyGrading)
        if verdict != Verdict.AC:
            return grading.reject_score, None
        if package.custom_scoring:
            if raw is None:
                return None, "validation is custom score, but the validator wrote no score.txt"
            return raw, None
        if raw is not None:
            return None, "the validator wrote score.txt, but validation is not custom score"
        return grading.accept_score, None
    if case.sample:
        return None, None  # samples never count; a score.txt there is ignored (spec)
    if not case.scored:
        if raw is not None or multiplier is not None:
            return None, f"the validator wrote a score for {case.name}, whose group has " \
                         "pass-fail aggregation"
        return None, None
    if verdict != Verdict.AC:
        return 0.0, None
    maximum = case.max_score
    if maximum is None:
        if multiplier is not None:
            return None, "score_multiplier.txt for a case with unbounded maximum score"
        if raw is None:
            return None, "the case's maximum score is unbounded, but the validator wrote no " \
                         "score.txt"
        return raw, None
    if raw is not None:
        if raw > maximum + EPSILON:
            return None, f"score.txt says {raw:g}, more than the case's maximum {maximum:g}"
        return raw, None
    if multiplier is not None:
        return multiplier * maximum, None
    return maximum, None


@dataclass(frozen=True)
class GroupResult:
    name: str
    verdict: Verdict
    score: float | None
    message: str = ""


@dataclass(frozen=True)
class Aggregate:
    """A submission's overall verdict and score, with every group's."""

    verdict: Verdict
    score: float | None
    groups: Mapping[str, GroupResult] = field(default_factory=dict)
    message: str = ""


def first_error(verdicts: list[Verdict]) -> Verdict:
    if Verdict.JE in verdicts:
        return Verdict.JE
    return next((v for v in verdicts if v != Verdict.AC), Verdict.AC)


def worst_error(verdicts: list[Verdict]) -> Verdict:
    return min(verdicts + [Verdict.AC],
               key=lambda v: WORST_FIRST.index(v) if v in WORST_FIRST else 0)


def aggregate(package: Package, results: Mapping[str, CaseResult],
              verdict_of=lambda r: r.verdict) -> Aggregate:
    """The overall verdict and score of one submission's case results."""
    overall = first_error([verdict_of(results[c.name]) for c in package.cases if c.name in results])
    if package.format == "legacy":
        return _legacy(package, results, verdict_of)
    if package.format == "polygon":
        return _polygon(package, results, verdict_of, overall)
    if not package.type.scoring:
        return Aggregate(overall, None)
    return _kattis(package, results, verdict_of, overall)


def _kattis(package: Package, results, verdict_of, overall: Verdict) -> Aggregate:
    groups: dict[str, GroupResult] = {}

    def all_accepted(name: str) -> bool:
        group = package.group(name)
        return all(verdict_of(results[c]) == Verdict.AC for c in group.cases if c in results) \
            and all(all_accepted(g) for g in group.subgroups)

    def score(name: str) -> GroupResult:
        group = package.group(name)
        scoring = group.scoring
        case_results = [results[c] for c in group.cases if c in results]
        child_verdicts = [verdict_of(r) for r in case_results]
        sub_results = [score(g) for g in group.subgroups]
        verdict = first_error(child_verdicts + [g.verdict for g in sub_results])
        if not isinstance(scoring, KattisGroupScoring):
            result = GroupResult(name, verdict, None)
        elif any(not all_accepted(dep) for dep in scoring.require_pass
                 if dep in {g.name for g in package.groups}):
            result = GroupResult(name, verdict if verdict != Verdict.AC else Verdict.WA, 0.0,
                                 f"required groups {', '.join(scoring.require_pass)} not all "
                                 "accepted")
        elif scoring.aggregation == "pass-fail":
            result = GroupResult(name, verdict, (scoring.max_score or 0.0)
                                 if verdict == Verdict.AC else 0.0)
        else:
            parts = [r.score if verdict_of(r) == Verdict.AC else 0.0 for r in case_results]
            parts += [g.score or 0.0 for g in sub_results]
            if any(p is None for p in parts):
                return GroupResult(name, Verdict.JE, None, "a case's score is missing")
            value = (sum(parts) if scoring.aggregation == "sum" else min(parts)) if parts else 0.0
            if scoring.max_score is not None and value > scoring.max_score + EPSILON:
                result = GroupResult(name, Verdict.JE, value, f"score {value:g} of {name} "
                                     f"exceeds its max_score {scoring.max_score:g}")
            else:
                result = GroupResult(name, verdict, value)
        groups[name] = result
        return result

    if "sample" in {g.name for g in package.groups}:
        score("sample")
    secret = score("secret")
    verdict = Verdict.JE if any(g.verdict == Verdict.JE for g in groups.values()) else overall
    return Aggregate(verdict, secret.score, groups, secret.message)


def _legacy(package: Package, results, verdict_of) -> Aggregate:
    groups: dict[str, GroupResult] = {}

    def grade(name: str) -> GroupResult:
        group = package.group(name)
        grading = group.scoring
        assert isinstance(grading, LegacyGrading)
        collected: list[tuple[Verdict, float]] = []
        children = [("case", c) for c in group.cases] + [("group", g) for g in group.subgroups]
        # by name, as problemtools lists them
        for kind, child in sorted(children, key=lambda item: item[1].rsplit("/", 1)[-1]):
            if kind == "case":
                if child not in results:
                    continue
                r = results[child]
                verdict = verdict_of(r)
                if r.score is not None and verdict == r.verdict:
                    score = r.score
                else:  # judged again at another time limit: the default scores apply
                    score = (grading.accept_score if verdict == Verdict.AC
                             else grading.reject_score)
            else:
                sub = grade(child)
                verdict, score = sub.verdict, sub.score or 0.0
            collected.append((verdict, score))
            if grading.on_reject == "break" and verdict != Verdict.AC:
                break
        # grading: custom is graded by the default grader (custom graders are not supported;
        # the package's notes say so)
        if not collected:
            result = GroupResult(name, Verdict.AC, 0.0)
        elif any(v == Verdict.JE for v, _ in collected):
            result = GroupResult(name, Verdict.JE, None)
        else:
            flags = grading.grader_flags
            if "ignore_sample" in flags and group.parent is None:
                collected = collected[-1:]
            verdicts = [v for v, _ in collected]
            scores = [s for _, s in collected]
            if "always_accept" in flags or ("accept_if_any_accepted" in flags
                                            and Verdict.AC in verdicts):
                verdict = Verdict.AC
            elif "first_error" in flags:
                verdict = first_error(verdicts)
            else:
                verdict = worst_error(verdicts)
            how = next((f for f in flags if f in COMBINE), "sum")
            result = GroupResult(name, verdict, COMBINE[how](scores))
        groups[name] = result
        return result

    root = grade("data")
    score = root.score if package.type.scoring else None
    return Aggregate(root.verdict, score, groups, root.message)


def _polygon(package: Package, results, verdict_of, overall: Verdict) -> Aggregate:
    groups: dict[str, GroupResult] = {}
    grouped = {c for g in package.groups for c in g.cases}
    total = 0.0
    any_points = any(c.points is not None for c in package.cases) or any(
        isinstance(g.scoring, PolygonGroupScoring) and g.scoring.points is not None
        for g in package.groups)
    passed = {g.name: all(verdict_of(results[c]) == Verdict.AC for c in g.cases if c in results)
              for g in package.groups}
    for group in package.groups:
        scoring = group.scoring
        assert isinstance(scoring, PolygonGroupScoring)
        mine = [results[c] for c in group.cases if c in results]
        verdict = first_error([verdict_of(r) for r in mine])
        if any(not passed.get(dep, True) for dep in scoring.dependencies):
            value = 0.0
        elif scoring.points_policy == "complete-group":
            full = scoring.points if scoring.points is not None else sum(
                package.case(r.case).points or 0.0 for r in mine)
            value = full if verdict == Verdict.AC else 0.0
        else:
            value = sum((r.score or 0.0) for r in mine if verdict_of(r) == Verdict.AC)
        groups[group.name] = GroupResult(group.name, verdict, value)
        total += value
    for case in package.cases:
        if case.name not in grouped and case.name in results:
            r = results[case.name]
            total += (r.score or 0.0) if verdict_of(r) == Verdict.AC else 0.0
    return Aggregate(overall, total if any_points else None, groups)
