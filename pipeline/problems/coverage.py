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
    reached: list[list[tuple[int, int]]] = [[] for _ in bounds]  # per bound: (low, high) per case
    for text in inputs:
        try:
            case = problem.parse(text)
        except Exception:  # a stored input the parser now refuses is not a case of it
            continue
        for values, bound in zip(reached, bounds):
            if (found := bound.reach(case)) is not None:
                values.append((int(found[0]), int(found[1])))
    return tuple(BoundCoverage(b.name, b.low, b.high, min((low for low, _ in v), default=None),
                               max((high for _, high in v), default=None),
                               sum(low == b.low for low, _ in v),
                               sum(high == b.high for _, high in v))
                 for b, v in zip(bounds, reached))
