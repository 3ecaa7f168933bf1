"""Constraint coverage: which of a problem's input bounds its stored cases reach
(`Problem.bound_coverage`). A bound whose end no case reaches is a warning: a program failing
only there passes every test.
"""

from __future__ import annotations

from pipeline.problems.coverage import NO_BOUNDS, BoundCoverage

UNKNOWN_BOUND = "as the validator checks"


def stored_coverage(data_dir, problem) -> tuple[BoundCoverage, ...]:
    """Coverage of the problem's bounds by its stored cases (each input with the test group
    it was found in), as the problem's hook `bound_coverage` counts it."""
    from pipeline.report.load import load_cases

    cases = load_cases(data_dir, [problem.id])
    if not cases.height:
        return problem.bound_coverage([])
    return problem.bound_coverage([(text, group or "") for text, group in
                                   zip(cases["input"].to_list(), cases["group"].to_list())])


def coverage_of_problems(data_dir, problem_ids) -> tuple[dict[str, tuple[BoundCoverage, ...]],
                                                         dict[str, str]]:
    """Each problem's coverage by its stored cases (`stored_coverage`), and what is said where
    it has none (`Problem.why_no_coverage`); a problem no longer registered has none, its
    bounds unknown."""
    from pipeline.report.load import registered

    covered: dict[str, tuple[BoundCoverage, ...]] = {}
    why_none: dict[str, str] = {}
    for problem_id in dict.fromkeys(problem_ids):
        problem = registered(problem_id)
        if problem is None:
            covered[problem_id] = ()
            continue
        covered[problem_id] = stored_coverage(data_dir, problem)
        why_none[problem_id] = problem.why_no_coverage()
    return covered, why_none


def _number(value: int | None) -> str:
    if value is None:
        return "-"
    return f"{value:,}" if abs(value) < 10**7 else f"{value:.3g}"


def allowed_text(row: BoundCoverage) -> str:
    """The bound's allowed range: `1..100`, or "as the validator checks" when unknown."""
    if row.low is None and row.high is None:
        return UNKNOWN_BOUND
    return f"{_number(row.low)}..{_number(row.high)}"


def reached_text(row: BoundCoverage) -> str:
    """The values the cases reach: `1..8`, `-..-` when no case has the quantity, or "-" when
    the values are unknown (the bound's ends are too)."""
    if row.low is None and row.high is None and row.lowest is None and row.highest is None:
        return "-"
    return f"{_number(row.lowest)}..{_number(row.highest)}"


def format_coverage(problem_id: str, rows: tuple[BoundCoverage, ...],
                    why_none: str = NO_BOUNDS) -> str:
    """The coverage as text; `why_none` says why there is none (`why_no_coverage()`)."""
    if not rows:
        return f"constraint coverage of {problem_id}: {why_none}"
    width = max(len(r.name) for r in rows)
    lines = [f"constraint coverage of {problem_id} (bound: allowed, reached, cases at each end)"]
    for row in rows:
        warn = (f"  WARNING: no case reaches its {' or '.join(row.unreached)} end"
                if row.unreached else "")
        lines.append(f"  {row.name:<{width}}  {allowed_text(row)}  reached {reached_text(row)}"
                     f"  at low {row.at_low}, at high {row.at_high}{warn}")
    return "\n".join(lines)
