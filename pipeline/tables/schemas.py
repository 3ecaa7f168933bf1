"""The schemas of the tables. All files of a table share the one declared here, which is what
makes a glob read work; `cases` adds the size columns every registered problem declares.
"""

from __future__ import annotations

from collections.abc import Iterable

import polars as pl

from pipeline.tables.layout import TABLES  # noqa: F401  (the tables, in one place)

CASES_BASE: dict[str, pl.DataType] = {
    "problem": pl.String(),
    "case_id": pl.String(),
    "source": pl.String(),
    "sources": pl.List(pl.String()),
    "group": pl.String(),
    "groups": pl.List(pl.String()),
    "input": pl.String(),
    "expected": pl.String(),
    "expected_source": pl.String(),
    "size": pl.Int64(),
    "input_bytes": pl.Int64(),
    "ingested_at": pl.Datetime("us", "UTC"),
    # which of `sources` the problem's package gave at its last ingest: an ingest of the
    # package again drops the rest of its old ones (`pipeline.corpus.packagecases`)
    "package_sources": pl.List(pl.String()),
}

REJECTS: dict[str, pl.DataType] = {
    "problem": pl.String(),
    "source": pl.String(),
    "line": pl.Int64(),
    "column": pl.Int64(),
    "rule": pl.String(),
    "message": pl.String(),
    "ingested_at": pl.Datetime("us", "UTC"),
}

RESULTS: dict[str, pl.DataType] = {
    "run_id": pl.String(),
    "problem": pl.String(),
    "case_id": pl.String(),
    "solver": pl.String(),
    "repeat": pl.Int64(),
    "verdict": pl.String(),
    "answer": pl.String(),
    "score": pl.Float64(),
    "message": pl.String(),
    "wall_ms": pl.Float64(),
    "cpu_ms": pl.Float64(),
    "programs_cpu_ms": pl.Float64(),  # every program the run took: all passes, the judges
    "elapsed_ms": pl.Float64(),  # the wall time over them all, first start to last end
    "peak_rss_kb": pl.Int64(),
    "exit_code": pl.Int64(),
    "error": pl.String(),
    "expected_source": pl.String(),
    "size": pl.Int64(),
    "host": pl.String(),
    "finished_at": pl.Datetime("us", "UTC"),
}

RUNS: dict[str, pl.DataType] = {
    "run_id": pl.String(),
    "started_at": pl.Datetime("us", "UTC"),
    "finished_at": pl.Datetime("us", "UTC"),
    "status": pl.String(),
    "problem": pl.String(),
    "solvers": pl.List(pl.String()),
    "solver_identities": pl.List(pl.String()),
    "git_rev": pl.String(),
    "host": pl.String(),
    "pid": pl.Int64(),
    "pid_started": pl.Int64(),
    "cpu_model": pl.String(),
    "jobs": pl.Int64(),
    "timeout_s": pl.Float64(),
    "repeat": pl.Int64(),
    "cases": pl.Int64(),
    "group": pl.String(),
    "command": pl.String(),
    "fail_fast": pl.Boolean(),  # a solver's cases after its first failure were not run
    # the registered package content the run judged (a digest of every file's digest by
    # path); null for a built-in problem
    "package_digest": pl.String(),
}


# One row per case `pipeline stress` or `pipeline hunt` kept (one file per row, written when the
# case is kept). `kind` is `stress` (a failing case, shrunk) or `hunt` (a slow input). The case
# itself is in `cases` (`case_id`), in group `found` or `hunt`, from the file `source`.
FINDINGS: dict[str, pl.DataType] = {
    "finding_id": pl.String(),
    "kind": pl.String(),
    "problem": pl.String(),
    "solver": pl.String(),
    "reference": pl.String(),          # the solver whose answer is the expected one
    "case_id": pl.String(),
    "source": pl.String(),
    "verdict": pl.String(),            # S's verdict on the kept case
    "answer": pl.String(),             # S's answer on it
    "expected": pl.String(),           # the reference's answer on it
    "error": pl.String(),              # S's error message, if any
    "original_verdict": pl.String(),   # the same on the case as generated
    "original_answer": pl.String(),
    "original_expected": pl.String(),
    "original_size": pl.Int64(),       # size measure of the case as generated (hunt: the start)
    "shrunk_size": pl.Int64(),         # stress: size measure of the kept (shrunk) case
    "hunt_size": pl.Int64(),           # hunt: size measure of the kept (slow) case
    "original_bytes": pl.Int64(),
    "input_bytes": pl.Int64(),
    "recipe": pl.String(),
    "seed": pl.Int64(),
    "case_index": pl.Int64(),          # index of the case in the recipe's seeded sequence
    "cases_tried": pl.Int64(),         # cases judged before this one was found
    "time_to_find_s": pl.Float64(),    # from the session's start (earlier shrinks included)
    "time_to_shrink_s": pl.Float64(),
    "shrink_steps": pl.Int64(),
    "shrink_candidates": pl.Int64(),
    "locally_minimal": pl.Boolean(),   # no single shrink step keeps the failure
    "shrink_stopped": pl.String(),     # why shrinking stopped early (deadline, interrupted)
    "solver_ms": pl.Float64(),         # S's median time on the kept case (CPU where measured)
    "baseline_ms": pl.Float64(),       # hunt: S's time on the slowest random case of the size
    "found_at": pl.Datetime("us", "UTC"),
    "command": pl.String(),
    "host": pl.String(),
    "git_rev": pl.String(),
}


