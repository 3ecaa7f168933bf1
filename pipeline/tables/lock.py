"""One writer at a time: the data folder's lock.

Every read-modify-write of a table file (ingest merging into `cases` and `rejects`, a run
storing expected answers, `doctor --fix` moving files) happens while holding an OS file lock
(`flock`) on `DATA/.lock`. The kernel releases it when the holder dies, so a killed process
never blocks anyone. Whoever holds it writes who it is into the file; a second writer waits,
saying once whom it waits for, or with `wait=False` fails at once with `LockHeld` naming the
holder. Files that are only ever created whole under a unique name (result chunks, a run's own
row) need no lock.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

LOCK_NAME = ".lock"
POLL_S = 0.05


class LockHeld(Exception):
    """The data folder's lock is held by another process and we were told not to wait."""


def _holder(path: Path) -> str:
    try:
        info = json.loads(path.read_text() or "{}")
    except (OSError, ValueError):
        return "another process"
    if not info:
        return "another process"
    return (f"pid {info.get('pid')} on {info.get('host')} ({info.get('command')}, since "
            f"{info.get('since')})")


@contextmanager
def data_lock(data_dir: Path, wait: bool = True,
              say: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the data folder's lock for the `with` block.

    When another process holds it: wait (telling `say`, default stderr, whom we wait for), or
    raise `LockHeld` at once when `wait` is False."""
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
            (say or (lambda line: print(line, file=sys.stderr, flush=True)))(
                f"waiting for the data folder {data_dir}: locked by {holder}")
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    time.sleep(POLL_S)
        info = {"pid": os.getpid(), "host": socket.gethostname(),
                "command": " ".join(["pipeline", *sys.argv[1:]])[:200],
                "since": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(info).encode(), 0)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
