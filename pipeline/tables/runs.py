"""Choosing runs from the `runs` table: newest first by `started_at`, then `run_id`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import polars as pl

from pipeline.errors import UnknownName
from pipeline.tables.files import table_dir
from pipeline.tables.results import read_runs, stored_chunks


def finished_runs(data_dir: Path, problem: str | None = None) -> pl.DataFrame:
    """Rows of the finished runs (of `problem`, if given), newest first."""
    runs = read_runs(data_dir).filter(pl.col("status") == "finished")
    if problem is not None:
        runs = runs.filter(pl.col("problem") == problem)
    return runs.sort(["started_at", "run_id"], descending=True, nulls_last=True)


def latest_runs(data_dir: Path, problem: str, n: int) -> list[str]:
    """The ids of the `n` newest finished runs of `problem`, newest first."""
    return finished_runs(data_dir, problem)["run_id"].head(n).to_list()


def latest_run_per_problem(data_dir: Path, problem: str | None = None) -> list[str]:
    """The newest finished run of each problem (or of `problem` only), ordered by problem."""
    runs = finished_runs(data_dir, problem)
    newest = runs.group_by("problem", maintain_order=True).first().sort("problem")
    return newest["run_id"].to_list()


def latest_run_per_solver(data_dir: Path) -> list[tuple[str, tuple[str, ...]]]:
    """Per problem, the finished runs that hold the newest result of some solver, each with
    those solvers (the ones no newer run of the problem holds), ordered by problem, newest run
    first: after a run of one solver, the others are still read from the run before."""
    picked: list[tuple[str, str, tuple[str, ...]]] = []
    seen: dict[str, set[str]] = {}
    for row in finished_runs(data_dir).iter_rows(named=True):
        done = seen.setdefault(row["problem"], set())
        fresh = tuple(s for s in dict.fromkeys(row["solvers"] or []) if s not in done)
        if fresh:
            done.update(fresh)
            picked.append((row["problem"], row["run_id"], fresh))
    picked.sort(key=lambda p: p[0])          # stable: newest first within a problem
    return [(run_id, solvers) for _, run_id, solvers in picked]


def run_rows(data_dir: Path, run_ids: Iterable[str] | None = None) -> dict[str, dict]:
    """The `runs` row of each run id (all runs when `run_ids` is None)."""
    runs = read_runs(data_dir)
    if run_ids is not None:
        runs = runs.filter(pl.col("run_id").is_in(list(run_ids)))
    return {row["run_id"]: row for row in runs.iter_rows(named=True)}


def start_key(row: dict) -> tuple[str, str]:
    started = row.get("started_at")
    stamp = started.isoformat(timespec="microseconds") if started is not None else ""
    return (stamp, row["run_id"])


def previous_run(data_dir: Path, run_id: str) -> str | None:
    """The newest finished run of the same problem that started before `run_id`."""
    row = run_rows(data_dir, [run_id]).get(run_id)
    if row is None:
        return None
    here = start_key(row)
    for other in finished_runs(data_dir, row["problem"]).iter_rows(named=True):
        if other["run_id"] != run_id and start_key(other) < here:
            return other["run_id"]
    return None


def next_run(data_dir: Path, run_id: str) -> str | None:
    """The newest finished run of the same problem that started after `run_id`."""
    row = run_rows(data_dir, [run_id]).get(run_id)
    if row is None:
        return None
    newest = finished_runs(data_dir, row["problem"]).head(1).to_dicts()
    if newest and start_key(newest[0]) > start_key(row):
        return newest[0]["run_id"]
    return None


def resolve_runs(data_dir: Path, run_ids: Sequence[str] | None = None,
                 problem: str | None = None) -> list[str]:
    """The runs a command looks at: the given ones (checked to exist), else the latest
    finished run of each problem (or of `problem`)."""
    if not run_ids:
        return latest_run_per_problem(data_dir, problem)
    known = run_rows(data_dir, run_ids)
    missing = [r for r in run_ids if r not in known and not stored_chunks(data_dir, r)]
    if missing:
        raise UnknownName(f"no run {', '.join(repr(m) for m in missing)} in "
                          f"{table_dir(data_dir, 'runs')}")
    return list(dict.fromkeys(run_ids))
