"""SIGTERM and SIGHUP act like Ctrl-C: they interrupt the command where it is.

`install()` makes both raise `Interrupted` (a `KeyboardInterrupt`), so every path that already
copes with Ctrl-C (a run marked `interrupted`, its workers and programs killed, its scratch
removed, temporary files unlinked, locks released) copes with them too. The command then exits
with 128 + the signal's number (143 for SIGTERM, 129 for SIGHUP; 130 for Ctrl-C), as shells do.
A second signal while the first is being handled is recorded, not raised, so clean-up finishes.
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
