"""The `pipeline` command: thin Typer commands over the library's layers.

Each command parses its options, calls one function of `pipeline.problems`, `pipeline.corpus`,
`pipeline.run` or `pipeline.report`, and prints what it returns. Heavy modules (polars,
pyarrow) are imported inside the commands that need them, so `pipeline solve` starts fast.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Optional

import typer

from pipeline.errors import BeyondLimits, InputError, UnknownName

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="gamebench: check solutions of combinatorial-game problems over test corpora.",
    pretty_exceptions_enable=False,
)


@dataclass(frozen=True)
class Settings:
    data_dir: Path


@app.callback()
def _options(
    ctx: typer.Context,
    data_dir: Annotated[Path, typer.Option(
        "--data-dir", envvar="PIPELINE_DATA_DIR",
        help="Where raw corpora and tables live.")] = Path("data"),
) -> None:
    ctx.obj = Settings(data_dir=data_dir)


def _fail(message: str, code: int = 2) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def _problem(problem_id: str):
    from pipeline.problems import get_problem

    try:
        return get_problem(problem_id)
    except UnknownName as error:
        _fail(str(error))


@app.command("problems")
def problems_command() -> None:
    """List the problems with their stages and each stage's limits."""
    from pipeline.problems import all_problems

    for problem in all_problems():
        typer.echo(f"{problem.id}  {problem.title}  (time limit {problem.time_limit_s:g} s; "
                   f"size = {problem.size_measure})")
        for stage in problem.stages:
            flag = "  [known wrong]" if stage.known_wrong else ""
            typer.echo(f"  {stage.name:<12} {stage.complexity:<22} limits: {stage.limits}{flag}")
        typer.echo(f"  recipes: {', '.join(r.name for r in problem.recipes)}")


@app.command("solve")
def solve_command(
    problem_id: Annotated[str, typer.Argument(metavar="PROBLEM")],
    inputs: Annotated[Optional[list[Path]], typer.Argument(metavar="[INPUT]...")] = None,
    solver: Annotated[str, typer.Option("--solver", "-s", help="Stage to solve with.")] = "fast",
    out_dir: Annotated[Optional[Path], typer.Option(
        "--out-dir", "-o", help="Write NAME.out for each NAME.in here.")] = None,
) -> None:
    """Solve judge inputs: stdin to stdout, or each INPUT to OUT_DIR/NAME.out."""
    from pipeline.run.solve import solve_files, solve_text

    problem = _problem(problem_id)
    try:
        problem.stage(solver)
    except UnknownName as error:
        _fail(str(error))
    if not inputs:
        try:
            sys.stdout.write(solve_text(problem, solver, sys.stdin.read()))
        except InputError as error:
            _fail(f"<stdin>:{error}", code=1)
        except BeyondLimits as error:
            _fail(str(error), code=1)
        return
    if out_dir is None:
        if len(inputs) != 1:
            _fail("several inputs need --out-dir")
        try:
            sys.stdout.write(solve_text(problem, solver, inputs[0].read_text(encoding="utf-8")))
        except InputError as error:
            _fail(f"{inputs[0]}:{error}", code=1)
        except (BeyondLimits, OSError) as error:
            _fail(str(error), code=1)
        return
    outcomes = solve_files(problem, solver, inputs, out_dir)
    failed = [o for o in outcomes if o.error]
    for outcome in failed:
        typer.echo(f"error: {outcome.error}", err=True)
    typer.echo(f"{len(outcomes) - len(failed)} solved, {len(failed)} failed -> {out_dir}")
    if failed:
        raise typer.Exit(1)


@app.command("generate")
def generate_command(
    ctx: typer.Context,
    problem_id: Annotated[str, typer.Argument(metavar="PROBLEM")],
    recipe: Annotated[str, typer.Option("--recipe", "-r", help="Recipe name.")],
    count: Annotated[int, typer.Option("--count", "-n", min=1)] = 10,
    seed: Annotated[int, typer.Option("--seed")] = 1,
    out: Annotated[Optional[Path], typer.Option(
        "--out", help="Folder (default DATA/raw/PROBLEM/generated/RECIPE).")] = None,
    expected_from: Annotated[str, typer.Option(
        "--expected-from", help="Stage that writes NAME.out (when within its limits).")] = "brute",
) -> None:
    """Write seeded cases of a recipe as NNN.in (+ NNN.out) with a manifest."""
    from pipeline.corpus.generate import default_out_dir, generate

    problem = _problem(problem_id)
    target = out or default_out_dir(ctx.obj.data_dir, problem.id, recipe)
    try:
        manifest = generate(problem, recipe, count, seed, target, expected_from)
    except UnknownName as error:
        _fail(str(error))
    with_expected = sum(case.expected for case in manifest.cases)
    typer.echo(f"wrote {count} cases of {problem.id}/{recipe} (seed {seed}) to {target}; "
               f"{with_expected} with expected output from {expected_from}")


