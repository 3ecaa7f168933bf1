"""Where the tables' files live under a data folder, the error naming one that cannot be read,
and the clock rows are stamped with; without Polars, so a command can find its files first.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

TABLES = ("cases", "rejects", "results", "runs", "findings", "expectations", "strength",
          "package_bugs")


class DamagedTable(Exception):
    """A table file that cannot be read: `pipeline doctor --fix` moves it to quarantine."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path, self.reason = Path(path), reason
        super().__init__(str(self))

    def __str__(self) -> str:
        return (f"{self.path} cannot be read ({self.reason}); `pipeline doctor --fix` moves "
                "damaged files to the data folder's quarantine/ so the rest keeps working")


def now() -> datetime:
    return datetime.now(UTC)


def table_dir(data_dir: Path, table: str) -> Path:
    if table not in TABLES:
        raise ValueError(f"unknown table {table!r}; tables: {', '.join(TABLES)}")
    return Path(data_dir) / "tables" / table


def table_files(data_dir: Path, table: str) -> list[Path]:
    folder = table_dir(data_dir, table)
    return sorted(folder.glob("*.parquet")) if folder.is_dir() else []


def problem_file(data_dir: Path, table: str, problem_id: str) -> Path:
    return table_dir(data_dir, table) / f"{problem_id}.parquet"


def no_data_folder(data_dir: Path) -> str | None:
    """What to tell a user whose data folder does not exist (None when it does)."""
    where = Path(data_dir).resolve()
    return None if where.is_dir() else (f"no data folder at {where}: `pipeline ingest` makes one "
                                        "(--data-dir DIR or PIPELINE_DATA_DIR names another)")


def registered_dir(data_dir: Path) -> Path:
    """Where a data folder keeps the problem packages registered in it (`DATA/problems/`)."""
    return Path(data_dir) / "problems"
