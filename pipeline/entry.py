"""The `pipeline` console script.

`pipeline solve ...` is dispatched here without importing Typer (or anything but the problem
being solved): it is the command run once per judge file, where start-up time is most of the
cost. Every other command goes to the Typer application in `pipeline.cli`; while `pipeline
serve` runs, it goes to the service instead, which runs it with every module loaded
(`pipeline.commands.service`), and this process waits for its status.

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

from pipeline.commands.ending import exit_now


def main() -> None:
    argv = sys.argv[1:]
    from pipeline.commands.service import run_in_service

    code = run_in_service(argv)
    exit_now(run_here(argv) if code is None else code)


def run_here(argv: list[str]) -> object:
    """Run the command `argv` in this process; what it exits with (as `SystemExit.code`)."""
    try:
        if argv[:1] == ["solve"]:
            from pipeline.run.solve import main as solve_main

            return solve_main(argv[1:])
        from pipeline.cli import status_of

        return status_of(argv)
    except SystemExit as exit_:
        return exit_.code


if __name__ == "__main__":
    main()
