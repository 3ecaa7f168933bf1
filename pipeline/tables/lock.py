"""One writer at a time: the data folder's lock.

Every read-modify-write of a table file holds an `flock` on `DATA/.lock` (released when the
holder dies), whose file says who holds it. A run holds `DATA/.runs/RUN_ID.lock` from start to
end (a second `--resume` refuses); that file keeps `RUN_RESERVE_BYTES` of disk for the run's
last write. A process is named by its pid and start time, so a reused pid is not mistaken.
"""

from __future__ import annotations

import errno
import fcntl
import functools
import json
import os
import socket
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from pipeline.untrusted import shown

LOCK_NAME = ".lock"
POLL_S = 0.05
RUN_RESERVE_BYTES = 256 << 10  # a run's own row is some 10 KB of Parquet


class LockHeld(Exception):
    """The data folder's lock is held by another process and we were told not to wait."""


def _holder(path: Path) -> str:
    try:
        info = json.loads(path.read_text().rstrip("\0") or "{}")
    except (OSError, ValueError):
        return "another process"
    if not info:
        return "another process"
    return (f"pid {info.get('pid')} on {info.get('host')} ({info.get('command')}, since "
            f"{info.get('since')})")


def _me() -> bytes:
    """Who holds a lock, as its file says: this process's pid, host, command and since when."""
    return json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                       "command": " ".join(["pipeline", *sys.argv[1:]])[:200],
                       "since": datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")}
                      ).encode()


@contextmanager
def data_lock(data_dir: Path, wait: bool = True) -> Iterator[None]:
    """Hold the data folder's lock for the `with` block; when another process holds it, wait
    (saying whom for on stderr), or raise `LockHeld` at once when `wait` is False."""
    data_dir = Path(data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(path)
            if not wait:
                raise LockHeld(f"the data folder {data_dir} is locked by {holder}; try again "
                               "when it is done (or leave out --no-wait to wait)") from None
            print(shown(f"waiting for the data folder {data_dir}: locked by {holder}"),
                  file=sys.stderr, flush=True)
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.pwrite(fd, _me(), 0)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def process_start(pid: int) -> int | None:
    """When process `pid` started, in clock ticks after boot (field 22 of `/proc/PID/stat`);
    None when there is no such process (or no `/proc` to ask)."""
    try:
        stat = Path(f"/proc/{int(pid)}/stat").read_text()
        # Field 2, the command name in parentheses, may hold spaces and ')': split after its end.
        return int(stat[stat.rfind(")") + 2:].split()[22 - 3])
    except (OSError, ValueError, IndexError):
        return None


# How long a run waits for its lock before refusing: long enough to outlast a command that
# holds it a moment to mark the run interrupted, far shorter than any run.
RUN_LOCK_WAIT_S = 1.0


@contextmanager
def run_lock(data_dir: Path, run_id: str, reserve: bool = True,
             wait_s: float = RUN_LOCK_WAIT_S) -> Iterator[Callable[[], None]]:
    """Hold run `run_id` for the `with` block, or raise `LockHeld` (after `wait_s`) naming its
    holder. With `reserve`, keeps `RUN_RESERVE_BYTES` of disk and yields a function that gives
    them back (just before the run's last write)."""
    path = Path(data_dir) / ".runs" / f"{run_id}.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + wait_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LockHeld(f"run {run_id} is being run by {_holder(path)}: wait until "
                                   "it ends (a run is written by one process at a time)") \
                        from None
                time.sleep(POLL_S)
        info = _me()
        os.ftruncate(fd, 0)
        os.pwrite(fd, info, 0)
        try:
            if reserve:
                os.posix_fallocate(fd, len(info), RUN_RESERVE_BYTES)
        except OSError as error:
            if error.errno not in (errno.EOPNOTSUPP, errno.EINVAL):  # ENOSPC: say so now
                raise OSError(error.errno, error.strerror, str(path)) from None
        try:
            yield functools.partial(os.ftruncate, fd, len(info))  # the reserve given back
        finally:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
