"""How the tables' files are written (atomically: a temporary name renamed into place) and
read (a file that cannot be read is a `DamagedTable` naming it).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import polars as pl

from pipeline.fsutil import atomic_write, utf8_path
from pipeline.tables.layout import DamagedTable, now, problem_file, table_dir, table_files  # noqa: F401
from pipeline.tables.schemas import schema_of
from pipeline.untrusted import storable


def conform(frame: pl.DataFrame, schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """`frame` with exactly the schema's columns, in order, missing ones as nulls."""
    return frame.select([
        (pl.col(name) if name in frame.columns else pl.lit(None)).cast(dtype).alias(name)
        for name, dtype in schema.items()])


def frame_of(rows: list[dict], schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """`rows` as a frame of `schema`; a text holding a byte that is not UTF-8 (a path, a command
    line) is stored with that byte as its escape `\\xff` (Polars takes UTF-8 only)."""
    try:
        return pl.DataFrame(rows, schema=schema, strict=False)
    except UnicodeEncodeError:
        return pl.DataFrame([{key: _storable(value) for key, value in row.items()}
                             for row in rows], schema=schema, strict=False)


def _storable(value):
    if isinstance(value, str):
        return storable(value)
    if isinstance(value, (list, tuple)):
        return [_storable(item) for item in value]
    if isinstance(value, dict):
        return {key: _storable(item) for key, item in value.items()}
    return value


def empty(schema: dict[str, pl.DataType]) -> pl.DataFrame:
    return pl.DataFrame(schema=schema)


# zstd at level 1: judge inputs are written faster than at the default level, no larger.
PARQUET_COMPRESSION: dict[str, Any] = {"compression": "zstd", "compression_level": 1}


# Rows per row group: as many as make about this many bytes, so that row groups of large
# judge inputs are compressed on every core.
ROW_GROUP_BYTES = 16 << 20
MAX_ROW_GROUP_ROWS = 512 * 512  # Polars' own default
# Rows per row group of a file written in batches (`write_batches_atomic`), and what a batch
# holds: Arrow's writer compresses a row group on one core, so no more is needed to keep it busy.
BATCH_BYTES = 4 << 20
# Rows per data page: as many as make about this many bytes. Arrow's writer encodes and
# compresses a page whole, and looks at a page's size only every so many rows (by default
# 1024, so that a row group of 1 MB inputs was one page, held two and three times over).
PAGE_BYTES = 1 << 20
MAX_PAGE_ROWS = 1024  # Arrow's own default


def _rows_per(total_bytes: float, rows: int, target: int, most: int) -> int:
    """Rows that make about `target` bytes at the average row size (1 to `most`)."""
    return max(1, min(most, int(target // max(1.0, total_bytes / max(1, rows)))))


def arrow_schema(schema: dict[str, pl.DataType]) -> Any:
    """The Arrow schema a frame of `schema` is written in (`pyarrow.Schema`)."""
    return empty(schema).to_arrow().schema


def arrow_table(rows: list[dict], types: Any) -> Any:
    """`rows` as an Arrow table (`pyarrow.Table`) of `types` (an `arrow_schema`), each text
    copied once: for `write_batches_atomic`, without making a frame of them first."""
    import pyarrow as pa

    try:  # a pool that keeps the pages a batch freed for the next (a batch's worth, no more):
        pool = pa.mimalloc_memory_pool()  # from the C library's, each was faulted in afresh
    except NotImplementedError:  # (a pyarrow built without it)
        pool = None
    return pa.Table.from_arrays([pa.array([row.get(field.name) for row in rows], field.type,
                                          memory_pool=pool) for field in types], schema=types)


def write_parquet_atomic(path: Path, frame: pl.DataFrame) -> None:
    """Write `frame` to `path` atomically. A full disk is an `OSError` (ENOSPC) naming `path`
    whichever library met it (Polars says it in a `ComputeError`)."""
    _atomic_naming_full_disk(path, lambda tmp: frame.write_parquet(
        utf8_path(tmp), statistics=True, row_group_size=_rows_per(
            frame.estimated_size(), frame.height, ROW_GROUP_BYTES, MAX_ROW_GROUP_ROWS),
        **PARQUET_COMPRESSION))


def write_batches_atomic(path: Path, batches: Iterable[pl.DataFrame | Any],
                         schema: dict[str, pl.DataType]) -> None:
    """Write `batches` into one file atomically, one at a time, a row group each (or more, of
    about `BATCH_BYTES`): frames conformed to `schema`, or Arrow tables of `arrow_table`.
    What is held at once is a batch and a page of it encoded (`PAGE_BYTES`), whatever the
    file's size."""
    import pyarrow.parquet as pq

    def write(tmp: Path) -> None:
        writer = None
        try:
            for batch in batches:
                table = conform(batch, schema).to_arrow() if isinstance(
                    batch, pl.DataFrame) else batch
                if writer is None:
                    writer = pq.ParquetWriter(
                        utf8_path(tmp), table.schema, compression="zstd", compression_level=1,
                        use_dictionary=False, write_batch_size=_rows_per(
                            table.nbytes, table.num_rows, PAGE_BYTES, MAX_PAGE_ROWS))
                else:
                    table = table.cast(writer.schema)
                writer.write_table(table, row_group_size=_rows_per(
                    table.nbytes, table.num_rows, BATCH_BYTES, MAX_ROW_GROUP_ROWS))
        finally:
            if writer is not None:
                writer.close()
        if writer is None:
            empty(schema).write_parquet(utf8_path(tmp), **PARQUET_COMPRESSION)

    _atomic_naming_full_disk(path, write)


def _atomic_naming_full_disk(path: Path, write: Callable[[Path], None]) -> None:
    try:
        atomic_write(path, write)
    except (pl.exceptions.PolarsError, OSError) as error:
        full = (error.errno == errno.ENOSPC if isinstance(error, OSError) else
                "No space left on device" in str(error) or "os error 28" in str(error))
        if full:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path)) from None
        raise


def _reason(error: BaseException) -> str:
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return text[:200]


def file_schema(path: Path) -> dict[str, pl.DataType]:
    """The schema in a Parquet file's footer (cheap: the data is not read)."""
    try:
        return dict(pl.read_parquet_schema(utf8_path(path)))
    except (pl.exceptions.PolarsError, OSError, ValueError) as error:
        raise DamagedTable(path, _reason(error)) from None


def read_parquet(path: Path, columns: list[str] | None = None) -> pl.DataFrame:
    """One Parquet file, or `DamagedTable` naming it."""
    try:
        return pl.read_parquet(utf8_path(path), columns=columns)
    except (pl.exceptions.PolarsError, OSError, ValueError) as error:
        raise DamagedTable(path, _reason(error)) from None


def read_batches(path: Path, schema: dict[str, pl.DataType],
                 columns: list[str] | None = None) -> Iterator[pl.DataFrame]:
    """A table file's rows a row group at a time, conformed to `schema` (none: no file)."""
    wanted = schema if columns is None else {name: schema[name] for name in columns}
    if not Path(path).exists():
        return
    import pyarrow as pa
    import pyarrow.parquet as pq

    present = set(file_schema(path))
    names = [c for c in wanted if c in present]
    try:
        parquet = pq.ParquetFile(path)
        groups = parquet.num_row_groups
    except (pa.ArrowException, OSError, ValueError) as error:
        raise DamagedTable(path, _reason(error)) from None
    for index in range(groups):
        try:
            table = parquet.read_row_group(index, columns=names)
        except (pa.ArrowException, OSError, ValueError) as error:
            raise DamagedTable(path, _reason(error)) from None
        frame = pl.from_arrow(table) if names else pl.DataFrame(height=table.num_rows)
        assert isinstance(frame, pl.DataFrame)  # a table (not an array) is read
        yield conform(frame, wanted)


def read_file(path: Path, schema: dict[str, pl.DataType],
              columns: list[str] | None = None) -> pl.DataFrame:
    """A table file conformed to `schema` (empty when it does not exist)."""
    wanted = schema if columns is None else {name: schema[name] for name in columns}
    if not Path(path).exists():
        return empty(wanted)
    present = set(file_schema(path))
    return conform(read_parquet(path, [c for c in wanted if c in present]), wanted)


def write_problem_file(data_dir: Path, table: str, problem_id: str, frame: pl.DataFrame,
                       schema: dict[str, pl.DataType]) -> Path:
    path = problem_file(data_dir, table, problem_id)
    write_parquet_atomic(path, conform(frame, schema))
    return path


def migrate(data_dir: Path, table: str, schema: dict[str, pl.DataType]) -> None:
    """Rewrite any file of `table` whose schema is not the current one (a glob read needs one)."""
    for path in table_files(data_dir, table):
        if file_schema(path) != schema:
            write_parquet_atomic(path, conform(read_parquet(path), schema))


def scan(data_dir: Path, table: str,
         schema: dict[str, pl.DataType] | None = None) -> pl.LazyFrame:
    """A lazy view of a whole table in `schema` (default: its own), empty when nothing is
    stored; every file's footer is checked first, so a damaged file is named here."""
    files = table_files(data_dir, table)
    schema = schema or schema_of(table)
    if not files:
        return empty(schema).lazy()
    for path in files:
        file_schema(path)
    return pl.scan_parquet([utf8_path(path) for path in files], schema=schema,
                           missing_columns="insert", extra_columns="ignore")
