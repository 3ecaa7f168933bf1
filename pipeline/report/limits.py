"""A problem's time limit and its stages' roles, as the reports need them: None for a problem no
longer registered (reports read runs of those too).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pipeline.errors import UnknownName

if TYPE_CHECKING:
    from pipeline.problems import Problem


def registered(problem_id: str) -> Problem | None:
    """The problem, or None when it is no longer registered."""
    from pipeline.problems import get_problem

    try:
        return get_problem(problem_id)
    except UnknownName:
        return None


def time_limit_s(problem_id: str) -> float | None:
    """The problem's time limit in seconds (from its `problem.toml` or package)."""
    problem = registered(problem_id)
    return None if problem is None else float(problem.time_limit_s)


def known_wrong(problem_id: str, solver: str) -> str | None:
    """What is wrong with a stage registered as known to be wrong, or with a package's
    submission expected to fail (`expected to be wrong_answer`); None for any other solver."""
    problem = registered(problem_id)
    return None if problem is None else problem.known_wrong(solver)


def must_fail(problem_id: str, solver: str) -> str | None:
    """What is wrong with a solver required to fail somewhere (`known_wrong`); None for one
    also permitted to pass (`mixed/*` with `permitted: [AC, WA]`: passing is no flaw)."""
    why = known_wrong(problem_id, solver)
    if why is None:
        return None
    from pipeline.problems import get_problem

    return None if get_problem(problem_id).may_pass(solver) else why


def judged_on_speed(problem_id: str, solver: str) -> bool:
    """Whether a slowdown of `solver` is a regression: `fast` stages and external programs
    are; oracles, references and transcribed methods are there to be right, not fast."""
    problem = registered(problem_id)
    if problem is None:
        return True
    try:
        return problem.stage(solver).judged_on_speed
    except UnknownName:
        return True
