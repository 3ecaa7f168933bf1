"""A small progress bar for long jobs, drawn on stderr only when it is a terminal."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable


def progress_bar(label: str, stream=None,
                 min_interval: float = 0.1) -> Callable[..., None] | None:
    """A callback `update(done, total, note="")`, or None when `stream` is not a terminal
    (callers then skip the work of describing progress at all)."""
    stream = stream or sys.stderr
    if not stream.isatty():
        return None
    started = time.monotonic()
    last = [0.0]

    def update(done: int, total: int, note: str = "") -> None:
        now = time.monotonic()
        if done < total and now - last[0] < min_interval:
            return
        last[0] = now
        width = 30
        filled = int(width * done / total) if total else width
        elapsed = now - started
        eta = elapsed / done * (total - done) if done else 0.0
        stream.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} "
                     f"ETA {eta:5.1f}s {note}\033[K")
        if done >= total:
            stream.write("\n")
        stream.flush()

    return update
