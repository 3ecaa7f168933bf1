"""`pipeline query`: Polars SQL over every table, so all stored data can be inspected.

Each table (`cases`, `rejects`, `results`, `runs`) is registered as a lazy scan of its Parquet
files; a table with no files yet is an empty frame with the right columns.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Literal

import polars as pl

from pipeline.tables.files import scan
from pipeline.tables.schemas import TABLES

Format = Literal["table", "csv", "json", "parquet"]


def run_query(data_dir: Path, sql: str) -> pl.DataFrame:
    """Run one SQL statement over the tables of `data_dir`."""
    frames = {table: scan(data_dir, table) for table in TABLES}
    with pl.SQLContext(frames=frames, eager=True) as context:
        return context.execute(sql)


def render(frame: pl.DataFrame, fmt: Format) -> str:
    """A query result as text in one of the console formats."""
    if fmt == "csv":
        flat = frame.with_columns(
            pl.col(name).list.join(";") for name, dtype in frame.schema.items()
            if isinstance(dtype, pl.List))
        return flat.write_csv()
    if fmt == "json":
        buffer = io.StringIO()
        frame.write_json(buffer)
        return buffer.getvalue() + "\n"
    if fmt == "table":
        with pl.Config(tbl_rows=200, tbl_cols=-1, fmt_str_lengths=60, tbl_width_chars=160):
            return str(frame) + "\n"
    raise ValueError(f"format {fmt!r} writes binary data: use --out FILE")