def cases_schema(size_columns: Iterable[str] = ()) -> dict[str, pl.DataType]:
    """The cases schema: the common columns plus the problems' size columns."""
    return {**CASES_BASE, **{name: pl.Int64() for name in size_columns}}


def schema_of(table: str, size_columns: Iterable[str] = ()) -> dict[str, pl.DataType]:
    if table == "cases":
        return cases_schema(size_columns)
    try:
        return {"rejects": REJECTS, "results": RESULTS, "runs": RUNS,
                "findings": FINDINGS, "expectations": EXPECTATIONS,
                "strength": STRENGTH, "package_bugs": PACKAGE_BUGS}[table]
    except KeyError:
        raise ValueError(f"unknown table {table!r}; tables: {', '.join(TABLES)}") from None


# The cases one run judges, in its order, with the identity of the expected output each had
# (`tables/runs/cases/<run_id>.parquet`, written once before its first result): what
# `--resume` finishes. Part of the `runs` table's folder, not a table of its own.
RUN_CASES: dict[str, pl.DataType] = {
    "case_id": pl.String(),
    "answer_id": pl.String(),
}


# One row per submission of a problem package per run: the submission held against what its
# folder or tag expects (one file per run, `tables/expectations/<run_id>.parquet`).
EXPECTATIONS: dict[str, pl.DataType] = {
    "run_id": pl.String(),
    "problem": pl.String(),
    "submission": pl.String(),
    "expected": pl.String(),           # what its folder, tag or submissions.yaml expects
    "got": pl.String(),                # the overall verdict (and score) it got
    "status": pl.String(),             # agree, disagree, judge-error, skipped or partial
    "sensitive": pl.String(),          # "sensitive to time limit: ..." when it is
    "with_extra_time": pl.Boolean(),   # legacy: right only with the safety margin's extra time
    "disagreements": pl.String(),      # each rule broken and how
    "cases": pl.List(pl.String()),     # the package's cases that show it
    "time_limit_s": pl.Float64(),
    "time_limit_how": pl.String(),
    "checked_at": pl.Datetime("us", "UTC"),
    # the package's test cases the run judged, and all it holds (more when some could not be
    # judged: the status is then `partial`, never `agree`); null in rows stored before
    "cases_judged": pl.Int64(),
    "cases_held": pl.Int64(),
}


# One row per bug of a problem package a run found (`packages.bugs`: an accepted submission
# failing a test, a time_limit_exceeded one within the limit, an empty .ans, an input
# validator accepting everything, ...), one file per run, `tables/package_bugs/<run_id>.parquet`.
PACKAGE_BUGS: dict[str, pl.DataType] = {
    "run_id": pl.String(),
    "problem": pl.String(),
    "kind": pl.String(),               # tle-within-limit, accepted-fails, wrong-passes, ...
    "subject": pl.String(),            # the submission, test case file or validators it is in
    "message": pl.String(),            # one line saying it
    "found_at": pl.Datetime("us", "UTC"),
}


# One row per case per run that `pipeline strength` measured (one file per run,
# `tables/strength/<run_id>.parquet`): the wrong programs the case kills, those only it kills,
# whether it is in the smallest set that kills every killed wrong program.
STRENGTH: dict[str, pl.DataType] = {
    "run_id": pl.String(),
    "problem": pl.String(),
    "case_id": pl.String(),
    "source": pl.String(),
    "kills": pl.List(pl.String()),
    "only_kills": pl.List(pl.String()),
    "in_smallest_set": pl.Boolean(),
    "set_method": pl.String(),         # exact, or greedy with its bound
    "cpu_ms": pl.Float64(),            # every solver's CPU time on the case, added up
    "survivors": pl.List(pl.String()),  # the run's wrong programs no case kills
    "measured_at": pl.Datetime("us", "UTC"),
}
