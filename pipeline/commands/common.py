"""The steps the commands take alike: failing with one line and an exit status, settling runs
left by dead processes, finding the problem, starting the executor, and choosing the runs a
report looks at (saying so when there are none)."""

from __future__ import annotations

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


def find_problem(problem_id: str, data_dir: Path | None = None):
    """The problem `problem_id`, or a usage error naming the problems there are (or why an
    ingest into `data_dir` refused a package under that name)."""
    from pipeline.problems import get_problem

    try:
        return get_problem(problem_id)
    except UnknownName as error:
        if data_dir is not None:
            from pipeline.corpus.refused import refused_note

            note = refused_note(data_dir, problem_id)
            if note is not None:
                fail(note)
        fail(str(error))


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

    missing = no_data_folder(data_dir)
    if missing:
        fail(missing)


def make_data_dir(data_dir: Path) -> None:
    """A command that stores what it makes (`ingest`, `generate`, `stress`, ...) makes a
    missing data folder, saying where in one line (on stderr, beside its own output)."""
    where = Path(data_dir).resolve()
    if not where.is_dir():
        where.mkdir(parents=True, exist_ok=True)
        say(f"note: made the data folder {where}", err=True)


def empty_data_note(data_dir: Path) -> str | None:
    """What to tell a user whose data folder holds no tables (None when it holds some)."""
    from pipeline.tables.files import table_files
    from pipeline.tables.schemas import TABLES

    where = Path(data_dir).resolve()
    if not any(table_files(data_dir, table) for table in TABLES):
        return (f"the data folder {where} holds no tables yet (pipeline ingest and pipeline "
                "run fill them; --data-dir DIR names another folder)")
    return None


def report_runs(data_dir: Path, run_ids: list[str] | None,
                problem_id: str | None) -> list[str]:
    """The runs a report command looks at; says so when there are none."""
    from pipeline.tables.runs import resolve_runs

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