@app.command("ingest")
def ingest_command(
    ctx: typer.Context,
    paths: Annotated[Optional[list[Path]], typer.Argument(
        metavar="[PATH]...", help="Roots to ingest (default DATA/raw).")] = None,
    problem_id: Annotated[Optional[str], typer.Option(
        "--problem", "-p", help="Treat every file as this problem's.")] = None,
    allow_rejects: Annotated[bool, typer.Option(
        "--allow-rejects", help="Exit 0 even when some files were rejected.")] = False,
) -> None:
    """Find, validate and store every test case under PATH in the cases table."""
    from pipeline.corpus.ingest import format_summary, ingest
    from pipeline.progress import progress_bar

    roots = paths or [ctx.obj.data_dir / "raw"]
    for root in roots:
        if not root.exists():
            _fail(f"{root} does not exist")
    if problem_id:
        _problem(problem_id)
    summary = ingest(ctx.obj.data_dir, roots, problem_id, progress_bar("ingest"))
    typer.echo(format_summary(summary))
    if summary.rejected and not allow_rejects:
        raise typer.Exit(1)


@app.command("query")
def query_command(
    ctx: typer.Context,
    sql: Annotated[str, typer.Argument(help="SQL over cases, rejects, results, runs.")],
    fmt: Annotated[str, typer.Option("--format", "-f",
                                     help="table, csv, json or parquet.")] = "table",
    out: Annotated[Optional[Path], typer.Option("--out", help="Write to FILE.")] = None,
) -> None:
    """Run Polars SQL over the tables."""
    import polars as pl

    from pipeline.fsutil import atomic_write, atomic_write_text
    from pipeline.report.query import render, run_query

    if fmt not in ("table", "csv", "json", "parquet"):
        _fail(f"unknown format {fmt!r}: use table, csv, json or parquet")
    try:
        frame = run_query(ctx.obj.data_dir, sql)
    except (pl.exceptions.PolarsError, ValueError) as error:
        _fail(f"query failed: {error}", code=1)
    if fmt == "parquet":
        if out is None:
            _fail("--format parquet needs --out FILE")
        atomic_write(out, lambda tmp: frame.write_parquet(tmp))
        return
    text = render(frame, fmt)  # type: ignore[arg-type]
    if out is None:
        sys.stdout.write(text)
    else:
        atomic_write_text(out, text)


@app.command("run")
def run_command(
    ctx: typer.Context,
    problem_id: Annotated[str, typer.Option("--problem", "-p", help="Problem id.")],
    solver: Annotated[Optional[list[str]], typer.Option(
        "--solver", "-s", help="Built-in stage (repeatable); default: all.")] = None,
    external: Annotated[Optional[list[str]], typer.Option(
        "--external", "-e", help="NAME=COMMAND external program (repeatable).")] = None,
    group: Annotated[Optional[str], typer.Option("--group", help="Only cases of this group.")] = None,
    jobs: Annotated[Optional[int], typer.Option("--jobs", "-j", min=1,
                                                help="Worker processes (default: cores).")] = None,
    timeout: Annotated[Optional[float], typer.Option(
        "--timeout", help="Seconds per case (default: the problem's time limit).")] = None,
    memory: Annotated[Optional[int], typer.Option(
        "--memory", help="Memory limit in MB for external programs.")] = None,
    repeat: Annotated[int, typer.Option("--repeat", min=1, help="Runs per case.")] = 1,
    resume: Annotated[Optional[str], typer.Option("--resume", help="Finish RUN_ID.")] = None,
) -> None:
    """Run solver stages and external programs over the stored cases of a problem."""
    from pipeline.progress import progress_bar
    from pipeline.run.runner import RunRequest, format_summary, run
    from pipeline.run.solvers import BuildError, parse_external

    problem = _problem(problem_id)
    try:
        for name in solver or []:
            problem.stage(name)
        externals = tuple(parse_external(text, problem.id) for text in external or [])
    except (UnknownName, ValueError) as error:
        _fail(str(error))
    request = RunRequest(problem=problem.id, solvers=tuple(solver or ()), externals=externals,
                         group=group, jobs=jobs, timeout_s=timeout, memory_mb=memory,
                         repeat=repeat, resume=resume, command=" ".join(sys.argv))
    try:
        summary = run(ctx.obj.data_dir, request, progress=progress_bar("run"))
    except (BuildError, ValueError) as error:
        _fail(str(error), code=1)
    typer.echo(format_summary(summary))
    if summary.status != "finished":
        raise typer.Exit(130 if summary.status == "interrupted" else 1)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
