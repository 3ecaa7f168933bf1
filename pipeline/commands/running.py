"""`pipeline run` and `pipeline nightly` (its options too): the request the options make, the
executor started before anything heavy is imported, the summary printed, and the exit status
it earns (`exit_status`; docs/commands.md#pipeline-run).
"""

from __future__ import annotations

import shlex
import sys
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from pipeline.commands.common import fail, find_problem, make_data_dir, say, settle, start_executor
from pipeline.commands.options import (
    ExecutorOption,
    RunJobsOption,
    SchedulerOption,
    Settings,
    decide_sandbox,
)
from pipeline.commands.options import jobs as check_jobs
from pipeline.errors import UnknownName, UserError


def run(settings: Settings, *, problem_id: str | None, solver: list[str] | None,
        external: list[str] | None, group: str | None, jobs: int | None,
        timeout: float | None, memory: int | None, stack: int | None, sandbox: str,
        repeat: int, resume: str | None, no_wait: bool, executor_kind: str,
        scheduler: str | None, fail_fast: bool = False,
        paths: list[Path] | None = None) -> None:
    """Run solver stages and external programs over the stored cases of a problem (the
    package holding the current folder or `paths` when no `problem_id` is given; `paths` are
    submissions to judge alone)."""
    from pipeline.programs.languages import BuildError
    from pipeline.run.executors import ExecutorError
    from pipeline.run.request import RunRequest, select_solvers
    from pipeline.run.solvers import parse_external

    settings, problem_id, first = locate(settings, problem_id, paths or [])
    decide_sandbox(sandbox)  # every program of the run: external, submission, judge, build
    if executor_kind.strip().lower() == "local":  # its workers' server loads it meanwhile
        from pipeline.programs.contained import warm_up
        from pipeline.run.workerserver import start_server

        start_server([problem_id])
        warm_up()  # (its answer kept for the builds and the run; the server has its own)
    refresh_package(settings, problem_id, first, wait=not no_wait)
    problem = find_problem(problem_id, settings.data_dir)
    if paths or solver:
        solver = submission_names(problem, [*(solver or []), *map(str, paths or [])])
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
    # they warm up while the parent loads, with the data folder hidden from the programs they
    # contain already in the environment they inherit.
    from pipeline.programs import contained

    contained.hide(settings.data_dir)
    try:
        summary = judge_problem(settings, problem, request, selection,
                                executor_kind=executor_kind, scheduler=scheduler, jobs=jobs)
    except NoCaseSelected as error:  # a usage error: nothing is stored
        fail(str(error))
    except (BuildError, ExecutorError, UserError) as error:
        fail(str(error), code=1)
    if isinstance(summary, str):  # nothing failed: no run is made, as bt run skips such a package
        say(f"{problem.id}: nothing to run: {summary}")
        return
    from pipeline.run.runner import format_summary

    say(format_summary(summary))
    if summary.status == "interrupted":
        say(f"to finish it: {resume_command(settings, problem.id, summary.run_id)}")
    code = exit_status(summary)
    if summary.status == "finished" and summary.judge_failed:
        say(f"to judge them again: {resume_command(settings, problem.id, summary.run_id)}",
            err=True)
    if code:
        raise typer.Exit(code)


class NoCaseSelected(UserError):
    """A run that would select no stored case: refused (a usage error), nothing stored."""


