"""The registry of problems: an id maps to the module that defines it.

Adding a problem means writing `pipeline/problems/<id>.py` with a module-level `PROBLEM` and
adding one line to `_MODULES`. Modules are imported on first use, so `pipeline solve` pays only
for the problem it solves.

Problems that live outside the package (the tests' fixture problems, a user's own drafts) are
registered with the environment variable `PIPELINE_EXTRA_PROBLEMS="id=module.path[,id2=mod2]"`:
each entry is merged into the registry (an id may not shadow a built-in problem). It is read on
every lookup, so a process that sets it sees it at once, and the worker processes and
subprocesses a run starts inherit it with the environment; the module must be importable there
(e.g. through `PYTHONPATH`).
"""

from __future__ import annotations

import importlib
import os

from pipeline.errors import UnknownName
from pipeline.problems.base import Problem, Recipe, Stage

_MODULES: dict[str, str] = {
    "movcoin2": "pipeline.problems.movcoin2",
    "insq15g": "pipeline.problems.insq15g",
    "arc087e": "pipeline.problems.arc087e",
    "bipartitebattle": "pipeline.problems.bipartitebattle",
    "cf103119g": "pipeline.problems.cf103119g",
}

EXTRA_PROBLEMS_VARIABLE = "PIPELINE_EXTRA_PROBLEMS"

__all__ = ["Problem", "Recipe", "Stage", "get_problem", "problem_ids", "all_problems"]


def _registry() -> dict[str, str]:
    """`_MODULES` plus the problems named by `PIPELINE_EXTRA_PROBLEMS`."""
    extra = os.environ.get(EXTRA_PROBLEMS_VARIABLE, "").strip()
    if not extra:
        return _MODULES
    modules = dict(_MODULES)
    for entry in extra.split(","):
        problem_id, sep, module_name = (part.strip() for part in entry.partition("="))
        if not entry.strip():
            continue
        if not sep or not problem_id or not module_name:
            raise ValueError(f"{EXTRA_PROBLEMS_VARIABLE}: expected id=module.path, got {entry!r}")
        if problem_id in _MODULES:
            raise ValueError(f"{EXTRA_PROBLEMS_VARIABLE}: {problem_id!r} is a built-in problem")
        modules[problem_id] = module_name
    return modules


def problem_ids() -> list[str]:
    return list(_registry())


def get_problem(problem_id: str) -> Problem:
    modules = _registry()
    try:
        module_name = modules[problem_id]
    except KeyError:
        raise UnknownName(f"unknown problem {problem_id!r}; known problems: "
                          f"{', '.join(modules)}") from None
    return importlib.import_module(module_name).PROBLEM


def all_problems() -> list[Problem]:
    return [get_problem(pid) for pid in _registry()]
