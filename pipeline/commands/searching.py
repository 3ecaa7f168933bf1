"""`pipeline stress`, `harden` and `hunt`: their options, the session's request from them, the
errors a session can meet reported without a traceback, and the exit status its findings earn
(docs/stress.md).
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable
from typing import Annotated, TypeVar

import typer

from pipeline.commands.common import fail, find_problem, make_data_dir, say, settle
from pipeline.commands.options import (
    ExecutorOption,
    ExternalOption,
    JobsOption,
    ProblemOption,
    SandboxOption,
    SchedulerOption,
    SeedOption,
    Settings,
    decide_sandbox,
)
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
    build, an unwritable data folder, a damaged table), reported without a traceback; a
    `UserError` is also each session's own (`StressError`, `HuntError`, `JudgeError`) and a
    settings file's (`ConfigError`)."""
    from pipeline.programs.languages import BuildError
    from pipeline.run.executors import ExecutorError
    from pipeline.tables.files import DamagedTable

    return (UnknownName, BuildError, DamagedTable, ExecutorError, UserError, OSError)


def _searched(search: Callable[[], T], code: int = 2) -> T:
    """What `search()` (a stress, harden or hunt request made and run) returns; a program of the
    user's that cannot start exits 1 (the user's program, not the command line), another error
    `code`."""
    from pipeline.stress.judge import StartError

    try:
        return search()
    except StartError as error:
        fail(str(error), code=1)
    except stress_errors() as error:
        fail(str(error), code=code)


def stress_command(
    ctx: typer.Context,
    problem_id: ProblemOption,
    solver: Annotated[str, typer.Option(
        "--solver", "-s", metavar="NAME", help="The solver to check: a stage, a configured "
        "solver, an --external name or a package's submission.")],
    against: Annotated[str | None, typer.Option(
        "--against", metavar="NAME", help="The reference (default: the problem's reference order; "
        "for a package, its main or first accepted submission).")] = None,
    recipe: Annotated[list[str] | None, typer.Option(
        "--recipe", "-r", metavar="PATTERN", help="Recipe name or shell pattern (repeatable; "
        "default: every recipe but the max ones; a Polygon package's recipes are its generator "
        "commands).")] = None,
    generator: Annotated[list[str] | None, typer.Option(
        "--generator", "-g", metavar="COMMAND", help="A generator as a recipe: a program of the "
        "package (or a path, or a command on PATH) and its arguments, {seed} filled in per case "
        "(appended when absent); its output is checked by the package's input validators "
        "(repeatable; default: none; given, the session uses only these unless --recipe is "
        "given).")] = None,
    group: Annotated[str | None, typer.Option(
        "--group", metavar="GROUP", help="A package's test group whose rules every generated case "
        "is held to: its validator arguments, its judging (default: a Polygon test's own group; "
        "for --generator, the package's first group of secret cases).")] = None,
    budget: Annotated[str, typer.Option(
        "--budget", metavar="DURATION", help="The session's time (e.g. 60s, 5m); a shrink under "
        "way finishes.")] = "60s",
    stop_after: Annotated[int, typer.Option(
        "--stop-after", min=1, metavar="N", help="Stop after this many findings.")] = 1,
    seed: SeedOption = 1,
    jobs: JobsOption = None,
    external: ExternalOption = None,
    shrink_budget: Annotated[str, typer.Option(
        "--shrink-budget", metavar="DURATION", help="Time for shrinking each failure.")] = "120s",
    sandbox: SandboxOption = "auto",
    executor_kind: ExecutorOption = "local",
    scheduler: SchedulerOption = None,
) -> None:
    """Generate cases from recipes until SOLVER and the reference disagree (or SOLVER fails),
    shrink each failure, keep it in group `found` and the findings table."""
    from pipeline.stress.stress import format_summary
    from pipeline.stress.stress import stress as run_stress

    problem = _prepared(ctx.obj, problem_id, sandbox)
    summary = _searched(lambda: run_stress(ctx.obj.data_dir, _stress_request(
        problem.id, recipe, generator, budget, shrink_budget, external, solver=solver,
        against=against, stop_after=stop_after, seed=seed, jobs=jobs, executor=executor_kind,
        scheduler=scheduler, group=group, sandbox=sandbox)))
    say(format_summary(summary))
    if summary.status == "interrupted":
        raise typer.Exit(130)
    if summary.failures:
        raise typer.Exit(1)