def judge_problem(settings: Settings, problem, request, selection, *, executor_kind: str,
                  scheduler: str | None, jobs: int | None, shared=None):
    """The run `request` asks for (`selection`: its solvers, None when resuming), the package's
    submissions built while the executor starts: its summary, or why there was nothing to run.
    `shared`: an executor the caller started and closes (a contest's: no progress bar)."""
    from pipeline.progress import progress_bar

    executor = shared or start_executor(executor_kind, scheduler, jobs, problem, selection)
    judge = problem.package_judge
    if selection is not None and selection.submissions and judge is not None:
        # its workers use this machine's builds (these run while Polars loads)
        if executor_kind.strip().lower() == "local":
            judge.start_building(selection.submissions)
        judge.start_holding(selection.submissions)
    try:
        if shared is None:
            settle(settings.data_dir)
        from pipeline.run.runner import no_case_selected, nothing_to_run
        from pipeline.run.runner import run as run_request

        if not request.resume:
            if reason := nothing_to_run(settings.data_dir, problem, request.group):
                return reason
            if why := no_case_selected(settings.data_dir, problem, request.group):
                raise NoCaseSelected(why)
        return run_request(settings.data_dir, request, executor=executor,
                           progress=None if shared else progress_bar("run"))
    finally:
        if shared is None:
            executor.close()


def exit_status(summary) -> int:
    """The exit status a finished (or stopped) run earns, saying why on stderr
    (docs/commands.md#pipeline-run). A submission that could not start but got what its folder
    permits (as DOMjudge's `class Main` for Java) is a note, not a failure."""
    if summary.status != "finished":
        return 130 if summary.status == "interrupted" else 1
    held = summary.expectations  # (None: no package submissions judged)
    agreeing = {a.submission for a in getattr(held, "agreements", ()) if a.status == "agree"}
    failed = [f.solver for f in summary.cannot_start if f.solver not in agreeing]
    if permitted := [f.solver for f in summary.cannot_start if f.solver in agreeing]:
        say(f"note: {', '.join(permitted)} could not start, which its folder permits: "
            "no failure (see above)", err=True)
    if failed:  # no verdict of the program: it never ran
        say(f"{', '.join(failed)} could not start: its results are no verdict (see above)",
            err=True)
        return 1
    reasons = [  # (how many, what is wrong with them), each said when there are some
        (summary.judge_failed, "result(s) are judge errors (JE): the judge failed on them (a "
         "checker failed, or the workers running the case died), so they are no verdict of the "
         "program (see above); --resume judges them again"),
        (len(getattr(held, "disagreements", ())), "submission(s) got what their folder does not "
         "expect (see above)"),
        (len(getattr(held, "judge_errors", ())), "submission(s) or validator(s) could not be held "
         "to what they should get: the package's own programs failed judging them (judge-error, "
         "see above)"),
        (len(getattr(held, "partial", ())), "submission(s) got what they expect only on the test "
         "cases judged: the package holds test cases that were not judged (see `not judged` "
         "above), so no agreement is reported")]
    for count, text in reasons:
        if count:
            say(f"{count} {text}", err=True)
    return 1 if any(count for count, _ in reasons) else 0


def locate(settings: Settings, problem_id: str | None,
           paths: list[Path]) -> tuple[Settings, str, Path | None]:
    """The settings, the problem and (when not registered yet) the package folder a run
    judges: the problem named, else the package holding the first of `paths` or the current
    folder; in the data folder named, else `./data`, else the nearest one above (never made)."""
    from pipeline.corpus.live import data_folder_near, is_data_folder, package_root, registered_as
    from pipeline.problems import add_problem_dirs, problem_ids
    from pipeline.tables.layout import no_data_folder, registered_dir

    start = paths[0] if paths else Path.cwd()
    root = package_root(start)
    if root is None and problem_id is None:
        where = f"{start}" if paths else "this folder"
        fail(f"no --problem given, and {where} is in no problem package (no problem.yaml or "
             "problem.xml here or above): give --problem PROBLEM or --contest CONTEST (pipeline "
             "problems lists them)")
    if root is not None and not settings.data_dir_named \
            and not is_data_folder(settings.data_dir):  # in a package, ./data is its tests
        found = data_folder_near([Path.cwd(), root])
        if found is not None:
            settings = replace(settings, data_dir=found)
            add_problem_dirs([registered_dir(found)])
            say(f"note: data folder {found} (the nearest above; --data-dir DIR names "
                "another)", err=True)
        elif problem_id is None:
            fail(f"no data folder for the package at {root}: none named, and no data/ data "
                 "folder here or above: name one with --data-dir DIR or PIPELINE_DATA_DIR (a "
                 "run never makes one; `pipeline --data-dir DIR ingest PACKAGE` does)")
    if problem_id is not None:
        return settings, problem_id, None
    assert root is not None
    for path in paths[1:]:
        if package_root(path) != root:
            fail(f"{path} is not in the package at {root}: judge one package's submissions "
                 "at a time")
    if missing := no_data_folder(settings.data_dir):
        fail(missing)
    registered = registered_as(settings.data_dir, root)
    if registered is not None:
        return settings, registered, None
    if root.name in problem_ids():
        fail(f"the package at {root} is not registered in {settings.data_dir.resolve()}, "
             f"whose problem {root.name!r} is another: `pipeline ingest {root} --problem "
             "NAME` registers it under another name")
    return settings, root.name, root


