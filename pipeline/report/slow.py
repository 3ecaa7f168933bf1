"""`pipeline slow`: the slowest cases of some runs, by median CPU time (wall time where none was
measured), against the problem's time limit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from pipeline.report import load
from pipeline.report.load import time_limit_s
from pipeline.report.mismatches import case_groups, runs_read, where
from pipeline.tables.results import resolve_runs
from pipeline.verdicts import Verdict


@dataclass(frozen=True)
class SlowCase:
    run_id: str
    problem: str
    solver: str
    case_id: str
    size: int | None
    wall_ms: float
    cpu_ms: float | None
    limit_ms: float | None      # the problem's time limit
    fraction: float | None      # cpu_ms (else wall_ms) / limit_ms
    verdict: str
    source: str | None          # where the case's input was first found
    repeats: int
    groups: tuple[str, ...] = ()  # the case's groups (its first source's first)


def slow_cases(data_dir: Path, problem: str | None = None, solver: str | None = None,
               run_ids: Sequence[str] | None = None, top: int = 20,
               per_problem: bool = False) -> list[SlowCase]:
    """The `top` slowest (case, solver) pairs, slowest first (`per_problem`: of each problem)
    of `run_ids`, else of the latest finished run of each problem (or of `problem`)."""
    runs = resolve_runs(data_dir, run_ids, problem)
    results = load.collapsed_results(data_dir, runs, problem, solver).filter(
        (pl.col("verdict") != Verdict.SKIP.value) & pl.col("wall_ms").is_not_null())
    if results.is_empty():
        return []
    # ranked, and held against the limit, by CPU time, else wall time
    slowest = results.with_columns(pl.coalesce("cpu_ms", "wall_ms").alias("_ms")).sort(
        ["_ms", "wall_ms", "size", "case_id", "solver"],
        descending=[True, True, False, False, False], nulls_last=True)
    if per_problem:
        slowest = slowest.group_by("problem", maintain_order=True).head(top).sort(
            "problem", maintain_order=True)
    else:
        slowest = slowest.head(top)
    problems = slowest["problem"].unique().to_list()
    cases = load.load_cases(data_dir, problems).select("problem", "case_id", "source", "group",
                                                       "groups")
    slowest = slowest.join(cases, on=["problem", "case_id"], how="left", maintain_order="left")
    limits_ms = {p: limit * 1000.0 if (limit := time_limit_s(p)) else None for p in problems}
    return [SlowCase(
        run_id=row["run_id"], problem=row["problem"], solver=row["solver"],
        case_id=row["case_id"], size=row["size"], wall_ms=row["wall_ms"], cpu_ms=row["cpu_ms"],
        limit_ms=limits_ms[row["problem"]],
        fraction=row["_ms"] / limits_ms[row["problem"]] if limits_ms[row["problem"]] else None,
        verdict=row["verdict"], source=row["source"], repeats=row["repeats"],
        groups=case_groups(row)) for row in slowest.iter_rows(named=True)]


def format_ms(value: float | None) -> str:
    """Milliseconds with about three significant digits."""
    if value is None:
        return "-"
    digits = next((spec for low, spec in ((100, ".0f"), (10, ".1f"), (0.1, ".2f"))
                   if value >= low), ".3g")
    return format(value, digits)


def format_fraction(value: float | None) -> str:
    """A share of the time limit: `52%`, `0.4%`, `<0.1%`."""
    if value is None:
        return "-"
    if value >= 0.1:
        return f"{value:.0%}"
    return f"{value:.1%}" if value >= 0.001 else "<0.1%"


def format_slow(rows: Sequence[SlowCase]) -> str:
    """A fixed-width table of slow cases for the console."""
    if not rows:
        return "no timed results in the selected runs"
    header = (f"{'problem':<16} {'solver':<14} {'verdict':<7} {'size':>10} {'cpu ms':>9} "
              f"{'wall ms':>9} {'limit':>7}  source (group)")
    lines = [header, "-" * len(header)]
    for r in rows:
        fraction = format_fraction(r.fraction)
        size = str(r.size) if r.size is not None else "-"
        lines.append(f"{r.problem:<16} {r.solver:<14} {r.verdict:<7} {size:>10} "
                     f"{format_ms(r.cpu_ms):>9} {format_ms(r.wall_ms):>9} {fraction:>7}  "
                     f"{where(r.source, r.groups, r.case_id)}")
    runs = sorted({r.run_id for r in rows})
    lines.append(f"(by CPU time, median over repeats; limit = CPU time's share of the "
                 f"problem's time limit; {runs_read(runs)})")
    return "\n".join(lines)