def harden_command(
    ctx: typer.Context,
    problem_id: ProblemOption,
    solver: Annotated[list[str] | None, typer.Option(
        "--solver", "-s", metavar="NAME", help="A wrong program to kill (repeatable; default: "
        "every wrong program no case of the latest run kills).")] = None,
    against: Annotated[str | None, typer.Option(
        "--against", metavar="NAME", help="The reference (default: the problem's reference "
        "order; for a package, its main or first accepted submission).")] = None,
    recipe: Annotated[list[str] | None, typer.Option(
        "--recipe", "-r", metavar="PATTERN", help="Recipe name or shell pattern (repeatable; "
        "default: as pipeline stress).")] = None,
    generator: Annotated[list[str] | None, typer.Option(
        "--generator", "-g", metavar="COMMAND", help="A generator as a recipe, as for pipeline "
        "stress (repeatable; default: none).")] = None,
    group: Annotated[str | None, typer.Option(
        "--group", metavar="GROUP", help="A package's test group the new tests are held to "
        "(default: as pipeline stress).")] = None,
    budget: Annotated[str, typer.Option(
        "--budget", metavar="DURATION", help="Search time per wrong program (e.g. 60s, 5m).")]
        = "60s",
    seed: SeedOption = 1,
    jobs: JobsOption = None,
    external: ExternalOption = None,
    shrink_budget: Annotated[str, typer.Option(
        "--shrink-budget", metavar="DURATION", help="Time for shrinking each case found.")]
        = "120s",
    sandbox: SandboxOption = "auto",
) -> None:
    """For each wrong program the tests let through, search for a case that kills it (as
    pipeline stress does), shrink it and add it to the problem's own tests: a package's data
    (harden-NAME.in/.ans beside its test group's cases), a built-in problem's
    DATA/raw/PROBLEM/hardened/. Exits 1 when a wrong program still survives."""
    from pipeline.stress.harden import format_hardened
    from pipeline.stress.harden import harden as run_harden

    problem = _prepared(ctx.obj, problem_id, sandbox)
    settle(ctx.obj.data_dir)
    done = _searched(lambda: run_harden(ctx.obj.data_dir, _stress_request(
        problem.id, recipe, generator, budget, shrink_budget, external, solver="",
        against=against, seed=seed, jobs=jobs, group=group, sandbox=sandbox),
        tuple(solver or ()), log=lambda line: say(line, err=True)), code=1)  # (a HardenError too)
    say(format_hardened(problem.id, done))
    if any(item.status == "interrupted" for item in done):
        raise typer.Exit(130)
    if any(item.status != "added" for item in done):
        raise typer.Exit(1)


def hunt_command(
    ctx: typer.Context,
    problem_id: ProblemOption,
    solver: Annotated[str, typer.Option(
        "--solver", "-s", metavar="NAME", help="The solver to slow down: a stage, a configured "
        "solver or an --external name.")],
    size: Annotated[int | None, typer.Option(
        "--size", min=1, metavar="N", help="Size measure of the inputs (default: the growth "
        "ladder's first size).")] = None,
    budget: Annotated[str, typer.Option(
        "--budget", metavar="DURATION", help="Time to search from the starting cases on "
        "(e.g. 120s; a round under way finishes).")] = "120s",
    rounds: Annotated[int | None, typer.Option(
        "--rounds", min=1, metavar="N", help="Stop after N rounds of mutants, or at the budget "
        "if sooner: as much search however busy the machine is (default: the budget "
        "alone).")] = None,
    seed: SeedOption = 1,
    jobs: JobsOption = None,
    external: ExternalOption = None,
    repeats: Annotated[int, typer.Option(
        "--repeats", min=1, metavar="N", help="Timings per candidate that may be kept.")] = 3,
    sandbox: SandboxOption = "auto",
) -> None:
    """Search for an input of the given size on which SOLVER is slowest; keep it in group
    `hunt` with its time and the findings table."""
    from pipeline.stress.hunt import HuntRequest, format_summary
    from pipeline.stress.hunt import hunt as run_hunt

    problem = _prepared(ctx.obj, problem_id, sandbox)
    summary = _searched(lambda: run_hunt(ctx.obj.data_dir, HuntRequest(
        problem=problem.id, solver=solver, size=size, budget_s=parse_duration(budget),
        rounds=rounds, seed=seed, jobs=jobs, repeats=repeats, externals=_externals(external),
        command=" ".join(sys.argv), sandbox=sandbox)))
    say(format_summary(summary))
    if summary.status == "interrupted":
        raise typer.Exit(130)
