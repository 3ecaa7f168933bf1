"""`pipeline stress`, `harden` and `hunt`: the session's request from the options, the errors
a session can meet reported without a traceback, and the exit status its findings earn
(docs/stress.md).
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable
from typing import TypeVar

import typer

from pipeline.commands.common import fail, find_problem, make_data_dir, say, settle
from pipeline.commands.options import Settings, decide_sandbox
from pipeline.errors import UnknownName, UserError

T = TypeVar("T")

_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_UNIT_S = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}


def parse_duration(text: str) -> float:
    """Seconds in `text` (`60s`, `2m`, `1h`, `1m30s` or plain seconds: `90`); a UserError
    naming the text when it is not a duration."""
    stripped = text.strip().lower()
    try:
        seconds = float(stripped)
    except ValueError:
        parts = _PART.findall(stripped)
        if not parts or "".join(n + u for n, u in parts) != stripped:
            raise UserError(f"{text!r} is not a duration (examples: 60s, 2m, 1h, 90)") from None
        seconds = sum(float(number) * _UNIT_S[unit] for number, unit in parts)
    if not math.isfinite(seconds) or seconds <= 0:
        raise UserError(f"{text!r}: a duration must be a positive number of seconds")
    return seconds


def _prepared(settings: Settings, problem_id: str, sandbox: str):
    """The problem `problem_id` once `--sandbox` is decided (for the validators of a changed
    package too: it is registered again first, one line saying so, as `pipeline run` does) and
    the data folder made."""
    from pipeline.commands.running import refresh_package

    decide_sandbox(sandbox)
    refresh_package(settings, problem_id, None, wait=True)
    problem = find_problem(problem_id, settings.data_dir)
    make_data_dir(settings.data_dir)
    return problem


def _externals(external: list[str] | None) -> tuple:
    from pipeline.run.solvers import parse_external

    return tuple(parse_external(text) for text in external or [])


def _stress_request(problem_id: str, recipe: list[str] | None, generator: list[str] | None,
                    budget: str, shrink_budget: str, external: list[str] | None, **options):
    """The `StressRequest` of `pipeline stress` or `harden` (their durations parsed)."""
    from pipeline.stress.stress import StressRequest

    return StressRequest(
        problem=problem_id, recipes=tuple(recipe or ()), budget_s=parse_duration(budget),
        externals=_externals(external), shrink_budget_s=parse_duration(shrink_budget),
        command=" ".join(sys.argv), generators=tuple(generator or ()), **options)


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
    from pipeline.stress.stress import format_summary
    from pipeline.stress.stress import stress as run_stress

    problem = _prepared(settings, problem_id, sandbox)
    summary = _searched(lambda: run_stress(settings.data_dir, _stress_request(
        problem.id, recipe, generator, budget, shrink_budget, external, solver=solver,
        against=against, stop_after=stop_after, seed=seed, jobs=jobs, executor=executor_kind,
        scheduler=scheduler, group=group, sandbox=sandbox)))
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
    from pipeline.stress.harden import HardenError, format_hardened
    from pipeline.stress.harden import harden as run_harden

    problem = _prepared(settings, problem_id, sandbox)
    settle(settings.data_dir)
    try:
        request = _stress_request(problem.id, recipe, generator, budget, shrink_budget,
                                  external, solver="", against=against, seed=seed, jobs=jobs,
                                  group=group, sandbox=sandbox)
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
         rounds: int | None, seed: int, jobs: int | None, external: list[str] | None, repeats: int,
         sandbox: str) -> None:
    """Search for an input of the given size on which SOLVER is slowest; keep it in group
    `hunt` with its time and the findings table."""
    from pipeline.stress.hunt import HuntRequest, format_summary
    from pipeline.stress.hunt import hunt as run_hunt

    problem = _prepared(settings, problem_id, sandbox)
    summary = _searched(lambda: run_hunt(settings.data_dir, HuntRequest(
        problem=problem.id, solver=solver, size=size, budget_s=parse_duration(budget),
        rounds=rounds, seed=seed, jobs=jobs, repeats=repeats, externals=_externals(external),
        command=" ".join(sys.argv), sandbox=sandbox)))
    say(format_summary(summary))
    if summary.status == "interrupted":
        raise typer.Exit(130)
