"""The registry of problems: an id maps to the module that defines it.

Adding a problem means writing `pipeline/problems/<id>.py` with a module-level `PROBLEM` and
adding one line to `_MODULES`. Modules are imported on first use, so `pipeline solve` pays only
for the problem it solves.
"""

from __future__ import annotations

import importlib

from pipeline.errors import UnknownName
from pipeline.problems.base import Problem, Recipe, Stage

_MODULES: dict[str, str] = {
    "movcoin2": "pipeline.problems.movcoin2",
    "insq15g": "pipeline.problems.insq15g",
    "arc087e": "pipeline.problems.arc087e",
    "bipartitebattle": "pipeline.problems.bipartitebattle",
    "cf103119g": "pipeline.problems.cf103119g",
}

__all__ = ["Problem", "Recipe", "Stage", "get_problem", "problem_ids", "all_problems"]


def problem_ids() -> list[str]:
    return list(_MODULES)


def get_problem(problem_id: str) -> Problem:
    try:
        module_name = _MODULES[problem_id]
    except KeyError:
        raise UnknownName(f"unknown problem {problem_id!r}; known problems: "
                          f"{', '.join(_MODULES)}") from None
    return importlib.import_module(module_name).PROBLEM


def all_problems() -> list[Problem]:
    return [get_problem(pid) for pid in _MODULES]
