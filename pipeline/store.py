"""The tables: their schemas, where their Parquet files live, and atomic writes.

Every table is a folder of Parquet files under `DATA/tables/<table>/`, so a user reads it with
plain Polars on a glob: `pl.scan_parquet("data/tables/cases/*.parquet")`. All files of a table
share one schema (the one declared here), which is what makes the plain glob read work.

- `cases` and `rejects`: one file per problem (`<problem>.parquet`), rewritten whole when an
  ingest changes that problem;
- `results` and `runs`: appended in new files (chunks), never rewritten.

Each file is written to a temporary name and renamed into place, so a crash at any moment
leaves every file with either its old or its new content, never half of one.
"""

from __future__ import annotations

from datetime import datetime, timezone
from functools import cache
from pathlib import Path

import polars as pl

from pipeline.fsutil import atomic_write
from pipeline.problems import Problem, all_problems

TABLES = ("cases", "rejects", "results", "runs")

CASES_BASE: dict[str, pl.DataType] = {
    "problem": pl.String(),
    "case_id": pl.String(),
    "source": pl.String(),
    "sources": pl.List(pl.String()),
    "group": pl.String(),
    "input": pl.String(),
    "expected": pl.String(),
    "expected_source": pl.String(),
    "size": pl.Int64(),
    "input_bytes": pl.Int64(),
    "ingested_at": pl.Datetime("us", "UTC"),
}

REJECTS: dict[str, pl.DataType] = {
    "problem": pl.String(),
    "source": pl.String(),
    "line": pl.Int64(),
    "column": pl.Int64(),
    "rule": pl.String(),
    "message": pl.String(),
    "ingested_at": pl.Datetime("us", "UTC"),
}


@cache
def size_column_names(problem: Problem) -> tuple[str, ...]:
    """The problem's own size columns, read off one generated case (they are fixed keys)."""
    recipe = next((r for r in problem.recipes if r.kind == "tiny"), problem.recipes[0])
    return tuple(problem.size_columns(problem.generate(recipe.name, seed=0)))


@cache
def cases_schema() -> dict[str, pl.DataType]:
    """The cases schema: the common columns plus every registered problem's size columns."""
    schema = dict(CASES_BASE)
    for problem in all_problems():
        for name in size_column_names(problem):
            if name in CASES_BASE:
                raise ValueError(f"{problem.id}: size column {name!r} clashes with a base column")
            schema.setdefault(name, pl.Int64())
    return schema


def now() -> datetime:
    return datetime.now(timezone.utc)


def table_dir(data_dir: Path, table: str) -> Path:
    if table not in TABLES:
        raise ValueError(f"unknown table {table!r}; tables: {', '.join(TABLES)}")
    return Path(data_dir) / "tables" / table


def table_files(data_dir: Path, table: str) -> list[Path]:
    folder = table_dir(data_dir, table)
    return sorted(folder.glob("*.parquet")) if folder.is_dir() else []


def conform(frame: pl.DataFrame, schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """`frame` with exactly the schema's columns, in order, missing ones as nulls."""
    columns = [
        (pl.col(name) if name in frame.columns else pl.lit(None)).cast(dtype).alias(name)
        for name, dtype in schema.items()
    ]
    return frame.select(columns)


def empty(schema: dict[str, pl.DataType]) -> pl.DataFrame:
    return pl.DataFrame(schema=schema)


def write_parquet_atomic(path: Path, frame: pl.DataFrame) -> None:
    atomic_write(path, lambda tmp: frame.write_parquet(tmp, compression="zstd",
                                                       statistics=True))


def read_file(path: Path, schema: dict[str, pl.DataType]) -> pl.DataFrame:
    if not path.exists():
        return empty(schema)
    return conform(pl.read_parquet(path), schema)


def write_problem_file(data_dir: Path, table: str, problem_id: str, frame: pl.DataFrame,
                       schema: dict[str, pl.DataType]) -> Path:
    path = table_dir(data_dir, table) / f"{problem_id}.parquet"
    write_parquet_atomic(path, conform(frame, schema))
    return path


def migrate(data_dir: Path, table: str, schema: dict[str, pl.DataType]) -> None:
    """Rewrite any file of `table` whose schema is not the current one (e.g. a new problem
    added size columns), so a plain glob read keeps working."""
    for path in table_files(data_dir, table):
        if dict(pl.read_parquet_schema(path)) != schema:
            write_parquet_atomic(path, conform(pl.read_parquet(path), schema))


def scan(data_dir: Path, table: str) -> pl.LazyFrame:
    """A lazy view of a whole table (empty with the right schema when nothing is stored)."""
    files = table_files(data_dir, table)
    schema = schema_of(table)
    if not files:
        return empty(schema).lazy()
    return pl.scan_parquet([str(f) for f in files], missing_columns="insert")


def schema_of(table: str) -> dict[str, pl.DataType]:
    if table == "cases":
        return cases_schema()
    if table == "rejects":
        return REJECTS
    from pipeline.run.tables import RESULTS, RUNS  # defined with the runner

    return {"results": RESULTS, "runs": RUNS}[table]
