"""The `pipeline` console script.

`pipeline solve ...` is dispatched here without importing Typer (or anything but the problem
being solved): it is the command run once per judge file, where start-up time is most of the
cost. Every other command goes to the Typer application in `pipeline.cli`.

Once the command has ended, the process ends as Python would end it, less the tearing down of
its modules: the threads Python waits for are waited for, the `atexit` functions run (the fork
server is stopped and waited for, temporary files go), standard output and error are flushed,
and the process exits with the command's status. Tearing down the modules Polars and the
package code bring is 0.05-0.1 s of every command (measured in the README) and leaves nothing
behind that the exit itself does not: everything the command stores is written and renamed
into place before it returns.
"""

from __future__ import annotations

import sys


def main() -> None:
    argv = sys.argv[1:]
    try:
        if argv[:1] == ["solve"]:
            from pipeline.run.solve import main as solve_main

            code = solve_main(argv[1:])
        else:
            from pipeline.cli import main as cli_main

            cli_main()
            code = 0
    except SystemExit as exit_:
        code = exit_.code
    exit_now(code)


def exit_now(code: object) -> None:
    """End the process with status `code` (as `sys.exit(code)` would: None is 0, a text is
    printed to stderr and is 1) without tearing its modules down."""
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
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: as Python's exit, say so
            status = status or 120
    os._exit(status & 0xFF)


if __name__ == "__main__":
    main()
