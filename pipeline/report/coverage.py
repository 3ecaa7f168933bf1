"""Constraint coverage: which of a problem's input bounds its stored cases reach.

A built-in problem declares its bounds once, beside the parser that enforces them
(`pipeline/problems/<id>/bounds.py`, from the constants of its `case.py`). For each bound this
reports the lowest and highest value the cases take, and how many cases hit each end; a bound
whose end no case reaches is a warning, since a program that fails only there passes every
test (an overflow at N = 10^5, a special case at N = 1).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class BoundCoverage:
    name: str
    low: int
    high: int
    lowest: int | None         # over every case (None: no case has this quantity)
    highest: int | None
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
    """Coverage of the problem's bounds by its stored cases."""
    from pipeline.report.load import load_cases

    cases = load_cases(data_dir, [problem.id])
    return coverage(problem, cases["input"].to_list() if cases.height else [])


def _number(value: int | None) -> str:
    if value is None:
        return "-"
    return f"{value:,}" if abs(value) < 10**7 else f"{value:.3g}"


def format_coverage(problem_id: str, rows: tuple[BoundCoverage, ...]) -> str:
    if not rows:
        return (f"constraint coverage of {problem_id}: the problem declares no input bounds "
                "(a built-in problem declares them in its bounds.py)")
    width = max(len(r.name) for r in rows)
    lines = [f"constraint coverage of {problem_id} (bound: allowed, reached, cases at each end)"]
    for row in rows:
        warn = (f"  WARNING: no case reaches its {' or '.join(row.unreached)} end"
                if row.unreached else "")
        lines.append(f"  {row.name:<{width}}  {_number(row.low)}..{_number(row.high)}  reached "
                     f"{_number(row.lowest)}..{_number(row.highest)}  at low {row.at_low}, at "
                     f"high {row.at_high}{warn}")
    return "\n".join(lines)
