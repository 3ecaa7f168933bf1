"""The `pipeline` console script.

`pipeline solve ...` is dispatched here without importing Typer (or anything but the problem
being solved): it is the command run once per judge file, where start-up time is most of the
cost. Every other command goes to the Typer application in `pipeline.cli`.
"""

from __future__ import annotations

import sys


def main() -> None:
    argv = sys.argv[1:]
    if argv[:1] == ["solve"]:
        from pipeline.run.solve import main as solve_main

        sys.exit(solve_main(argv[1:]))
    from pipeline.cli import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
