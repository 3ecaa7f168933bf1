"""Constraint coverage: for each bound of a problem's input, the range the cases reach and how
many sit at each end (`BoundCoverage`), counted from a built-in problem's declared bounds
(`coverage`). A package asks its testlib validators, whose log says only whether a case hit
each end, so the ends and values reached are unknown (None) there.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

# Why a problem shows no coverage: a built-in problem's words (a package says its own).
NO_BOUNDS = ("the problem declares no input bounds (a built-in problem declares them in its "
             "case.py)")


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
            lowest_so_far, highest_so_far = lowest[index], highest[index]
            lowest[index] = low if lowest_so_far is None else min(lowest_so_far, low)
            highest[index] = high if highest_so_far is None else max(highest_so_far, high)
            at_low[index] += low == bound.low
            at_high[index] += high == bound.high
    return tuple(BoundCoverage(b.name, b.low, b.high, lowest[i], highest[i], at_low[i],
                               at_high[i]) for i, b in enumerate(bounds))