def refresh_package(settings: Settings, problem_id: str, first: Path | None, *,
                    wait: bool) -> None:
    """Register the package `problem_id` again when its source changed (or, `first`, register
    that package folder for the first time), saying so in one line."""
    from pipeline.corpus.live import refresh
    from pipeline.problems import problem_folder

    if first is None:
        try:
            folder = problem_folder(problem_id)
        except (UnknownName, UserError):
            return  # find_problem says so
    else:
        folder = Path()
    try:
        done = refresh(settings.data_dir, problem_id, folder, wait=wait, first=first)
    except (UnknownName, UserError) as error:
        fail(str(error), code=1)
    if done.note:
        say(done.note, err=True)


def submission_names(problem, texts: list[str]) -> list[str]:
    """Each of `texts` as a solver name: a submission may be named by its path as a shell
    completes it, from the current folder or from the package's (`pipeline.corpus.live`)."""
    from pipeline.corpus.live import submission_name, submission_roots
    from pipeline.run.solvers import submissions

    names = submissions(problem)
    if not names:
        return texts
    roots = submission_roots(problem.folder)
    return [submission_name(text, names, roots) for text in texts]


def resume_command(settings: Settings, problem_id: str, run_id: str) -> str:
    """The command line that finishes run `run_id`, as it is to be typed (with the data folder
    and problem folders this command was given)."""
    words = ["pipeline"]
    if settings.data_dir != Path("data"):
        words += ["--data-dir", str(settings.data_dir)]
    for folder in settings.problems_dirs:
        words += ["--problems-dir", str(folder)]
    return shlex.join([*words, "run", "--problem", problem_id, "--resume", run_id])


def nightly_command(
    ctx: typer.Context,
    config: Annotated[Path | None, typer.Option(
        "--config", metavar="FILE",
        help="The nightly's settings (default: configs/nightly.toml).")] = None,
    jobs: RunJobsOption = None,
    executor_kind: ExecutorOption = "local",
    scheduler: SchedulerOption = None,
    contest: Annotated[str | None, typer.Option(
        "--contest", metavar="CONTEST", help="Run every problem of this contest (recorded by "
        "`pipeline ingest`) instead of the config's problems and contests (default: "
        "those of the config).")] = None,
) -> None:
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
    make_data_dir(ctx.obj.data_dir)
    executor = None if local else start_executor(executor_kind, scheduler, jobs)
    try:
        outcome = run_nightly(ctx.obj.data_dir, config or DEFAULT_CONFIG, jobs,
                              log=lambda line: say(line),
                              progress=progress_bar("nightly"), executor=executor,
                              contest=contest)
    except (BuildError, ExecutorError) as error:
        fail(str(error), code=1)
    except (UnknownName, UserError) as error:
        fail(str(error))
    finally:
        if executor is not None:
            executor.close()
    say(format_outcome(outcome))
    if outcome.failed:
        raise typer.Exit(1)
