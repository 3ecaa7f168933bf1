"""Constraint coverage: which of a problem's input bounds its stored cases reach.

Each problem says it through its hook `Problem.bound_coverage(inputs)`, so nothing here asks
what kind of problem it holds. A built-in problem declares its bounds once, beside the parser
that enforces them (`pipeline/problems/<id>/bounds.py`, from the constants of its `case.py`),
and `coverage` reports for each bound the lowest and highest value the cases take, and how
many cases hit each end. A problem package asks its testlib input validators
(`pipeline.packages.overview`): their test-overview log says only whether a case hit each end
of a variable, so the ends and the values reached are unknown (None), printed "as the
validator checks" and "-". A bound whose end no case reaches is a warning, since a program
that fails only there passes every test (an overflow at N = 10^5, a special case at N = 1).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

# Why a problem shows no coverage: a built-in problem's words (a package says its own).
NO_BOUNDS = ("the problem declares no input bounds (a built-in problem declares them in its "
             "bounds.py)")
UNKNOWN_BOUND = "as the validator checks"


@dataclass(frozen=True)
class BoundCoverage:
    name: str
    low: int | None            # the bound's ends (None: as the validator checks, unknown)
    high: int | None
    lowest: int | None         # over every case (None: no case has this quantity, or the
    highest: int | None        # values are unknown)
    at_low: int                # cases that take the bound's lowest allowed value
    at_high: int               # ... and its highest

    @property
    def unreached(self) -> list[str]:
        """The ends of the bound no case reaches ("low", "high")."""
        return [end for end, hits in (("low", self.at_low), ("high", self.at_high)) if not hits]


def coverage(problem, inputs: Iterable[str]) -> tuple[BoundCoverage, ...]:
    """Coverage of `problem.bounds` by the cases of `inputs` (each parsed by the problem;
    inputs it refuses are not cases and are left out)."""
    bounds = problem.bounds
    lowest: list[int | None] = [None] * len(bounds)
    highest: list[int | None] = [None] * len(bounds)
    at_low = [0] * len(bounds)
    at_high = [0] * len(bounds)
    for text in inputs:
        try:
            case = problem.parse(text)
        except Exception:  # a stored input the parser now refuses is not a case of it
            continue
        for index, bound in enumerate(bounds):
            reached = bound.reach(case)
            if reached is None:
                continue
            low, high = int(reached[0]), int(reached[1])
            lowest[index] = low if lowest[index] is None else min(lowest[index], low)
            highest[index] = high if highest[index] is None else max(highest[index], high)
            at_low[index] += low == bound.low
            at_high[index] += high == bound.high
    return tuple(BoundCoverage(b.name, b.low, b.high, lowest[i], highest[i], at_low[i],
                               at_high[i]) for i, b in enumerate(bounds))


def stored_coverage(data_dir, problem) -> tuple[BoundCoverage, ...]:
    """Coverage of the problem's bounds by its stored cases (each input with the test group
    it was found in), as the problem's hook `bound_coverage` counts it."""
    from pipeline.report.load import load_cases

    cases = load_cases(data_dir, [problem.id])
    if not cases.height:
        return problem.bound_coverage([])
    return problem.bound_coverage([(text, group or "") for text, group in
                                   zip(cases["input"].to_list(), cases["group"].to_list())])


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
    """The coverage as text; `why_none` says why there is none (the problem's
    `why_no_coverage()`)."""
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
