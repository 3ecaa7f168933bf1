"""SIGTERM and SIGHUP act like Ctrl-C: `install()` makes both raise `Interrupted` (a
`KeyboardInterrupt`), so every path that copes with Ctrl-C copes with them too, and the command
exits with 128 + the signal's number. A second signal while the first is being handled is
recorded, not raised, so clean-up finishes.
"""

from __future__ import annotations

import signal

received: int | None = None


class Interrupted(KeyboardInterrupt):
    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _handler(signum, frame) -> None:
    global received
    if received is not None:
        return
    received = signum
    raise Interrupted(signum)


def install() -> None:
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _handler)


def exit_code() -> int:
    """The exit status of an interrupted command: 128 + the signal's number."""
    return 128 + (received or signal.SIGINT)


def name() -> str:
    return signal.Signals(received or signal.SIGINT).name
