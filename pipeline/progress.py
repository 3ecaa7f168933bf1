"""Progress of long jobs on stderr. Ingest, run and nightly (`progress_bar`): on a terminal a bar
redrawn in place; elsewhere one plain line every `LOG_EVERY_S` seconds
(`PIPELINE_PROGRESS_EVERY_S`), so a log of a long job is never silent for long. Stress and hunt
(`Status`): on a terminal one line redrawn in place, elsewhere a plain line about every ten
seconds; events (a failure found, a case kept) are lines of their own.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import TextIO

from pipeline.untrusted import shown

LOG_EVERY_S = 10.0
LOG_EVERY_ENV = "PIPELINE_PROGRESS_EVERY_S"


def log_interval() -> float:
    """Seconds between two progress lines when the output is not a terminal."""
    text = os.environ.get(LOG_EVERY_ENV)
    try:
        return float(text) if text else LOG_EVERY_S
    except ValueError:
        return LOG_EVERY_S


def progress_bar(label: str, stream=None, min_interval: float = 0.1,
                 every_s: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> Callable[..., None]:
    """A callback `update(done, total, note="")`: a bar on a terminal, else a line every
    `every_s` seconds (default `log_interval()`)."""
    stream = stream or sys.stderr
    isatty = getattr(stream, "isatty", None)
    if isatty is not None and isatty():
        return _bar(label, stream, min_interval, clock)
    return _lines(label, stream, log_interval() if every_s is None else every_s, clock)


def _bar(label: str, stream, min_interval: float,
         clock: Callable[[], float]) -> Callable[..., None]:
    started = clock()
    last = [0.0]

    def update(done: int, total: int, note: str = "") -> None:
        now = clock()
        if done < total and now - last[0] < min_interval:
            return
        last[0] = now
        width = 30
        filled = int(width * done / total) if total else width
        eta = (now - started) / done * (total - done) if done else 0.0
        stream.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} "
                     f"ETA {eta:5.1f}s {note}\033[K")
        if done >= total:
            stream.write("\n")
        stream.flush()

    return update


def _lines(label: str, stream, every_s: float,
           clock: Callable[[], float]) -> Callable[..., None]:
    """A line once `every_s` seconds have passed since the last line or since the phase (the
    calls up to done == total) began; a phase that printed a line also prints its last one.
    No time left is guessed: cases come smallest first, so the last take most of the time."""
    state = {"last": 0.0, "start": 0.0, "open": False, "printed": False}

    def update(done: int, total: int, note: str = "") -> None:
        now = clock()
        finished = done >= total
        if not state["open"]:
            state.update(last=now, start=now, open=True, printed=False)
        if now - state["last"] >= every_s or (finished and state["printed"]):
            elapsed = now - state["start"]
            share = f" ({done / total:.0%})" if total else ""
            stream.write(f"{label}: {done}/{total}{share} after {elapsed:.0f} s"
                         f"{'  ' + note if note else ''}{', done' if finished else ''}\n")
            stream.flush()
            state["last"], state["printed"] = now, True
        if finished:
            state["open"] = False

    return update


class Status:
    def __init__(self, stream: TextIO | None = None, interval_s: float | None = None) -> None:
        self.stream = stream or sys.stderr
        try:
            self.tty = self.stream.isatty()
        except (AttributeError, ValueError):
            self.tty = False
        self.interval_s = interval_s if interval_s is not None else (0.2 if self.tty else 10.0)
        self._last = time.monotonic()
        self._drawn = False

    def show(self, text: str, force: bool = False) -> None:
        """The current state; written only when the interval has passed (or `force`). Its
        text is `shown` (it may quote a program's output)."""
        text = shown(text)
        now = time.monotonic()
        if not force and now - self._last < self.interval_s:
            return
        self._last = now
        if self.tty:
            self.stream.write(f"\r{text}\033[K")
            self._drawn = True
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def say(self, text: str) -> None:
        """A line that stays (the in-place line is cleared first), `shown` as `show`'s."""
        text = shown(text)
        if self._drawn:
            self.stream.write("\r\033[K")
            self._drawn = False
        self.stream.write(text + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False


def aligned(rows: Sequence[tuple[str, ...]]) -> list[str]:
    """Rows of cells as lines, each column left-aligned to its widest cell."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
