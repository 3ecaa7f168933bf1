"""`pipeline run` and `pipeline nightly`: the request the options make, the executor started
before anything heavy is imported, the summary printed, and the exit status it earns.

`pipeline run` exits 0 when the run finished and every program got a verdict; 1 when it
failed, a program could not start, or a package's submission got what its folder does not
expect; 130 when it was interrupted (with the command that finishes it).
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import typer

from pipeline.commands.common import fail, find_problem, make_data_dir, say, settle, start_executor
from pipeline.commands.options import Settings
from pipeline.commands.options import jobs as check_jobs
from pipeline.errors import UnknownName, UserError


def run(settings: Settings, *, problem_id: str, solver: list[str] | None,
        external: list[str] | None, group: str | None, jobs: int | None,
        timeout: float | None, memory: int | None, stack: int | None, sandbox: str,
        repeat: int, resume: str | None, no_wait: bool, executor_kind: str,
        scheduler: str | None, fail_fast: bool = False) -> None:
    """Run solver stages and external programs over the stored cases of a problem."""
    from pipeline.programs.languages import BuildError
    from pipeline.run.executors import ExecutorError
    from pipeline.run.request import RunRequest, select_solvers
    from pipeline.run.solvers import parse_external

    local = executor_kind.strip().lower() == "local"
    if local:  # its workers' server imports meanwhile
        from pipeline.problems import problem_modules
        from pipeline.run.workerserver import start_server

        start_server(problem_modules([problem_id]))
    problem = find_problem(problem_id)
    if sandbox not in ("auto", "on", "off"):
        fail(f"--sandbox must be auto, on or off, not {sandbox!r}")
    if resume and (solver or external or group):
        fail("--resume RUN_ID runs the solvers, programs and group the run recorded: leave "
             "out --solver, --external and --group")
    try:
        externals = tuple(parse_external(text) for text in external or [])
        request = RunRequest(problem=problem.id, solvers=tuple(solver or ()),
                             externals=externals, group=group, jobs=jobs, timeout_s=timeout,
                             memory_mb=memory, stack_mb=stack, sandbox=sandbox,
                             repeat=repeat, resume=resume,
                             command=" ".join(["pipeline", *sys.argv[1:]]), wait=not no_wait,
                             fail_fast=fail_fast)
        selection = select_solvers(problem, request) if not resume else None
    except (UnknownName, UserError) as error:
        fail(str(error))
    # The workers start before Polars is imported (the tables and the runner import it):
    # they warm up while the parent loads, with what `run` sets for the programs they contain
    # (the sandbox setting, the data folder hidden) already in the environment they inherit.
    from pipeline.programs import contained

    contained.set_default_sandbox(sandbox)
    contained.hide(settings.data_dir)
    try:
        outcome = judge_problem(settings, problem, request, selection,
                                executor_kind=executor_kind, scheduler=scheduler, jobs=jobs)
    except NoCaseSelected as error:  # a usage error: nothing is stored
        fail(str(error))
    except (BuildError, ExecutorError, UserError) as error:
        fail(str(error), code=1)
    if isinstance(outcome, str):  # nothing failed: no run is made, as bt run skips such a package
        say(f"{problem.id}: nothing to run: {outcome}")
        return
    summary = outcome
    from pipeline.run.runner import format_summary

    say(format_summary(summary))
    if summary.status == "interrupted":
        say(f"to finish it: {resume_command(settings, problem.id, summary.run_id)}")
    code = exit_status(summary)
    if code:
        raise typer.Exit(code)


class NoCaseSelected(UserError):
    """A run that would select no stored case: refused (a usage error), nothing stored."""


def judge_problem(settings: Settings, problem, request, selection, *, executor_kind: str,
                  scheduler: str | None, jobs: int | None):
    """The run `request` asks for, of `problem` (`selection`: its solvers, None when resuming),
    the way every `pipeline run` makes it: the executor started, the package's submissions
    built and held meanwhile, runs left by dead processes settled. Returns the run's summary,
    or why there was nothing to run (a package without test data, as bt run skips it).
    Raises `NoCaseSelected`, and `BuildError`, `ExecutorError` or `UserError` when the run
    cannot be made."""
    from pipeline.progress import progress_bar

    executor = start_executor(executor_kind, scheduler, jobs, problem, selection)
    if selection is not None and selection.submissions:  # these run while Polars loads
        if executor_kind.strip().lower() == "local":  # its workers use this machine's builds
            problem.start_building(selection.submissions)
        problem.start_holding(selection.submissions)
    try:
        settle(settings.data_dir)
        from pipeline.run.runner import no_case_selected, nothing_to_run
        from pipeline.run.runner import run as run_request

        reason = None if request.resume else nothing_to_run(settings.data_dir, problem,
                                                            request.group)
        if reason:
            return reason
        why = None if request.resume else no_case_selected(settings.data_dir, problem,
                                                           request.group)
        if why:
            raise NoCaseSelected(why)
        return run_request(settings.data_dir, request, executor=executor,
                           progress=progress_bar("run"))
    finally:
        executor.close()


def exit_status(summary, err=True) -> int:
    """The exit status a finished (or stopped) run earns, saying why on stderr: 130 when it
    was interrupted, 1 when it failed, a program could not start, or a package's submission
    got what its folder does not expect (or could not be held to it); else 0."""
    if summary.status != "finished":
        return 130 if summary.status == "interrupted" else 1
    if summary.cannot_start:  # no verdict of the program: it never ran
        names = ", ".join(failure.solver for failure in summary.cannot_start)
        say(f"{names} could not start: its results are no verdict (see above)", err=err)
        return 1
    if summary.disagreements:
        say(f"{summary.disagreements} submission(s) got what their folder does not "
            "expect (see above)", err=err)
    if summary.judge_errors:
        say(f"{summary.judge_errors} submission(s) or validator(s) could not be held to "
            "what they should get: the package's own programs failed judging them "
            "(judge-error, see above)", err=err)
    return 1 if summary.disagreements or summary.judge_errors else 0


def resume_command(settings: Settings, problem_id: str, run_id: str) -> str:
    """The command line that finishes run `run_id`, as it is to be typed (with the data folder
    and problem folders this command was given)."""
    words = ["pipeline"]
    if settings.data_dir != Path("data"):
        words += ["--data-dir", str(settings.data_dir)]
    for folder in settings.problems_dirs:
        words += ["--problems-dir", str(folder)]
    return shlex.join([*words, "run", "--problem", problem_id, "--resume", run_id])


def nightly(settings: Settings, *, config: Path | None, jobs: int | None,
            executor_kind: str, scheduler: str | None) -> None:
    """The whole job: generate the default corpus if missing, ingest, run everything,
    compare with the previous run, write the report."""
    from pipeline.nightly import DEFAULT_CONFIG, format_outcome
    from pipeline.nightly import nightly as run_nightly
    from pipeline.programs.languages import BuildError
    from pipeline.progress import progress_bar
    from pipeline.run.executors import ExecutorError

    # The local pool is started per problem by each run; a cluster is connected to once.
    local = executor_kind.strip().lower() == "local"
    if local and scheduler:
        fail("--scheduler is for --executor dask")
    if local:
        check_jobs(jobs)
    make_data_dir(settings.data_dir)
    executor = None if local else start_executor(executor_kind, scheduler, jobs)
    try:
        outcome = run_nightly(settings.data_dir, config or DEFAULT_CONFIG, jobs,
                              log=lambda line: say(line),
                              progress=progress_bar("nightly"), executor=executor)
    except (BuildError, ExecutorError) as error:
        fail(str(error), code=1)
    finally:
        if executor is not None:
            executor.close()
    say(format_outcome(outcome))
    if outcome.failed:
        raise typer.Exit(1)
