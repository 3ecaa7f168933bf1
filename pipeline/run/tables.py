"""Schemas of the `results` and `runs` tables and their chunked, atomic writes.

Results of a run land in `tables/results/<run_id>-<chunk>.parquet` as they arrive: each chunk
is written once, atomically, so a run killed with -9 loses at most the cases in flight, and
`--resume` finds exactly which (case, solver, repeat) triples are already stored.
The run's own row lives in `tables/runs/<run_id>.parquet`, rewritten when its status changes.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from pipeline import store

RESULTS: dict[str, pl.DataType] = {
    "run_id": pl.String(),
    "problem": pl.String(),
    "case_id": pl.String(),
    "solver": pl.String(),
    "repeat": pl.Int64(),
    "verdict": pl.String(),
    "answer": pl.String(),
    "wall_ms": pl.Float64(),
    "cpu_ms": pl.Float64(),
    "peak_rss_kb": pl.Int64(),
    "exit_code": pl.Int64(),
    "error": pl.String(),
    "expected_source": pl.String(),
    "size": pl.Int64(),
    "host": pl.String(),
    "finished_at": pl.Datetime("us", "UTC"),
}

RUNS: dict[str, pl.DataType] = {
    "run_id": pl.String(),
    "started_at": pl.Datetime("us", "UTC"),
    "finished_at": pl.Datetime("us", "UTC"),
    "status": pl.String(),
    "problem": pl.String(),
    "solvers": pl.List(pl.String()),
    "git_rev": pl.String(),
    "host": pl.String(),
    "cpu_model": pl.String(),
    "jobs": pl.Int64(),
    "timeout_s": pl.Float64(),
    "repeat": pl.Int64(),
    "cases": pl.Int64(),
    "group": pl.String(),
    "command": pl.String(),
}


def results_chunk_path(data_dir: Path, run_id: str, chunk: int) -> Path:
    return store.table_dir(data_dir, "results") / f"{run_id}-{chunk:06d}.parquet"


def write_results_chunk(data_dir: Path, run_id: str, chunk: int, rows: list[dict]) -> Path:
    path = results_chunk_path(data_dir, run_id, chunk)
    frame = pl.DataFrame(rows, schema=RESULTS, strict=False)
    store.write_parquet_atomic(path, frame)
    return path


def stored_chunks(data_dir: Path, run_id: str) -> list[Path]:
    folder = store.table_dir(data_dir, "results")
    return sorted(folder.glob(f"{run_id}-*.parquet")) if folder.is_dir() else []


def read_run_results(data_dir: Path, run_id: str) -> pl.DataFrame:
    chunks = stored_chunks(data_dir, run_id)
    if not chunks:
        return store.empty(RESULTS)
    return pl.concat([store.conform(pl.read_parquet(c), RESULTS) for c in chunks])


def write_run(data_dir: Path, row: dict) -> None:
    path = store.table_dir(data_dir, "runs") / f"{row['run_id']}.parquet"
    store.write_parquet_atomic(path, pl.DataFrame([row], schema=RUNS, strict=False))


def read_runs(data_dir: Path) -> pl.DataFrame:
    return store.scan(data_dir, "runs").collect()
