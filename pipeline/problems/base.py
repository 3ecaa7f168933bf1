"""How a problem's folder becomes a `Problem`: `define_problem` joins the folder's code with
the facts in its `problem.toml`, checking each against the other. The model's names are here
too, so a problem folder imports one module.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, replace
from importlib import import_module
from pathlib import Path

from pipeline.config import ConfigError, read_problem_settings
from pipeline.problems.model import (
    ROLES,
    Answer,
    Bound,
    Case,
    Checker,
    Growth,
    Mutation,
    Problem,
    Recipe,
    RecipeKind,
    Role,
    ShrinkPass,
    Stage,
)

__all__ = ["ROLES", "Answer", "Bound", "Case", "Checker", "Growth", "Mutation", "Problem",
           "Recipe", "RecipeKind", "Role", "ShrinkPass", "Stage", "define_builtin",
           "define_problem"]

CASE_FUNCTIONS = ("parse", "render", "format_answer", "validate_answer", "size", "size_values")


def define_builtin(package: str) -> Problem:
    """The built-in problem of the package named `package`, from its modules, each naming its
    part the same way: `case` (the `CASE_FUNCTIONS` and `BOUNDS`), `stages` (`STAGES`),
    `recipes` (`RECIPES`, `growth_case`) and `shrink` (`SHRINKS`, `MUTATIONS`)."""
    case, stages, recipes, shrink = (import_module(f"{package}.{name}")
                                     for name in ("case", "stages", "recipes", "shrink"))
    return define_problem(
        str(case.__file__), **{name: getattr(case, name) for name in CASE_FUNCTIONS},
        stages=stages.STAGES, recipes=recipes.RECIPES, growth=recipes.growth_case,
        shrinks=shrink.SHRINKS, mutations=shrink.MUTATIONS, bounds=case.BOUNDS)


def define_problem(module_file: str, *, parse: Callable[[str], Case],
                   render: Callable[[Case], str],
                   format_answer: Callable[[Case, Answer], str],
                   validate_answer: Callable[[Case, str], None],
                   size: Callable[[Case], int],
                   size_values: Callable[[Case], Mapping[str, int]],
                   stages: tuple[Stage, ...], recipes: tuple[Recipe, ...],
                   growth: Callable[[int, int], Case] | None = None,
                   shrinks: tuple[ShrinkPass, ...] = (),
                   mutations: tuple[Mutation, ...] = (),
                   bounds: tuple[Bound, ...] = ()) -> Problem:
    """The problem whose code is given here and whose facts are in the `problem.toml` beside
    `module_file`; the folder's name is its id. Every stage must have an entry there and every
    entry a stage; a known-wrong stage needs a counterexample. Errors name the file and rule.
    Without `shrinks` and `mutations`, `stress` and `hunt` edit the judge text token by token.
    """
    folder = Path(module_file).resolve().parent
    settings = read_problem_settings(folder / "problem.toml")
    names = [stage.name for stage in stages]
    parts = [f"{what}: {', '.join(odd)}" for what, odd in (
        ("stages without an entry", [n for n in names if n not in settings.stages]),
        ("entries without a stage", [n for n in settings.stages if n not in names])) if odd]
    if parts:
        raise ConfigError(folder / "problem.toml", None, "; ".join(parts), rule="stages")
    for rule, listed, known, what in (("reference", settings.reference, names, "stage"), (
            "nightly", settings.nightly, [r.name for r in recipes], "recipe")):
        if unknown := [n for n in listed if n not in known]:
            raise ConfigError(folder / "problem.toml", None, f"{rule} names no {what}: "
                              f"{', '.join(unknown)}", rule=rule)
    # (a stage's settings are named as the Stage fields they set: role, timeout_s, known_wrong)
    merged = tuple(replace(stage, **asdict(settings.stages[stage.name])) for stage in stages)
    no_example = [s.name for s in merged if s.role == "known-wrong" and s.counterexample is None]
    if no_example:
        raise ConfigError(folder / "problem.toml", None, f"known-wrong stages without a "
                          f"counterexample in the code: {', '.join(no_example)}",
                          rule="known-wrong")
    ladder = None
    if growth is not None or settings.growth_sizes:
        if growth is None or not settings.growth_sizes:
            raise ConfigError(folder / "problem.toml", None, "a growth ladder needs both "
                              "[growth] sizes and the problem's growth function", rule="growth")
        ladder = Growth(settings.growth_sizes, settings.growth_description, growth)
    return Problem(
        id=folder.name, title=settings.title, source=settings.source, folder=folder,
        time_limit_s=settings.time_limit_s, memory_mb=settings.memory_mb, parse=parse,
        render=render, format_answer=format_answer, validate_answer=validate_answer,
        size=size, size_values=size_values, size_columns=settings.size_columns,
        size_measure=settings.size_measure, stages=merged, recipes=recipes,
        reference=settings.reference, input_mb=settings.input_mb, nightly=settings.nightly,
        growth=ladder, solutions=settings.solutions, shrinks=tuple(shrinks),
        mutations=tuple(mutations), checker=settings.checker, bounds=tuple(bounds))
