"""`pipeline stress`, `harden` and `hunt`: the session's request from the options, the errors
a session can meet reported without a traceback, and the exit status its findings earn
(docs/stress.md).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TypeVar

import typer

from pipeline.commands.common import fail, find_problem, make_data_dir, say, settle
from pipeline.commands.options import Settings, decide_sandbox
from pipeline.errors import UnknownName, UserError

T = TypeVar("T")


def _current(settings: Settings, problem_id: str):
    """The problem `problem_id`, a package registered again first when its folder changed
    (one line says so), as `pipeline run` does."""
    from pipeline.commands.running import refresh_package

    refresh_package(settings, problem_id, None, wait=True)
    return find_problem(problem_id, settings.data_dir)


def stress_errors():
    """The errors a stress or hunt session can meet (unknown names, unpaired solvers, a failed
    build, an unwritable data folder, a damaged table), reported without a traceback."""
    from pipeline.config import ConfigError
    from pipeline.programs.languages import BuildError
    from pipeline.run.executors import ExecutorError
    from pipeline.stress.hunt import HuntError
    from pipeline.stress.judge import JudgeError
    from pipeline.stress.stress import StressError
    from pipeline.tables.files import DamagedTable

    return (UnknownName, JudgeError, StressError, HuntError, BuildError, ConfigError,
            DamagedTable, ExecutorError, UserError, OSError)


def _searched(search: Callable[[], T]) -> T:
    """What `search()` (a stress or hunt request made and run) returns; a program of the user's
    that cannot start exits 1 (the user's program, not the command line), a bad request 2."""
    from pipeline.stress.judge import StartError

    try:
        return search()
    except StartError as error:
        fail(str(error), code=1)
    except stress_errors() as error:
        fail(str(error))


def stress(settings: Settings, *, problem_id: str, solver: str, against: str | None,
           recipe: list[str] | None, generator: list[str] | None, group: str | None,
           budget: str, stop_after: int, seed: int, jobs: int | None,
           external: list[str] | None, shrink_budget: str, sandbox: str, executor_kind: str,
           scheduler: str | None) -> None:
    """Generate cases from recipes until SOLVER and the reference disagree (or SOLVER fails),
    shrink each failure, keep it in group `found` and the findings table."""
    from pipeline.run.solvers import parse_external
    from pipeline.stress.durations import parse_duration
    from pipeline.stress.stress import StressRequest, format_summary
    from pipeline.stress.stress import stress as run_stress

    decide_sandbox(sandbox)  # and of the validators registering a changed package again
    problem = _current(settings, problem_id)
    make_data_dir(settings.data_dir)
    summary = _searched(lambda: run_stress(settings.data_dir, StressRequest(
        problem=problem.id, solver=solver, against=against, recipes=tuple(recipe or ()),
        budget_s=parse_duration(budget), stop_after=stop_after, seed=seed, jobs=jobs,
        externals=tuple(parse_external(text) for text in external or []),
        shrink_budget_s=parse_duration(shrink_budget), command=" ".join(sys.argv),
        executor=executor_kind, scheduler=scheduler, generators=tuple(generator or ()),
        group=group, sandbox=sandbox)))
    say(format_summary(summary))
    if summary.status == "interrupted":
        raise typer.Exit(130)
    if summary.failures:
        raise typer.Exit(1)


def harden(settings: Settings, *, problem_id: str, solver: list[str] | None,
           against: str | None, recipe: list[str] | None,
           generator: list[str] | None, group: str | None, budget: str, seed: int,
           jobs: int | None, external: list[str] | None, shrink_budget: str,
           sandbox: str) -> None:
    """For each wrong program the tests let through, search for a case that kills it, shrink
    it and add it to the problem's own tests; exits 1 when a wrong program still survives."""
    from pipeline.run.solvers import parse_external
    from pipeline.stress.durations import parse_duration
    from pipeline.stress.harden import HardenError, format_hardened
    from pipeline.stress.harden import harden as run_harden
    from pipeline.stress.stress import StressRequest

    decide_sandbox(sandbox)
    problem = _current(settings, problem_id)
    make_data_dir(settings.data_dir)
    settle(settings.data_dir)
    try:
        request = StressRequest(
            problem=problem.id, solver="", against=against, recipes=tuple(recipe or ()),
            budget_s=parse_duration(budget), seed=seed, jobs=jobs,
            externals=tuple(parse_external(text) for text in external or []),
            shrink_budget_s=parse_duration(shrink_budget), command=" ".join(sys.argv),
            generators=tuple(generator or ()), group=group, sandbox=sandbox)
        done = run_harden(settings.data_dir, request, tuple(solver or ()),
                          log=lambda line: say(line, err=True))
    except (HardenError, *stress_errors()) as error:
        fail(str(error), code=1)
    say(format_hardened(problem.id, done))
    if any(item.status == "interrupted" for item in done):
        raise typer.Exit(130)
    if any(item.status != "added" for item in done):
        raise typer.Exit(1)


def hunt(settings: Settings, *, problem_id: str, solver: str, size: int | None, budget: str,
         seed: int, jobs: int | None, external: list[str] | None, repeats: int,
         sandbox: str) -> None:
    """Search for an input of the given size on which SOLVER is slowest; keep it in group
    `hunt` with its time and the findings table."""
    from pipeline.run.solvers import parse_external
    from pipeline.stress.durations import parse_duration
    from pipeline.stress.hunt import HuntRequest, format_summary
    from pipeline.stress.hunt import hunt as run_hunt

    decide_sandbox(sandbox)  # and of the validators registering a changed package again
    problem = _current(settings, problem_id)
    make_data_dir(settings.data_dir)
    summary = _searched(lambda: run_hunt(settings.data_dir, HuntRequest(
        problem=problem.id, solver=solver, size=size, budget_s=parse_duration(budget),
        seed=seed, jobs=jobs, repeats=repeats,
        externals=tuple(parse_external(text) for text in external or []),
        command=" ".join(sys.argv), sandbox=sandbox)))
    say(format_summary(summary))
    if summary.status == "interrupted":
        raise typer.Exit(130)
