"""The command line's one way of ending: every error a user can cause is one line on stderr,
never a traceback (set PIPELINE_DEBUG=1 to see one), with exit status 1 (2 for usage errors,
128 + N when interrupted by signal N); a bug is `internal error` with exit status 70."""

from __future__ import annotations

import os
import sys

import typer

from pipeline.commands.common import say
from pipeline.errors import UnknownName, UserError


def run_app(app: typer.Typer, argv: list[str] | None = None) -> None:
    """Run the Typer application `app` on `argv` (None: the process's) and exit with the
    status its outcome earns."""
    from typer.exceptions import TyperException

    from pipeline import signals
    from pipeline.tables.layout import DamagedTable
    from pipeline.tables.lock import LockHeld

    signals.install()
    try:
        code = app(args=argv, standalone_mode=False, prog_name="pipeline")
        if signals.received is not None:  # a command that stopped on a signal by itself
            say(f"interrupted ({signals.name()})", err=True)
            code = signals.exit_code()
    except typer.Exit as exit_:
        code = exit_.exit_code
    except TyperException as error:  # usage errors: Typer says what is wrong
        show = getattr(error, "show", None)
        if show is not None:
            show()
        else:
            say(f"error: {error}", err=True)
        code = getattr(error, "exit_code", 2)
    except (typer.Abort, KeyboardInterrupt):
        say(f"interrupted ({signals.name()})", err=True)
        code = signals.exit_code()
    except (LockHeld, DamagedTable, UnknownName, UserError) as error:  # (a ConfigError too)
        say(f"error: {error}", err=True)
        code = 1
    except OSError as error:
        where = f" ({error.filename})" if error.filename else ""
        # Each table file is written whole or not at all (`fsutil.atomic_write`): the one being
        # written keeps its old content; files a command wrote before it keep their new one.
        extra = ("; the file being written keeps its old content (nothing is stored "
                 "half-written)" if error.errno == 28 else "")
        say(f"error: {error.strerror or error}{where}{extra}", err=True)
        code = 1
    except Exception as error:  # a bug: say so in one line, keep the traceback for debugging
        if os.environ.get("PIPELINE_DEBUG"):
            raise
        say(f"internal error: {type(error).__name__}: {error} (set PIPELINE_DEBUG=1 "
            "for the traceback)", err=True)
        code = 70
    sys.exit(code if isinstance(code, int) else 0)
