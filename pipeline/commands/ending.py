"""How a `pipeline` process ends once its command has: `exit_now`.

Only the standard library is imported here: it is part of every command's start, `pipeline
solve`'s too, which imports nothing it does not need.
"""

from __future__ import annotations

import sys

from pipeline.commands.streams import lost_output


def exit_now(code: object) -> None:
    """End the process with status `code` (as `sys.exit(code)` would) without tearing its
    modules down; lost output is said and earns its status (`streams.lost_output`)."""
    import atexit
    import os
    import threading

    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        print(code, file=sys.stderr)
        status = 1
    try:  # as Python's exit: the non-daemon threads, and what they registered to run then
        getattr(threading, "_shutdown", lambda: None)()
    except Exception:  # as Python's exit, an error there changes no status (a process pool's
        pass           # wake-up pipe its own thread closed meanwhile: EBADF after a SIGTERM)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:  # None: the process was started without it
                stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: as Python's exit, say so
            status = status or 120
    lost = lost_output(status)
    if lost is not None:  # what the command printed was lost: one line, and the status
        line, status = lost
        if line:
            print(line, file=sys.stderr, flush=True)
    os._exit(status & 0xFF)
