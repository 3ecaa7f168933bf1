"""The progress line of `stress` and `hunt`, on stderr: on a terminal one line redrawn in place,
elsewhere a plain line about every ten seconds; events (a failure found, a case kept) are lines
of their own.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from pipeline.untrusted import shown


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
