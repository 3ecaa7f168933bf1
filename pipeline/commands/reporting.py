"""`pipeline query`, `compare` and `strength`: their options, what they ask for printed as asked,
and the exit status it earns (`compare` exits 1 on a new failure or a flagged slowdown)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from pipeline.commands.common import (
    fail,
    find_problem,
    need_data,
    report_runs,
    say,
    settle,
)
from pipeline.commands.options import EveryProblemOption, RunsOption, complete_problem, within
from pipeline.errors import UnknownName, UserError
from pipeline.untrusted import shown
from pipeline.verdicts import SLOWDOWN_MIN_MS, SLOWDOWN_RATIO


def query_command(
    ctx: typer.Context,
    sql: Annotated[str, typer.Argument(
        metavar="SQL", help="Polars SQL over the tables cases, rejects, results, runs, "
        "findings, expectations, strength, package_bugs.")],
    fmt: Annotated[str, typer.Option("--format", "-f", metavar="FORMAT",
                                     help="table, csv, json (one object per line) or "
                                     "parquet.")] = "table",
    out: Annotated[Path | None, typer.Option(
        "--out", metavar="FILE", help="Write to FILE (default: standard output).")] = None,
) -> None:
    """Run Polars SQL over the tables (streamed: any result size fits).

    When the data folder holds no tables (or does not exist), the answer comes with a note on
    stderr naming the folder.
    """
    import polars as pl

    from pipeline.report.query import FORMATS, plan, query_error, show_table, write
    from pipeline.tables.files import table_files
    from pipeline.tables.schemas import TABLES

    if fmt not in FORMATS:
        fail(f"unknown format {fmt!r}: use {', '.join(FORMATS)}")
    need_data(ctx.obj.data_dir)
    # any answer from no tables at all (a count of 0, no rows) is from nothing: said
    if not any(table_files(ctx.obj.data_dir, table) for table in TABLES):
        say(f"note: the data folder {Path(ctx.obj.data_dir).resolve()} holds no tables yet "
            "(pipeline ingest and pipeline run fill them; --data-dir DIR names another "
            "folder)", err=True)
    try:
        lazy = plan(ctx.obj.data_dir, sql)
        if fmt == "table" and out is None:
            sys.stdout.write(shown(show_table(lazy)))  # for a reader: shown as `say` shows
        elif fmt == "table" and out is not None:
            from pipeline.fsutil import atomic_write_text

            atomic_write_text(out, show_table(lazy))
        else:
            write(lazy, fmt, out)  # type: ignore[arg-type]
    except (pl.exceptions.PolarsError, UserError) as error:
        fail("query failed: " + "\n".join(query_error(sql, error).lines(sql)), code=1)


def compare_command(
    ctx: typer.Context,
    base: Annotated[str | None, typer.Argument(
        metavar="BASE", help="Baseline run (default: the newest earlier comparable run of "
        "NEW's problem).")] = None,
    new: Annotated[str | None, typer.Argument(
        metavar="NEW", help="Run to judge (default: the newest finished run of the "
        "problem).")] = None,
    problem_id: Annotated[str | None, typer.Option(
        "--problem", "-p", metavar="PROBLEM", autocompletion=complete_problem,
        help="Only this problem (default: every problem with two finished runs).")] = None,
    ratio: Annotated[float, typer.Option(
        "--ratio", metavar="X", callback=within(1),
        help="A case is slower when NEW/BASE exceeds this ...")] = SLOWDOWN_RATIO,
    min_diff_ms: Annotated[float, typer.Option(
        "--min-diff-ms", metavar="MS", callback=within(0), help="... and NEW - BASE exceeds "
        "this many ms (the measured noise floor of a process start on a shared 2-core "
        "machine).")] = SLOWDOWN_MIN_MS,
    solver: Annotated[str | None, typer.Option(
        "--solver", "-s", metavar="A", help="With --against: compare program A with program B "
        "on the cases of one run (the one run given, else the newest finished run of "
        "--problem, else the newest finished run) (default: compare two runs).")] = None,
    against: Annotated[str | None, typer.Option(
        "--against", metavar="B", help="The program --solver is compared with (default: "
        "none; --solver needs it).")] = None,
) -> None:
    """Compare two runs: verdict transitions, changed answers, slowdowns.

    A slowdown is flagged when the solver is judged on speed and both runs ran on the same
    host, else noted. Exits 1 on a new WA/RE/TLE/MLE/OLE of a trusted solver or a flagged
    slowdown. With no runs given: per problem, its newest finished run against the newest
    earlier run over a comparable set of cases (the same group, a case count within 10 %,
    every solver of NEW), saying which it picked, why, and which it passed over.

    With --solver A --against B: A and B side by side on the cases of one run (verdicts,
    differing answers, A's time over B's).
    """
    from pipeline.report.compare import compare_runs, format_comparison, pairs_to_compare

    data_dir = ctx.obj.data_dir
    need_data(data_dir)
    if problem_id:
        find_problem(problem_id, data_dir)
    if solver or against:  # `compare [RUN] --solver A --against B`
        from pipeline.report.compare import compare_solvers, format_side_by_side
        from pipeline.tables.results import finished_runs

        if not (solver and against):
            fail("--solver A and --against B go together: name both programs")
        if new:
            fail("--solver A --against B compares two programs of one run: give one RUN, not "
                 "two")
        settle(data_dir)
        if base is None:
            runs = finished_runs(data_dir, problem_id)["run_id"]
            if runs.is_empty():
                fail(f"no finished runs{' of ' + problem_id if problem_id else ''} in "
                     f"{Path(data_dir).resolve()}: run 'pipeline run' first")
            base = runs[0]
        try:
            say(format_side_by_side(compare_solvers(data_dir, base, solver, against, ratio,
                                                    min_diff_ms)))
        except UnknownName as error:
            fail(str(error))
        return
    try:
        pairs = pairs_to_compare(data_dir, base, new, problem_id)
    except (UnknownName, UserError) as error:
        fail(str(error))
    if all(pair.base is None for pair in pairs):
        fail("; ".join(pair.why + "".join(f"; passed over {r}" for r in pair.skipped)
                       for pair in pairs))
    failed = False
    for index, pair in enumerate(pairs):
        if pair.base is None:
            say(("\n" if index else "") + f"compare {pair.problem}: {pair.why}"
                + "".join(f"\n  passed over {reason}" for reason in pair.skipped))
            continue
        try:
            comparison = compare_runs(data_dir, pair.base, pair.new, ratio, min_diff_ms)
        except (UnknownName, UserError) as error:
            fail(str(error))
        say(("\n" if index else "") + format_comparison(comparison, choice=pair))
        failed = failed or comparison.failed
    if failed:
        raise typer.Exit(1)


def strength_command(
    ctx: typer.Context,
    problem_id: EveryProblemOption = None,
    run_ids: RunsOption = None,
    fmt: Annotated[str, typer.Option("--format", "-f", metavar="FORMAT",
                                     help="text, json (one object per run) or csv (one row "
                                     "per case).")] = "text",
) -> None:
    """How strong the tests are: which case kills which wrong program (known-wrong stages,
    submissions expected to fail), which wrong programs survive every case, and the smallest
    set of cases that still kills every killed one (exact, or greedy with its bound), with the
    CPU time it saves per run; and which of the input's bounds the cases reach (constraint
    coverage). Stored in the `strength` table."""
    from dataclasses import asdict

    from pipeline.report import strength
    from pipeline.tables.results import write_strength

    if fmt not in ("text", "json", "csv"):
        fail(f"unknown format {fmt!r}: use text, json or csv")
    data_dir = ctx.obj.data_dir
    runs = report_runs(data_dir, run_ids, problem_id)
    if not runs:
        return
    strengths = strength.strength_of_runs(data_dir, runs)
    for found in strengths:  # one file per run, written atomically
        write_strength(data_dir, found.run_id, strength.strength_rows(found))
    if fmt == "csv":  # (csv prints no coverage)
        sys.stdout.write(strength.as_csv(strengths))
        return
    covered, why_none = strength.coverage_of_problems(data_dir, [s.problem for s in strengths])
    if fmt == "json":
        sys.stdout.write(strength.as_json(strengths, {p: [asdict(r) for r in rows]
                                                      for p, rows in covered.items()}))
    else:
        say("\n\n".join(strength.format_strength(s) + "\n" + strength.format_coverage(
            s.problem, covered[s.problem], why_none.get(s.problem, strength.NO_BOUNDS))
                          for s in strengths))
