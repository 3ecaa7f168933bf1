"""How each solver's time grows with the case size: points and a least-squares fit on log-log.

For a solver, each case gives one point (size, median wall ms over its repeats). The fit is a
straight line through log10(time) against log10(size), over the points with size > 0 and
time > 0 and a verdict other than `SKIP`; its slope is the growth exponent (`fast: n^1.04`).
A fit needs at least two distinct sizes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl


@dataclass(frozen=True)
class Fit:
    exponent: float          # slope on log-log
    intercept: float         # log10(ms) at size 1
    points: int
    min_size: float
    max_size: float

    def predict_ms(self, size: float) -> float:
        return 10 ** (self.intercept + self.exponent * math.log10(size))


@dataclass(frozen=True)
class Series:
    solver: str
    points: tuple[tuple[float, float], ...]   # (size, wall ms), size > 0 and ms > 0
    fit: Fit | None

    @property
    def label(self) -> str:
        return f"{self.solver}: n^{self.fit.exponent:.2f}" if self.fit else \
            f"{self.solver}: (no fit)"


def fit_loglog(sizes: Sequence[float], times: Sequence[float]) -> Fit | None:
    """Least squares of log10(time) on log10(size) over the positive pairs."""
    pairs = [(math.log10(s), math.log10(t)) for s, t in zip(sizes, times)
             if s is not None and t is not None and s > 0 and t > 0]
    if len({x for x, _ in pairs}) < 2:
        return None
    n = len(pairs)
    mean_x = sum(x for x, _ in pairs) / n
    mean_y = sum(y for _, y in pairs) / n
    sxx = sum((x - mean_x) ** 2 for x, _ in pairs)
    sxy = sum((x - mean_x) * (y - mean_y) for x, y in pairs)
    slope = sxy / sxx
    return Fit(exponent=slope, intercept=mean_y - slope * mean_x, points=n,
               min_size=10 ** min(x for x, _ in pairs), max_size=10 ** max(x for x, _ in pairs))


def growth_series(results: pl.DataFrame) -> list[Series]:
    """One series per solver (in order of appearance) from collapsed results of one problem
    (columns `solver`, `size`, `wall_ms`, `verdict`)."""
    usable = results.filter((pl.col("verdict") != "SKIP") & (pl.col("size") > 0)
                            & (pl.col("wall_ms") > 0))
    series = []
    for solver in dict.fromkeys(results["solver"].to_list()):
        part = usable.filter(pl.col("solver") == solver)
        sizes = [float(s) for s in part["size"].to_list()]
        times = part["wall_ms"].to_list()
        series.append(Series(solver, tuple(zip(sizes, times)), fit_loglog(sizes, times)))
    return series
