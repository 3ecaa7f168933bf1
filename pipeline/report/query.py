"""`pipeline query`: Polars SQL over every table, streamed so any result size fits.

Each table (`cases`, `rejects`, `results`, `runs`, and any other in the schemas) is a lazy scan
of its Parquet files (a damaged file is named before the query runs); a table with no files yet
is an empty frame with the right columns. The query is planned lazily:

- `table` (the console view) computes only the rows it shows (`TABLE_ROWS`, plus one to know
  whether there are more);
- `csv`, `json` (one JSON object per line) and `parquet` stream the whole result, in batches,
  to stdout or to `--out FILE` (written atomically), never holding it in memory at once.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import IO, Literal

import polars as pl

from pipeline.errors import UserError
from pipeline.fsutil import atomic_write
from pipeline.tables.files import scan
from pipeline.tables.schemas import TABLES

Format = Literal["table", "csv", "json", "parquet"]
FORMATS = ("table", "csv", "json", "parquet")
TABLE_ROWS = 200


def plan(data_dir: Path, sql: str) -> pl.LazyFrame:
    """The lazy plan of one SQL statement over the tables of `data_dir`."""
    frames = {table: scan(data_dir, table) for table in TABLES}
    with pl.SQLContext(frames=frames) as context:
        return context.execute(sql, eager=False)


def _flat(lazy: pl.LazyFrame) -> pl.LazyFrame:
    """List columns joined with `;` (CSV has no lists)."""
    schema = lazy.collect_schema()
    lists = [name for name, dtype in schema.items() if isinstance(dtype, pl.List)]
    return lazy.with_columns(pl.col(name).list.join(";") for name in lists) if lists else lazy


def show_table(lazy: pl.LazyFrame, rows: int = TABLE_ROWS) -> str:
    """The first `rows` rows as a console table, saying when there are more."""
    frame = lazy.head(rows + 1).collect()
    more = frame.height > rows
    with pl.Config(tbl_rows=rows, tbl_cols=-1, fmt_str_lengths=60, tbl_width_chars=160):
        text = str(frame.head(rows)) + "\n"
    if more:
        text += (f"(the first {rows} rows; --format csv|json|parquet --out FILE writes them "
                 "all)\n")
    return text


def _sink(lazy: pl.LazyFrame, fmt: Format, target: str | IO[bytes]) -> None:
    if fmt == "csv":
        _flat(lazy).sink_csv(target)
    elif fmt == "json":
        lazy.sink_ndjson(target)
    elif fmt == "parquet":
        lazy.sink_parquet(target)
    else:
        raise ValueError(f"format {fmt!r} cannot be streamed")


def write(lazy: pl.LazyFrame, fmt: Format, out: Path | None) -> None:
    """Stream the whole result to `out` (atomically) or, for text formats, to stdout."""
    if out is not None:
        atomic_write(out, lambda tmp: _sink(lazy, fmt, str(tmp)))
        return
    if fmt == "parquet":
        raise UserError("--format parquet writes binary data: give --out FILE")
    sys.stdout.flush()
    _sink(lazy, fmt, sys.stdout.buffer)
    sys.stdout.buffer.flush()


def run_query(data_dir: Path, sql: str) -> pl.DataFrame:
    """The whole result of one SQL statement (for callers that want it in memory)."""
    return plan(data_dir, sql).collect()
