"""The `pipeline` console script: `pipeline solve` is dispatched without importing Typer or
anything but the problem being solved; every other command goes to `pipeline.cli`. Once the
command has ended the process skips tearing down its modules: everything a command stores is
written and renamed into place before it returns.
"""

from __future__ import annotations

import sys

from pipeline.commands.streams import exit_now, guard


def main() -> None:
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
