"""The `pipeline` console script.

`pipeline solve ...` is dispatched here without importing Typer (or anything but the problem
being solved): it is the command run once per judge file, where start-up time is most of the
cost. Every other command goes to the Typer application in `pipeline.cli`, in this process.

Once the command has ended, the process ends as Python would end it, less the tearing down of
its modules: the threads Python waits for are waited for, the `atexit` functions run (the fork
server is stopped and waited for, temporary files go), standard output and error are flushed,
and the process exits with the command's status. Tearing down the modules Polars and the
package code bring is skipped: it leaves nothing behind that the exit itself does not, since
everything the command stores is written and renamed into place before it returns.
"""

from __future__ import annotations

import sys

from pipeline.commands.ending import exit_now


def main() -> None:
    from pipeline.commands.streams import guard

    guard()  # before anything opens a file or prints: see `streams`
    argv = sys.argv[1:]
    code: object
    try:
        if argv[:1] == ["solve"]:
            from pipeline.run.solve import main as solve_main

            code = solve_main(argv[1:])
        else:
            from pipeline.cli import main as cli_main

            cli_main(argv)
            code = 0
    except SystemExit as exit_:
        code = exit_.code
    exit_now(code)


if __name__ == "__main__":
    main()
