"""The results of runs, written in chunks, and each run's own row.

Results land in `tables/results/<run_id>-<chunk>.parquet`, each chunk written once and
atomically, so a killed run loses at most the cases in flight. A run's row is rewritten when
its status changes; its case list, expectations and package bugs are written once.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

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


def results_chunk_path(data_dir: Path, run_id: str, chunk: int) -> Path:
    return table_dir(data_dir, "results") / f"{run_id}-{chunk:06d}.parquet"


def write_results_chunk(data_dir: Path, run_id: str, chunk: int, rows: list[dict]) -> Path:
    path = results_chunk_path(data_dir, run_id, chunk)
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


def drop_results(data_dir: Path, run_id: str, verdict: str) -> int:
    """Remove a run's stored results of `verdict` (each chunk rewritten atomically, removed
    when empty); how many were removed."""
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
    write_parquet_atomic(run_path(data_dir, row["run_id"]),
                         frame_of([row], RUNS))


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
