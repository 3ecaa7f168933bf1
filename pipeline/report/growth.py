"""How each solver's time grows with the case size: the median and 90th percentile of each
size (a twentieth of a decade), and a line on log-log over the sizes well above the fixed cost
(`FIXED_COST_FACTOR`), given only with `MIN_SIZES` sizes spanning `MIN_SPAN`x and an R^2 of at
least `MIN_R_SQUARED`.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from pipeline.report.mismatches import plural
from pipeline.verdicts import TIMED, Verdict, names

FIXED_COST_FACTOR = 5.0
MIN_SIZES = 3
MIN_SPAN = 10.0
MIN_R_SQUARED = 0.8
BINS_PER_DECADE = 20
TIMED_NAMES = tuple(names(TIMED))


@dataclass(frozen=True)
class Fit:
    exponent: float          # slope on log-log
    intercept: float         # log10(ms) at size 1
    points: int
    min_size: float
    max_size: float
    r_squared: float = 1.0   # the share of the variance of log time the line explains

    def predict_ms(self, size: float) -> float:
        return 10 ** (self.intercept + self.exponent * math.log10(size))


@dataclass(frozen=True)
class SizePoint:
    """The timed cases of one size: their median and 90th percentile."""

    size: float
    median_ms: float
    p90_ms: float
    cases: int


@dataclass(frozen=True)
class Series:
    solver: str
    points: tuple[tuple[float, float], ...]   # raw (size, wall ms), size > 0 and ms > 0
    fit: Fit | None
    by_size: tuple[SizePoint, ...] = ()       # smallest size first
    fixed_ms: float | None = None             # the smallest median: the fixed cost
    untimed: tuple[tuple[float, str], ...] = ()  # (size, verdict) of cases with no timing
    no_fit: str | None = None                 # why there is no fit

    @property
    def label(self) -> str:
        return f"{self.solver}: n^{self.fit.exponent:.2f}" if self.fit else \
            f"{self.solver}: (no fit)"


def fit_loglog(sizes: Sequence[float], times: Sequence[float]) -> Fit | None:
    """Least squares of log10(time) on log10(size) over the positive pairs."""
    pairs = [(math.log10(s), math.log10(t)) for s, t in zip(sizes, times)
             if s is not None and t is not None and s > 0 and t > 0]
    xs, ys = [x for x, _ in pairs], [y for _, y in pairs]
    if len(set(xs)) < 2:
        return None
    slope, intercept = statistics.linear_regression(xs, ys)
    return Fit(exponent=slope, intercept=intercept, points=len(pairs), min_size=10 ** min(xs),
               max_size=10 ** max(xs),
               r_squared=statistics.correlation(xs, ys) ** 2 if len(set(ys)) > 1 else 1.0)


def _quantile(ordered: Sequence[float], q: float) -> float:
    """Linear-interpolated quantile of sorted values."""
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def per_size(points: Sequence[tuple[float, float]]) -> tuple[SizePoint, ...]:
    """Median and 90th percentile of the times of each size (a twentieth of a decade wide),
    placed at the bin's median size."""
    bins: dict[int, list[tuple[float, float]]] = {}
    for size, ms in points:
        bins.setdefault(math.floor(math.log10(size) * BINS_PER_DECADE + 1e-9), []).append(
            (size, ms))
    summary = []
    for key in sorted(bins):
        members = bins[key]
        times = sorted(ms for _, ms in members)
        sizes = sorted(size for size, _ in members)
        summary.append(SizePoint(_quantile(sizes, 0.5), _quantile(times, 0.5),
                                 _quantile(times, 0.9), len(members)))
    return tuple(summary)


def fit_above_fixed_cost(by_size: Sequence[SizePoint],
                         factor: float = FIXED_COST_FACTOR) -> tuple[Fit | None, str | None]:
    """The fit over the sizes whose median is at least `factor` times the smallest median, or
    None and why not, in a few words (too few sizes, too short a span, no straight line)."""
    if len(by_size) < 2:
        return None, "one size only"
    fixed = min(p.median_ms for p in by_size)
    above = [p for p in by_size if p.median_ms >= factor * fixed]
    if len(above) < MIN_SIZES:
        return None, f"{plural(len(above), 'size')} above {factor:g}x fixed cost"
    if above[-1].size < MIN_SPAN * above[0].size:
        return None, f"span < {MIN_SPAN:g}x above {factor:g}x fixed cost"
    fit = fit_loglog([p.size for p in above], [p.median_ms for p in above])
    if fit is None:
        return None, "fewer than 2 positive sizes"
    if fit.r_squared < MIN_R_SQUARED:
        return None, f"no power law (r² {fit.r_squared:.2f})"
    return fit, None


def growth_series(results: pl.DataFrame) -> list[Series]:
    """One series per solver (in order of appearance) from collapsed results of one problem
    (columns `solver`, `size`, `wall_ms`, `verdict`)."""
    sized = results.filter((pl.col("verdict") != Verdict.SKIP.value) & (pl.col("size") > 0))
    timed = sized.filter(pl.col("verdict").is_in(TIMED_NAMES) & (pl.col("wall_ms") > 0))
    untimed = sized.filter(~pl.col("verdict").is_in(TIMED_NAMES))
    series = []
    for solver in dict.fromkeys(results["solver"].to_list()):
        part = timed.filter(pl.col("solver") == solver)
        points = tuple(zip((float(s) for s in part["size"].to_list()), part["wall_ms"].to_list()))
        by_size = per_size(points)
        fit, no_fit = fit_above_fixed_cost(by_size)
        misses = untimed.filter(pl.col("solver") == solver).sort("size")
        series.append(Series(
            solver, points, fit, by_size,
            fixed_ms=min((p.median_ms for p in by_size), default=None),
            untimed=tuple(zip((float(s) for s in misses["size"].to_list()),
                              misses["verdict"].to_list())),
            no_fit=no_fit))
    return series
