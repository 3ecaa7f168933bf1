"""The results of runs, written in chunks, each run's own row, and choosing runs from the
`runs` table (newest first by `started_at`, then `run_id`).

Results land in `tables/results/<run_id>-<chunk>.parquet`, each chunk written once and
atomically, so a killed run loses at most the cases in flight. A run's row is rewritten when
its status changes; its case list, expectations and package bugs are written once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import polars as pl

from pipeline.errors import UnknownName
from pipeline.tables.files import empty, frame_of, read_file, scan, table_dir, write_parquet_atomic
from pipeline.tables.layout import now
from pipeline.tables.schemas import (
    EXPECTATIONS,
    PACKAGE_BUGS,
    RESULTS,
    RUN_CASES,
    RUNS,
    STRENGTH,
)


def write_results_chunk(data_dir: Path, run_id: str, chunk: int, rows: list[dict]) -> Path:
    path = table_dir(data_dir, "results") / f"{run_id}-{chunk:06d}.parquet"
    write_parquet_atomic(path, frame_of(rows, RESULTS))
    return path


def stored_chunks(data_dir: Path, run_id: str) -> list[Path]:
    folder = table_dir(data_dir, "results")
    return sorted(folder.glob(f"{run_id}-*.parquet")) if folder.is_dir() else []


def next_chunk(data_dir: Path, run_id: str) -> int:
    """The number of a run's next chunk: one past the highest stored (not their count)."""
    numbers = [int(path.stem.rpartition("-")[2]) for path in stored_chunks(data_dir, run_id)
               if path.stem.rpartition("-")[2].isdigit()]
    return max(numbers, default=-1) + 1


def read_run_results(data_dir: Path, run_id: str,
                     columns: list[str] | None = None) -> pl.DataFrame:
    """Every stored result row of one run (all columns, or only `columns`)."""
    chunks = stored_chunks(data_dir, run_id)
    wanted = list(RESULTS) if columns is None else columns
    if not chunks:
        return empty({name: RESULTS[name] for name in wanted})
    return pl.concat([read_file(c, RESULTS, wanted) for c in chunks])


def results_of(rows: list[dict], columns: list[str]) -> pl.DataFrame:
    """Result rows not read back from storage (those a run wrote), as `read_run_results` reads
    them: the `columns` of the results table, as stored."""
    return frame_of(rows, RESULTS).select(columns)


def drop_results(data_dir: Path, run_id: str, verdict: str) -> int:
    """Remove a run's stored results of `verdict` (chunks rewritten or removed); how many."""
    removed = 0
    for chunk in stored_chunks(data_dir, run_id):
        rows = read_file(chunk, RESULTS)
        kept = rows.filter(pl.col("verdict").ne_missing(verdict))
        if kept.height == rows.height:
            continue
        removed += rows.height - kept.height
        if kept.is_empty():
            chunk.unlink()
        else:
            write_parquet_atomic(chunk, kept)
    return removed


def run_path(data_dir: Path, run_id: str) -> Path:
    return table_dir(data_dir, "runs") / f"{run_id}.parquet"


def write_run(data_dir: Path, row: dict) -> None:
    write_parquet_atomic(run_path(data_dir, row["run_id"]), frame_of([row], RUNS))


def run_cases_path(data_dir: Path, run_id: str) -> Path:
    return table_dir(data_dir, "runs") / "cases" / f"{run_id}.parquet"


def write_run_cases(data_dir: Path, run_id: str, case_ids: list[str],
                    answer_ids: list[str | None]) -> None:
    """The cases a run judges (and the identity of each one's expected output), in order."""
    write_parquet_atomic(run_cases_path(data_dir, run_id), pl.DataFrame(
        {"case_id": case_ids, "answer_id": answer_ids}, schema=RUN_CASES))


def read_run_cases(data_dir: Path, run_id: str) -> pl.DataFrame | None:
    """What `write_run_cases` stored for a run, or None when it stored nothing."""
    path = run_cases_path(data_dir, run_id)
    return read_file(path, RUN_CASES) if path.exists() else None


def read_runs(data_dir: Path) -> pl.DataFrame:
    return scan(data_dir, "runs").collect()


def write_expectations(data_dir: Path, run_id: str, rows: list[dict]) -> None:
    write_parquet_atomic(table_dir(data_dir, "expectations") / f"{run_id}.parquet",
                         frame_of(rows, EXPECTATIONS))


def read_expectations(data_dir: Path) -> pl.DataFrame:
    return scan(data_dir, "expectations").collect()


def write_package_bugs(data_dir: Path, run_id: str, rows: list[dict]) -> None:
    """The package bugs one run found (`packages.bugs`), replacing any written before."""
    stamped = [{**row, "run_id": run_id, "found_at": now()} for row in rows]
    write_parquet_atomic(table_dir(data_dir, "package_bugs") / f"{run_id}.parquet",
                         frame_of(stamped, PACKAGE_BUGS))


def read_package_bugs(data_dir: Path) -> pl.DataFrame:
    return scan(data_dir, "package_bugs").collect()


def write_strength(data_dir: Path, run_id: str, rows: list[dict]) -> None:
    """The strength rows of one run (`report.strength`), replacing any written before."""
    stamped = [{**row, "measured_at": now()} for row in rows]
    write_parquet_atomic(table_dir(data_dir, "strength") / f"{run_id}.parquet",
                         frame_of(stamped, STRENGTH))


# -- choosing runs ------------------------------------------------------------------------------

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
