"""`pipeline query`: Polars SQL over every table (each a lazy scan of its Parquet files),
streamed so any result size fits; `query_error` explains a failed query in one line.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal, cast

import polars as pl

from pipeline.errors import UserError, closest_name
from pipeline.fsutil import atomic_write, utf8_path
from pipeline.problems import cases_schema
from pipeline.tables.files import scan
from pipeline.tables.schemas import TABLES

Format = Literal["table", "csv", "json", "parquet"]
FORMATS = ("table", "csv", "json", "parquet")
TABLE_ROWS = 200


def plan(data_dir: Path, sql: str) -> pl.LazyFrame:
    """The lazy plan of one SQL statement over the tables of `data_dir`."""
    frames = {table: scan(data_dir, table, cases_schema() if table == "cases" else None)
              for table in TABLES}
    with pl.SQLContext(frames=frames) as context:
        return context.execute(sql, eager=False)


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
    if fmt == "csv":  # list columns joined with `;` (CSV has no lists)
        lists = [name for name, dtype in lazy.collect_schema().items()
                 if isinstance(dtype, pl.List)]
        lazy.with_columns(pl.col(name).list.join(";") for name in lists).sink_csv(target)
    elif fmt == "json":
        lazy.sink_ndjson(target)
    elif fmt == "parquet":
        lazy.sink_parquet(target)
    else:
        raise ValueError(f"format {fmt!r} cannot be streamed")


def write(lazy: pl.LazyFrame, fmt: Format, out: Path | None) -> None:
    """Stream the whole result to `out` (atomically) or, for text formats, to stdout."""
    if out is not None:
        atomic_write(out, lambda tmp: _sink(lazy, fmt, utf8_path(tmp)))
        return
    if fmt == "parquet":
        raise UserError("--format parquet writes binary data: give --out FILE")
    sys.stdout.flush()
    _sink(lazy, fmt, cast(IO[bytes], _Writes(sys.stdout.buffer)))  # writes are all it needs
    sys.stdout.buffer.flush()


class _Writes:
    """A binary stream as Polars is to write to it: by its `write` alone. Given the stream
    itself, Polars writes to its descriptor (`fileno`), past the stream, whose own way with a
    write that fails (the pipeline's standard output: `pipeline.entry`) it would bypass."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream

    def write(self, data: bytes) -> int:
        return self.stream.write(data)

    def flush(self) -> None:
        self.stream.flush()


def run_query(data_dir: Path, sql: str) -> pl.DataFrame:
    """The whole result of one SQL statement (for callers that want it in memory)."""
    return plan(data_dir, sql).collect()


@dataclass(frozen=True)
class QueryError:
    """Why a query failed, and where in the text typed (`start` None: nowhere in particular)."""

    message: str
    start: int | None = None
    length: int = 1

    def lines(self, sql: str) -> list[str]:
        """The message, then (for a one-line query) the query with a caret under the place."""
        out = [self.message]
        if self.start is not None and "\n" not in sql.strip():
            text = sql.strip()
            start = min(self.start, len(text))
            out += [f"  {text}", "  " + " " * start + "^" * max(1, self.length)]
        return out


_POSITION = re.compile(r"\s*at Line: (\d+), Column: (\d+)")
_FOUND = re.compile(r"found: (\S+)")


def query_error(sql: str, error: Exception) -> QueryError:
    """What went wrong with `sql`, said in words of the query (from Polars' `error`)."""
    text = str(error).strip()
    first = text.splitlines()[0] if text else type(error).__name__
    typed = sql.strip()
    offset = len(sql) - len(sql.lstrip())  # positions below are in `typed`
    if match := re.search(r"relation '([^']+)' was not found", first):
        name = match.group(1)
        close = closest_name(name, TABLES)
        hint = f"did you mean {close}? " if close else ""
        return QueryError(f"no table {name!r} ({hint}the tables: {', '.join(TABLES)})",
                          *_locate(typed, name))
    if match := (re.search(r'unable to find column "([^"]+)"', first)
                 or re.search(r"no column named '([^']+)'", first)):
        name = match.group(1)
        valid = re.findall(r'"([^"]+)"', first.split("valid columns:", 1)[1]) \
            if "valid columns:" in first else []
        close = closest_name(name, valid)
        hint = (f" (did you mean {close}?)" if close else
                f" (a string is written in single quotes: '{name}')" if valid else "")
        return QueryError(f"no column {name!r}{hint}", *_locate(typed, name))
    if match := re.search(r"unsupported function '([^']+)'", first):
        return QueryError(f"no SQL function {match.group(1)!r} in Polars SQL",
                          *_locate(typed, match.group(1)))
    if first.startswith("sql parser error: "):
        said = _POSITION.sub("", first.removeprefix("sql parser error: "))
        position = _POSITION.search(first)
        found = _FOUND.search(first)
        if found and found.group(1) == "EOF":
            expected = said.split(", found")[0].replace("Expected: ", "expected ")
            return QueryError(f"the query ends too soon: {expected}", len(typed), 1)
        if position and position.group(1) == "1":
            start = int(position.group(2)) - 1 - offset
            return QueryError(f"cannot parse the query: {said}", max(0, start),
                              len(found.group(1)) if found else 1)
        if found:
            return QueryError(f"cannot parse the query: {said}", *_locate(typed, found.group(1)))
        return QueryError(f"cannot parse the query: {said}")
    return QueryError(first)


def _locate(sql: str, word: str) -> tuple[int | None, int]:
    """(start, length) of `word` as a whole word in `sql` (case-insensitive; its last
    occurrence, where a name is usually used after being introduced), else (None, 1)."""
    found = list(re.finditer(rf"(?<!\w){re.escape(word)}(?!\w)", sql, re.IGNORECASE))
    if not found:
        found = list(re.finditer(re.escape(word), sql, re.IGNORECASE))
    return (found[-1].start(), len(word)) if found else (None, 1)
