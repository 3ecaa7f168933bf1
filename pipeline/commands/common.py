"""The steps the commands take alike (failing with one line and an exit status, settling runs
left by dead processes, finding the problem, starting the executor, choosing the runs a report
looks at) and the command line's one way of ending (`run_app`; its statuses: docs/faults.md):
every error a user can cause is one line on stderr, never a traceback (PIPELINE_DEBUG=1 shows
one). SIGTERM and SIGHUP raise `Interrupted` (a `KeyboardInterrupt`), so every path that copes
with Ctrl-C copes with them; a second signal while the first is handled is recorded, not raised,
so clean-up finishes.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import NoReturn

import typer

from pipeline.errors import UnknownName, UserError
from pipeline.untrusted import shown


def say(text: str, err: bool = False, nl: bool = True) -> None:
    """Print `text` for the user (stdout, or stderr when `err`), its escape sequences shown
    escaped (`shown`): a message may carry a program's output or a judge file's text."""
    typer.echo(shown(text), err=err, nl=nl)


def fail(message: str, code: int = 2) -> NoReturn:
    say(f"error: {message}", err=True)
    raise typer.Exit(code)


def settle(data_dir: Path) -> None:
    """Runs left `running` by a process that died are marked `interrupted`."""
    from pipeline.tables.doctor import settle_dead_runs

    for run_id in settle_dead_runs(data_dir):
        say(f"note: run {run_id} was left running by a process that is gone: marked "
            "interrupted", err=True)


def find_problem(problem_id: str, data_dir: Path):
    """The problem `problem_id`, or a usage error naming the problems there are (or why an
    ingest into `data_dir` refused a package under that name)."""
    from pipeline.problems import get_problem

    try:
        return get_problem(problem_id)
    except UnknownName as error:
        from pipeline.corpus.refused import refused_note

        fail(refused_note(data_dir, problem_id) or str(error))


def start_executor(kind: str, scheduler: str | None, jobs: int | None, problem=None,
                   selection=None):
    """The executor the options ask for, started now (a clear error when it cannot be)."""
    from pipeline.run.choice import make_executor
    from pipeline.run.executors import ExecutorError

    try:
        return make_executor(kind, scheduler, jobs, problem, selection)
    except UserError as error:
        fail(str(error))
    except ExecutorError as error:
        fail(str(error), code=1)
    except KeyboardInterrupt:
        fail("interrupted while starting the executor", code=130)


def need_data(data_dir: Path) -> None:
    """Refuse a data folder that does not exist (a usage error, exit 2), never making it: an
    empty folder made in the wrong place would be read as holding nothing."""
    from pipeline.tables.layout import no_data_folder

    if missing := no_data_folder(data_dir):
        fail(missing)


def make_data_dir(data_dir: Path) -> None:
    """A command that stores what it makes (`ingest`, `generate`, `stress`, ...) makes a
    missing data folder, saying where in one line (on stderr, beside its own output)."""
    where = Path(data_dir).resolve()
    if not where.is_dir():
        where.mkdir(parents=True, exist_ok=True)
        say(f"note: made the data folder {where}", err=True)


def report_runs(data_dir: Path, run_ids: list[str] | None,
                problem_id: str | None) -> list[str]:
    """The runs a report command looks at; says so when there are none."""
    from pipeline.tables.results import resolve_runs

    need_data(data_dir)
    settle(data_dir)
    if problem_id:
        find_problem(problem_id, data_dir)
    try:
        runs = resolve_runs(data_dir, run_ids, problem_id)
    except UnknownName as error:
        fail(str(error))
    if not runs:
        say(f"no finished runs{' of ' + problem_id if problem_id else ''} in "
            f"{Path(data_dir).resolve()}: run 'pipeline run' first (or name another "
            "data folder with --data-dir)")
    return runs

# -- ending ---------------------------------------------------------------------------------------

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


def run_app(app: typer.Typer, argv: list[str] | None = None) -> None:
    """Run the Typer application `app` on `argv` (None: the process's) and exit with the
    status its outcome earns."""
    from typer.exceptions import TyperException

    from pipeline.tables.layout import DamagedTable
    from pipeline.tables.lock import LockHeld

    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _handler)
    try:
        code = app(args=argv, standalone_mode=False, prog_name="pipeline")
        if received is not None:  # a command that stopped on a signal by itself
            say(f"interrupted ({signal.Signals(received).name})", err=True)
            code = 128 + received
    except typer.Exit as exit_:
        code = exit_.exit_code
    except TyperException as error:  # usage errors: Typer says what is wrong
        show = getattr(error, "show", None)
        if show is not None:
            show()
        else:
            say(f"error: {error}", err=True)
        code = getattr(error, "exit_code", 2)
    except (typer.Abort, KeyboardInterrupt):  # the exit status: 128 + the signal's number
        signum = signal.Signals(received or signal.SIGINT)
        say(f"interrupted ({signum.name})", err=True)
        code = 128 + signum
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
