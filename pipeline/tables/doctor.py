"""`pipeline doctor`: damaged Parquet files, temporary files left by killed writes and runs left
`running` by a process that is gone; `fix` moves files to `DATA/quarantine/<when>/` under the
data folder's lock (never deleting) and marks dead runs `interrupted`.
"""

from __future__ import annotations

import os
import shutil
import socket
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from pipeline.tables.files import DamagedTable, read_parquet, table_dir, table_files
from pipeline.tables.lock import LockHeld, data_lock, process_start, run_lock
from pipeline.tables.results import run_path, write_run
from pipeline.tables.schemas import RUNS, TABLES

LEFTOVER_AGE_S = 60


@dataclass
class Examination:
    damaged: list[tuple[Path, str]] = field(default_factory=list)
    leftovers: list[Path] = field(default_factory=list)
    dead_runs: list[str] = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        return not (self.damaged or self.leftovers or self.dead_runs)


def _alive(pid: int, started: int | None) -> bool:
    """Whether process `pid`, started at `started` (ticks after boot; None: unknown), runs."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return started is None or process_start(pid) in (started, None)


def dead_runs(data_dir: Path) -> list[dict]:
    """Rows of runs marked `running` whose process on this host is gone."""
    host = socket.gethostname()
    found = []
    for path in table_files(data_dir, "runs"):
        try:
            frame = read_parquet(path)
        except DamagedTable:
            continue
        for row in frame.iter_rows(named=True):
            pid = row.get("pid")
            if (row.get("status") == "running" and row.get("host") == host
                    and pid is not None and not _alive(int(pid), row.get("pid_started"))):
                found.append(row)
    return found


def settle_dead_runs(data_dir: Path) -> list[str]:
    """Mark the runs whose process died `interrupted` (holding each run's lock, and only while
    its row still says so: a resume may have taken it over); returns their ids."""
    settled = []
    for row in dead_runs(data_dir):
        try:
            with run_lock(data_dir, row["run_id"], reserve=False, wait_s=0):
                current = read_parquet(run_path(data_dir, row["run_id"])).row(0, named=True)
                if (current.get("status"), current.get("pid")) != ("running", row.get("pid")):
                    continue
                full = {name: current.get(name) for name in RUNS}
                write_run(data_dir, {**full, "status": "interrupted",
                                     "finished_at": full.get("finished_at")
                                     or datetime.now(UTC)})
        except (LockHeld, DamagedTable, OSError):
            continue
        settled.append(row["run_id"])
    return settled


def examine(data_dir: Path) -> Examination:
    found = Examination()
    now = time.time()
    for table in TABLES:
        folder = table_dir(data_dir, table)
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*")):  # with `runs/cases/`: each run's cases
            if path.is_dir():
                continue
            if path.name.startswith(".") and path.name.endswith(".tmp"):
                if now - path.stat().st_mtime > LEFTOVER_AGE_S:
                    found.leftovers.append(path)
                continue
            if path.suffix != ".parquet":
                continue
            try:
                read_parquet(path)
            except DamagedTable as error:
                found.damaged.append((path, error.reason))
    found.dead_runs = [row["run_id"] for row in dead_runs(data_dir)]
    return found


def fix(data_dir: Path, found: Examination, wait: bool = True) -> Path | None:
    """Quarantine what `examine` found and settle dead runs; returns the quarantine folder."""
    data_dir = Path(data_dir)
    target = None
    with data_lock(data_dir, wait=wait):
        moving = [p for p, _ in found.damaged] + found.leftovers
        if moving:
            target = data_dir / "quarantine" / datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
            for path in moving:
                if not path.exists():
                    continue
                destination = target / path.relative_to(data_dir)
                destination.parent.mkdir(parents=True, exist_ok=True)
                shutil.move(str(path), str(destination))
        settle_dead_runs(data_dir)
    return target


def format_examination(found: Examination, data_dir: Path) -> str:
    if found.healthy:
        return f"{data_dir}: healthy (every table file reads back whole, no leftovers)"
    lines = [f"{data_dir}:"]
    lines += [f"  damaged: {path} ({reason})" for path, reason in found.damaged]
    lines += [f"  leftover temporary file: {path}" for path in found.leftovers]
    lines += [f"  run {run_id}: left `running` by a process that is gone"
              for run_id in found.dead_runs]
    return "\n".join(lines)

