"""The options several commands share, their checks, the settings the top-level options give
every command, and how help shows them: values by their metavar (`SQL`, `N`), not by type
(`<str>`, `[x>=1]`), and every command's epilog as its examples, one command line each.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Annotated

import typer
from typer._click.types import ParamType, _NumberRangeBase
from typer.core import TyperArgument, TyperCommand, TyperGroup

from pipeline.commands.common import fail
from pipeline.errors import UserError


@dataclass(frozen=True)
class Settings:
    data_dir: Path
    problems_dirs: tuple[Path, ...] = ()  # as given with --problems-dir
    data_dir_named: bool = False  # by --data-dir or PIPELINE_DATA_DIR (not the default)


def complete_problem(incomplete: str) -> list[str]:
    """Problem ids starting with what was typed (for shell completion)."""
    from pipeline.problems import problem_ids

    return [pid for pid in problem_ids() if pid.startswith(incomplete)]


def within(low: float, high: float = math.inf, *, low_included: bool = True):
    """An option's check: a finite number from `low` (or above it) to `high`; anything else
    (`nan`, `inf`, out of range) is a usage error naming the option."""
    def check(value: float | None) -> float | None:
        if value is None:
            return value
        above = value >= low if low_included else value > low
        if not (math.isfinite(value) and above and value <= high):
            bounds = f"{'at least' if low_included else 'above'} {low:g}"
            if math.isfinite(high):
                bounds += f" and at most {high:g}"
            raise typer.BadParameter(f"must be a finite number {bounds}, not {value:g}")
        return value
    return check


def jobs(value: int | None) -> int | None:
    """`--jobs` of a pool on this machine: at most a few workers per core (each is a process
    of its own). The executors check theirs (a cluster's may be larger)."""
    from pipeline.run.executors import check_jobs

    try:
        return check_jobs(value)
    except UserError as error:
        raise typer.BadParameter(str(error)) from None


def decide_sandbox(mode: str) -> None:
    """Check `--sandbox` (not auto, on or off: a usage error, exit 2) and decide it for every
    program the command runs: `on` where the sandbox cannot work is refused (exit 1) before
    anything runs or is written."""
    from pipeline.programs.contained import SANDBOX_MODES, set_sandbox

    if mode not in SANDBOX_MODES:
        fail(f"--sandbox must be {', '.join(SANDBOX_MODES[:-1])} or {SANDBOX_MODES[-1]}, "
             f"not {mode!r}")
    try:
        set_sandbox(mode)
    except UserError as error:
        fail(str(error), code=1)


# Where a command's cases run; shared by every command that runs cases (`run`, `nightly`).
ExecutorOption = Annotated[str, typer.Option(
    "--executor", metavar="KIND", help="Where cases run: local (a process pool on this machine) "
    "or dask (a Dask cluster).")]
SchedulerOption = Annotated[str | None, typer.Option(
    "--scheduler", metavar="ADDRESS", help="Dask scheduler address, tcp://HOST:PORT (default: "
    "$PIPELINE_SCHEDULER; neither: a local Dask cluster is started for the command).")]


# The one place the sandbox setting is read from the environment: the default of --sandbox.
SANDBOX_VARIABLE = "PIPELINE_SANDBOX"

# Options every command that runs solvers shares (`stress`, `hunt`).
ProblemOption = Annotated[str, typer.Option("--problem", "-p", metavar="PROBLEM",
                                            autocompletion=complete_problem,
                                            help="Problem id.")]
ExternalOption = Annotated[list[str] | None, typer.Option(
    "--external", "-e", metavar="NAME=COMMAND",
    help="An external program: a command, or a source file built by its language "
    "(NAME=sol.cpp, or sol.cpp named sol; repeatable; default: none).")]
SandboxOption = Annotated[str, typer.Option(
    "--sandbox", metavar="MODE", envvar=SANDBOX_VARIABLE, show_envvar=True,
    help="Run every program (external programs, a package's submissions, builds, "
    "validators, checkers, interactors, generators) in a sandbox (its own mount and network "
    "namespaces, the file system read-only): auto (where it works, else without it, saying "
    "so), on (refuse to run where it cannot work), off.")]
JobsOption = Annotated[int | None, typer.Option(
    "--jobs", "-j", min=1, metavar="N", help="Worker processes (default: the number of cores).")]
SeedOption = Annotated[int, typer.Option("--seed", metavar="N", help="Random seed.")]
NoWaitOption = Annotated[bool, typer.Option(
    "--no-wait", help="Fail at once if another command is writing the tables.")]
# `--jobs` of the commands that run every solver (`run`, `nightly`).
RunJobsOption = Annotated[int | None, typer.Option(
    "--jobs", "-j", min=1, metavar="N", help="Worker processes (default: the number of cores, "
    "and more at once while the programs they run leave the cores idle).")]

# Options of the commands that read stored runs (`slow`, `mismatches`, `strength`, `report`).
EveryProblemOption = Annotated[str | None, typer.Option(
    "--problem", "-p", metavar="PROBLEM", autocompletion=complete_problem,
    help="Only this problem (default: every problem).")]
RunsOption = Annotated[list[str] | None, typer.Option(
    "--run", metavar="RUN_ID", help="Run id (repeatable; default: the latest finished "
    "run of each problem).")]


# -- help ---------------------------------------------------------------------------------------

class Argument(TyperArgument):
    """An argument shown by its metavar alone: `SQL`, `[PATH]...`, never `{sql}` or `<str>`."""

    def make_metavar(self, ctx, *, usage: bool = False) -> str:
        name = self.metavar or (self.name or "").upper()
        if usage and not self.required:
            name = f"[{name}]"
        return name + ("..." if self.nargs != 1 else "")


@cache
def _shown_by_metavar(kind: type[ParamType]) -> type[ParamType]:
    """A subclass of the parameter type `kind` that help prints nothing of: no `<str>` beside
    an argument, no `[x>=1]` range beside an option (the metavar and the help say it)."""
    overrides: dict[str, Callable[..., str]] = {"get_metavar": lambda self, param, ctx: ""}
    if issubclass(kind, _NumberRangeBase):
        overrides["_describe_range"] = lambda self: ""
    return type(kind.__name__, (kind,), overrides)


class _Readable:
    """A command's or group's help with readable parameters, their types unshown."""

    def get_params(self, ctx):
        params = super().get_params(ctx)  # type: ignore[misc]
        for param in params:
            if type(param) is TyperArgument:
                param.__class__ = Argument
        return params

    def format_help(self, ctx, formatter) -> None:
        """While help is written, each parameter's type is a copy that help prints nothing of
        (conversion and error messages, outside, keep the real type)."""
        kept = [(param, param.type) for param in self.get_params(ctx) if param.type is not None]
        try:
            for param, kind in kept:
                shown = copy.copy(kind)
                # a class is hashable; mypy reads the instances' `__hash__ = None` of ParamType
                shown.__class__ = _shown_by_metavar(type(kind))  # type: ignore[arg-type]
                param.type = shown
            super().format_help(ctx, formatter)  # type: ignore[misc]
        finally:
            for param, kind in kept:
                param.type = kind


class Command(_Readable, TyperCommand):
    pass


class Group(_Readable, TyperGroup):
    pass


def examples(*lines: str) -> str:
    """An epilog of example command lines (Markdown: one line each, as written)."""
    return "**Examples**\n\n" + "  \n".join(f"`{line}`" for line in lines)
