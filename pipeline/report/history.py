"""The nightly history of a problem: each trusted solver's total CPU time and failures over the
last nightly runs (those whose `command` starts with `pipeline nightly`), so a slow drift shows
before any single night flags it.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import polars as pl

from pipeline.report.load import BY_SEVERITY, known_wrong
from pipeline.tables.results import finished_runs, read_run_results
from pipeline.verdicts import FAILURES, Verdict, names

NIGHTLY_COMMAND = "pipeline nightly"   # the `command` of the runs a night makes
HISTORY_NIGHTS = 20


@dataclass(frozen=True)
class NightTotals:
    """One nightly run of a problem, totalled per trusted solver."""

    run_id: str
    started_at: datetime | None
    cases: int
    cpu_ms: dict[str, float]      # solver -> total CPU ms over the run's cases
    failures: dict[str, int]      # solver -> cases with a failing verdict


def nightly_runs(data_dir: Path, problem: str, nights: int = HISTORY_NIGHTS) -> pl.DataFrame:
    """The `nights` newest nightly runs of `problem`, oldest first."""
    runs = finished_runs(data_dir, problem).filter(
        pl.col("command").fill_null("").str.starts_with(NIGHTLY_COMMAND))
    return runs.head(nights).reverse()


def nightly_history(data_dir: Path, problem: str,
                    nights: int = HISTORY_NIGHTS) -> list[NightTotals]:
    """The problem's last `nights` nightly runs, oldest first, totalled per trusted solver."""
    return [_totals(data_dir, run)
            for run in nightly_runs(data_dir, problem, nights).iter_rows(named=True)]


def _totals(data_dir: Path, run: dict) -> NightTotals:
    results = read_run_results(data_dir, run["run_id"],
                               ["case_id", "solver", "verdict", "cpu_ms", "wall_ms"])
    trusted = [s for s in results["solver"].unique().to_list()
               if not known_wrong(run["problem"], s)]
    per_case = results.filter(pl.col("solver").is_in(trusted)).group_by(
        "case_id", "solver").agg(
        pl.col("verdict").sort_by(BY_SEVERITY).first(),
        pl.coalesce(pl.col("cpu_ms").median(), pl.col("wall_ms").median()).alias("ms"))
    totals = per_case.group_by("solver").agg(
        pl.col("ms").filter(pl.col("verdict") != Verdict.SKIP.value).sum().alias("cpu_ms"),
        pl.col("verdict").is_in(names(FAILURES)).sum().alias("failures")).sort("solver")
    return NightTotals(
        run_id=run["run_id"], started_at=run.get("started_at"), cases=run.get("cases") or 0,
        cpu_ms={row["solver"]: float(row["cpu_ms"] or 0.0) for row in totals.iter_rows(named=True)},
        failures={row["solver"]: int(row["failures"]) for row in totals.iter_rows(named=True)})


def drift(history: list[NightTotals], solver: str) -> float | None:
    """The newest night's total against the median of the earlier ones (1.18 = 18 % more),
    None without two nights of the solver."""
    values = [n.cpu_ms[solver] for n in history if solver in n.cpu_ms]
    if len(values) < 2:
        return None
    median = statistics.median(values[:-1])
    return values[-1] / median if median > 0 else None
