"""What every report reads: which runs to look at, their results, the cases, the limits.

- `finished_runs` / `latest_runs` / `latest_run_per_problem` / `previous_run` pick runs from the
  `runs` table (newest first by `started_at`, then `run_id`);
- `resolve_runs` turns the `--run`/`--problem` options of a command into run ids;
- `collapsed_results` reads the results of some runs with the repeats of each (run, case,
  solver) folded into one row: the worst verdict, that verdict's answer, and the median wall
  and CPU times;
- `load_cases` reads the cases those results ran on (input, expected answer, source);
- `time_limit_s` and `known_wrong` answer per-problem questions without failing on a problem
  that is no longer registered.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import polars as pl

from pipeline import store
from pipeline.errors import UnknownName
from pipeline.run import tables

# Verdicts that mean "this solver failed this case" and those that carry a graded answer.
FAILING = ("WA", "RE", "TLE", "MLE", "OLE")
ANSWERED = ("AC", "WA", "NOEXP")
# Worst first: the verdict a case gets when its repeats disagree.
SEVERITY = {"RE": 0, "TLE": 1, "MLE": 2, "OLE": 3, "WA": 4, "NOEXP": 5, "AC": 6, "SKIP": 7}

RUN_KEY = ["run_id", "problem", "case_id", "solver"]


def finished_runs(data_dir: Path, problem: str | None = None) -> pl.DataFrame:
    """Rows of the finished runs (of `problem`, if given), newest first."""
    runs = tables.read_runs(data_dir).filter(pl.col("status") == "finished")
    if problem is not None:
        runs = runs.filter(pl.col("problem") == problem)
    return runs.sort(["started_at", "run_id"], descending=True, nulls_last=True)


def latest_runs(data_dir: Path, problem: str, n: int) -> list[str]:
    """The ids of the `n` newest finished runs of `problem`, newest first."""
    return finished_runs(data_dir, problem)["run_id"].head(n).to_list()


def latest_run_per_problem(data_dir: Path, problem: str | None = None) -> list[str]:
    """The newest finished run of each problem (or of `problem` only), ordered by problem."""
    runs = finished_runs(data_dir, problem)
    newest = runs.group_by("problem", maintain_order=True).first().sort("problem")
    return newest["run_id"].to_list()


def run_rows(data_dir: Path, run_ids: Iterable[str] | None = None) -> dict[str, dict]:
    """The `runs` row of each run id (all runs when `run_ids` is None)."""
    runs = tables.read_runs(data_dir)
    if run_ids is not None:
        runs = runs.filter(pl.col("run_id").is_in(list(run_ids)))
    return {row["run_id"]: row for row in runs.iter_rows(named=True)}


def previous_run(data_dir: Path, run_id: str) -> str | None:
    """The newest finished run of the same problem that started before `run_id`."""
    row = run_rows(data_dir, [run_id]).get(run_id)
    if row is None:
        return None
    here = _start_key(row)
    for other in finished_runs(data_dir, row["problem"]).iter_rows(named=True):
        if other["run_id"] != run_id and _start_key(other) < here:
            return other["run_id"]
    return None


def next_run(data_dir: Path, run_id: str) -> str | None:
    """The newest finished run of the same problem that started after `run_id`."""
    row = run_rows(data_dir, [run_id]).get(run_id)
    if row is None:
        return None
    newest = finished_runs(data_dir, row["problem"]).head(1).to_dicts()
    if newest and _start_key(newest[0]) > _start_key(row):
        return newest[0]["run_id"]
    return None


def _start_key(row: dict) -> tuple[str, str]:
    started = row.get("started_at")
    stamp = started.isoformat(timespec="microseconds") if started is not None else ""
    return (stamp, row["run_id"])


def resolve_runs(data_dir: Path, run_ids: Sequence[str] | None = None,
                 problem: str | None = None) -> list[str]:
    """The runs a command looks at: the given ones (checked to exist), else the latest
    finished run of each problem (or of `problem`)."""
    if not run_ids:
        return latest_run_per_problem(data_dir, problem)
    known = run_rows(data_dir, run_ids)
    missing = [r for r in run_ids if r not in known and not tables.stored_chunks(data_dir, r)]
    if missing:
        raise UnknownName(f"no run {', '.join(repr(m) for m in missing)} in "
                          f"{store.table_dir(data_dir, 'runs')}")
    return list(dict.fromkeys(run_ids))


def raw_results(data_dir: Path, run_ids: Iterable[str]) -> pl.DataFrame:
    """Every stored result row of the runs (one row per repeat)."""
    frames = [tables.read_run_results(data_dir, run_id) for run_id in dict.fromkeys(run_ids)]
    frames = [f for f in frames if f.height]
    return pl.concat(frames) if frames else store.empty(tables.RESULTS)


def collapse_repeats(results: pl.DataFrame, timing: str = "median") -> pl.DataFrame:
    """One row per (run, problem, case, solver): worst verdict over the repeats, the answer that
    goes with it, median (or, with timing="min", fastest) wall/CPU ms, and the number of
    repeats."""
    severity = pl.col("verdict").replace_strict(SEVERITY, default=len(SEVERITY),
                                                return_dtype=pl.Int64())
    order = [severity, pl.col("repeat")]
    return results.group_by(RUN_KEY, maintain_order=True).agg(
        pl.col("verdict").sort_by(order).first(),
        pl.col("answer").sort_by(order).drop_nulls().first(),
        pl.col("error").sort_by(order).first(),
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
    results = raw_results(data_dir, run_ids)
    if problem is not None:
        results = results.filter(pl.col("problem") == problem)
    if solver is not None:
        results = results.filter(pl.col("solver") == solver)
    return collapse_repeats(results, timing)


CASE_COLUMNS = ["problem", "case_id", "source", "input", "expected", "expected_source"]


def load_cases(data_dir: Path, problems: Iterable[str]) -> pl.DataFrame:
    """Input, expected answer and source of every stored case of the problems."""
    schema = store.cases_schema()
    frames = [store.read_file(store.table_dir(data_dir, "cases") / f"{p}.parquet", schema)
              .select(CASE_COLUMNS) for p in dict.fromkeys(problems)]
    frames = [f for f in frames if f.height]
    if not frames:
        return pl.DataFrame(schema={name: schema[name] for name in CASE_COLUMNS})
    return pl.concat(frames).unique(["problem", "case_id"], keep="first", maintain_order=True)


def time_limit_s(problem_id: str) -> float | None:
    """The problem's time limit: `configs/problems.toml`, else the problem's own value."""
    from pipeline.run.solvers import load_problem_config

    limit = load_problem_config(problem_id).get("time_limit_s")
    if limit is not None:
        return float(limit)
    try:
        from pipeline.problems import get_problem

        return float(get_problem(problem_id).time_limit_s)
    except UnknownName:
        return None


def known_wrong(problem_id: str, solver: str) -> str | None:
    """What is wrong with a stage registered as known to be wrong; None for any other solver
    (trusted stages, external programs, problems no longer registered)."""
    from pipeline.problems import get_problem

    try:
        return get_problem(problem_id).stage(solver).known_wrong
    except UnknownName:
        return None


def answers_agree(problem_id: str, a: str, b: str) -> bool:
    """Whether two outputs are the same answer for the problem (token by token)."""
    if a == b:
        return True
    from pipeline.problems import get_problem

    try:
        return get_problem(problem_id).compare(a, b) is None
    except UnknownName:
        return a.split() == b.split()


def difference(problem_id: str, expected: str, got: str) -> str | None:
    """The problem's sentence naming the first difference between two outputs."""
    from pipeline.problems import get_problem
    from pipeline.problems.tokens import check_tokens_equal

    try:
        return get_problem(problem_id).compare(expected, got)
    except UnknownName:
        return check_tokens_equal(expected.split(), got.split())
