"""What every report reads: the results of some runs (each repeat folded into one row), the cases
they ran on, answers compared by the problem's own rule, and a problem's time limit and its
stages' roles, also for a problem no longer registered (None then: reports read runs of those
too).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import polars as pl

from pipeline.errors import UnknownName
from pipeline.problems import Problem, cases_schema, get_problem
from pipeline.tables.files import empty, problem_file, read_file
from pipeline.tables.results import read_run_results
from pipeline.tables.schemas import RESULTS
from pipeline.verdicts import SEVERITY

RUN_KEY = ["run_id", "problem", "case_id", "solver"]


def registered(problem_id: str) -> Problem | None:
    """The problem, or None when it is no longer registered."""
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
    return None if get_problem(problem_id).may_pass(solver) else why


def judged_on_speed(problem_id: str, solver: str) -> bool:
    """Whether a slowdown of `solver` is a regression: `fast` stages and external programs
    are; oracles, references and transcribed methods are there to be right, not fast."""
    problem = registered(problem_id)
    stage = next((s for s in problem.stages if s.name == solver), None) if problem else None
    return stage is None or stage.judged_on_speed


_RANK = {v.value: rank for rank, v in enumerate(SEVERITY)}
# A result's verdict ranked worst first (`SEVERITY`), a verdict of no rank after them all.
BY_SEVERITY = pl.col("verdict").replace_strict(_RANK, default=len(_RANK), return_dtype=pl.Int64())


def collapse_repeats(results: pl.DataFrame, timing: str = "median") -> pl.DataFrame:
    """One row per (run, problem, case, solver): the worst verdict over the repeats and its
    answer, the median (timing="min": fastest) wall/CPU ms, and the number of repeats."""
    order = [BY_SEVERITY, pl.col("repeat")]
    return results.group_by(RUN_KEY, maintain_order=True).agg(
        pl.col("verdict").sort_by(order).first(),
        pl.col("answer").sort_by(order).drop_nulls().first(),
        pl.col("error").sort_by(order).first(),
        pl.col("score").sort_by(order).first(),
        pl.col("message").sort_by(order).first(),
        pl.col("wall_ms").min() if timing == "min" else pl.col("wall_ms").median(),
        pl.col("cpu_ms").min() if timing == "min" else pl.col("cpu_ms").median(),
        pl.col("peak_rss_kb").max(),
        pl.col("size").first(),
        pl.col("host").first(),
        pl.len().cast(pl.Int64()).alias("repeats"),
    )


def collapsed_results(data_dir: Path, run_ids: Iterable[str], problem: str | None = None,
                      solver: str | None = None, timing: str = "median") -> pl.DataFrame:
    """`collapse_repeats` over the results of `run_ids`, optionally of one problem/solver."""
    frames = [read_run_results(data_dir, run_id) for run_id in dict.fromkeys(run_ids)]
    frames = [f for f in frames if f.height]
    results = pl.concat(frames) if frames else empty(RESULTS)
    if problem is not None:
        results = results.filter(pl.col("problem") == problem)
    if solver is not None:
        results = results.filter(pl.col("solver") == solver)
    return collapse_repeats(results, timing)


CASE_COLUMNS = ["problem", "case_id", "source", "sources", "group", "groups", "input",
                "expected", "expected_source"]


def load_cases(data_dir: Path, problems: Iterable[str]) -> pl.DataFrame:
    """Input, expected answer and source of every stored case of the problems."""
    schema = cases_schema()
    frames = [read_file(problem_file(data_dir, "cases", p), schema, CASE_COLUMNS)
              for p in dict.fromkeys(problems)]
    frames = [f for f in frames if f.height]
    if not frames:
        return pl.DataFrame(schema={name: schema[name] for name in CASE_COLUMNS})
    return pl.concat(frames).unique(["problem", "case_id"], keep="first", maintain_order=True)


def answers_agree(problem_id: str, a: str, b: str) -> bool:
    """Whether two outputs are the same answer for the problem (token by token)."""
    if a == b:
        return True
    problem = registered(problem_id)
    return a.split() == b.split() if problem is None else problem.compare(a, b) is None


def difference(problem_id: str, expected: str, got: str) -> str | None:
    """The problem's sentence naming the first difference between two outputs."""
    from pipeline.problems.tokens import check_tokens_equal

    problem = registered(problem_id)
    if problem is None:
        return check_tokens_equal(expected.split(), got.split())
    return problem.compare(expected, got)
