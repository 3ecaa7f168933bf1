"""The `pipeline` command: thin Typer commands over the library's layers.

Each command parses its options, calls one function of `pipeline.problems`, `pipeline.corpus`,
`pipeline.run` or `pipeline.report`, and prints what it returns. Heavy modules (polars,
pyarrow) are imported inside the commands that need them, so `pipeline solve` starts fast.
"""

from __future__ import annotations

import io
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Optional

import typer

from pipeline.errors import UnknownName

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
    problems_dir: Annotated[Optional[list[Path]], typer.Option(
        "--problems-dir", help="A folder of extra problems, one folder each (repeatable; "
        "also PIPELINE_PROBLEMS_DIR).")] = None,
) -> None:
    from pipeline.problems import add_problem_dirs

    add_problem_dirs(problems_dir or [])
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


@app.command("solve", add_help_option=False,
             context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def solve_command(ctx: typer.Context) -> None:
    """Solve judge inputs: stdin to stdout, or each INPUT to OUT_DIR/NAME.out
    (`pipeline solve --help` lists the options)."""
    from pipeline.run.solve import main as solve_main

    stdout, stderr = io.StringIO(), io.StringIO()
    code = solve_main(list(ctx.args), sys.stdin, stdout, stderr)
    typer.echo(stdout.getvalue(), nl=False)
    typer.echo(stderr.getvalue(), nl=False, err=True)
    if code:
        raise typer.Exit(code)


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
    from pipeline.corpus.ingest import default_roots, format_summary, ingest
    from pipeline.progress import progress_bar

    roots = paths or default_roots(ctx.obj.data_dir)
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
    from pipeline.run.request import RunRequest, select_solvers
    from pipeline.run.solvers import BuildError, parse_external

    problem = _problem(problem_id)
    try:
        externals = tuple(parse_external(text, problem.id) for text in external or [])
        request = RunRequest(problem=problem.id, solvers=tuple(solver or ()),
                             externals=externals, group=group, jobs=jobs, timeout_s=timeout,
                             memory_mb=memory, repeat=repeat, resume=resume,
                             command=" ".join(sys.argv))
        selection = select_solvers(problem, request) if not resume else None
    except (UnknownName, ValueError) as error:
        _fail(str(error))
    from pipeline.run.executors import start_executor

    # The workers start before Polars is imported: they warm up while the parent loads.
    executor = start_executor(problem, selection, jobs) if selection else None
    try:
        from pipeline.run.runner import format_summary, run

        summary = run(ctx.obj.data_dir, request, executor=executor,
                      progress=progress_bar("run"))
    except (BuildError, ValueError) as error:
        _fail(str(error), code=1)
    finally:
        if executor is not None:
            executor.close()
    typer.echo(format_summary(summary))
    if summary.status != "finished":
        raise typer.Exit(130 if summary.status == "interrupted" else 1)


def _report_runs(data_dir: Path, run_ids: Optional[list[str]],
                 problem_id: Optional[str]) -> list[str]:
    """The runs a report command looks at; says so when there are none."""
    from pipeline.tables.runs import resolve_runs

    if problem_id:
        _problem(problem_id)
    try:
        runs = resolve_runs(data_dir, run_ids, problem_id)
    except UnknownName as error:
        _fail(str(error))
    if not runs:
        typer.echo(f"no finished runs{' of ' + problem_id if problem_id else ''} in {data_dir}: "
                   "run `pipeline run` first")
    return runs


@app.command("slow")
def slow_command(
    ctx: typer.Context,
    problem_id: Annotated[Optional[str], typer.Option(
        "--problem", "-p", help="Only this problem.")] = None,
    solver: Annotated[Optional[str], typer.Option(
        "--solver", "-s", help="Only this solver.")] = None,
    run_ids: Annotated[Optional[list[str]], typer.Option(
        "--run", help="Run id (repeatable); default: the latest finished run of each "
        "problem.")] = None,
    top: Annotated[int, typer.Option("--top", "-n", min=1, help="How many cases.")] = 20,
) -> None:
    """The slowest cases: size, median wall/CPU ms, share of the time limit, verdict, source."""
    from pipeline.report.slow import format_slow, slow_cases

    runs = _report_runs(ctx.obj.data_dir, run_ids, problem_id)
    if runs:
        typer.echo(format_slow(slow_cases(ctx.obj.data_dir, problem_id, solver, runs, top)))


@app.command("mismatches")
def mismatches_command(
    ctx: typer.Context,
    problem_id: Annotated[Optional[str], typer.Option(
        "--problem", "-p", help="Only this problem.")] = None,
    run_ids: Annotated[Optional[list[str]], typer.Option(
        "--run", help="Run id (repeatable); default: the latest finished run of each "
        "problem.")] = None,
) -> None:
    """Cases where a stage's answer differs from the expected one or two stages disagree."""
    from pipeline.report.mismatches import find_mismatches, format_mismatches

    runs = _report_runs(ctx.obj.data_dir, run_ids, problem_id)
    if runs:
        typer.echo(format_mismatches(find_mismatches(ctx.obj.data_dir, problem_id, runs)))


@app.command("compare")
def compare_command(
    ctx: typer.Context,
    base: Annotated[Optional[str], typer.Argument(metavar="BASE", help="Baseline run.")] = None,
    new: Annotated[Optional[str], typer.Argument(
        metavar="NEW", help="Run to judge (default: the newest finished run of BASE's "
        "problem after it).")] = None,
    problem_id: Annotated[Optional[str], typer.Option(
        "--problem", "-p", help="Compare this problem's last two finished runs.")] = None,
    ratio: Annotated[float, typer.Option(
        "--ratio", help="Flag a case slower when NEW/BASE exceeds this ...")] = 1.5,
    min_diff_ms: Annotated[float, typer.Option(
        "--min-diff-ms", help="... and NEW - BASE exceeds this many ms.")] = 5.0,
) -> None:
    """Compare two runs: verdict transitions, changed answers, time regressions.

    Exits 1 on a new WA/RE/TLE/MLE/OLE of a trusted solver or a flagged slowdown. With no runs
    given: the last two finished runs of --problem, or of every problem that has two.
    """
    from pipeline.report.compare import compare_runs, format_comparison, pairs_to_compare

    data_dir = ctx.obj.data_dir
    if problem_id:
        _problem(problem_id)
    try:
        pairs = pairs_to_compare(data_dir, base, new, problem_id)
    except (UnknownName, ValueError) as error:
        _fail(str(error))
    failed = False
    for index, (base_run, new_run) in enumerate(pairs):
        try:
            comparison = compare_runs(data_dir, base_run, new_run, ratio, min_diff_ms)
        except (UnknownName, ValueError) as error:
            _fail(str(error))
        typer.echo(("\n" if index else "") + format_comparison(comparison))
        failed = failed or comparison.failed
    if failed:
        raise typer.Exit(1)


@app.command("report")
def report_command(
    ctx: typer.Context,
    run_ids: Annotated[Optional[list[str]], typer.Option(
        "--run", help="Run id (repeatable); default: the latest finished run of each "
        "problem.")] = None,
    out: Annotated[Optional[Path], typer.Option(
        "--out", help="HTML file (default DATA/reports/report-<timestamp>.html).")] = None,
) -> None:
    """Write one self-contained HTML report (verdicts, comparison, growth, slow, mismatches)."""
    from pipeline.report.html import write_report

    try:
        path = write_report(ctx.obj.data_dir, run_ids, out)
    except (UnknownName, ValueError) as error:
        _fail(str(error))
    typer.echo(f"report: {path}")


@app.command("nightly")
def nightly_command(
    ctx: typer.Context,
    config: Annotated[Optional[Path], typer.Option(
        "--config", help="Corpus recipe (default configs/nightly.toml).")] = None,
    jobs: Annotated[Optional[int], typer.Option("--jobs", "-j", min=1)] = None,
) -> None:
    """The whole job: generate the default corpus if missing, ingest, run everything,
    compare with the previous run, write the report."""
    from pipeline.nightly import DEFAULT_CONFIG, format_outcome, nightly
    from pipeline.progress import progress_bar

    outcome = nightly(ctx.obj.data_dir, config or DEFAULT_CONFIG, jobs,
                      log=lambda line: typer.echo(line), progress=progress_bar("nightly"))
    typer.echo(format_outcome(outcome))
    if outcome.failed:
        raise typer.Exit(1)


def _stress_errors():
    """The errors a stress or hunt session can meet, reported without a traceback: unknown
    names, solvers that cannot be paired, a failed build, a data folder it cannot write or a
    damaged table."""
    from pipeline.config import ConfigError
    from pipeline.run.solvers import BuildError
    from pipeline.stress.hunt import HuntError
    from pipeline.stress.judge import JudgeError
    from pipeline.stress.stress import StressError
    from pipeline.tables.files import DamagedTable

    return (UnknownName, JudgeError, StressError, HuntError, BuildError, ConfigError,
            DamagedTable, ValueError, OSError)


@app.command("stress")
def stress_command(
    ctx: typer.Context,
    problem_id: Annotated[str, typer.Option("--problem", "-p", help="Problem id.")],
    solver: Annotated[str, typer.Option(
        "--solver", "-s", help="The solver to check: a stage, a configured solver or an "
        "--external name.")],
    against: Annotated[Optional[str], typer.Option(
        "--against", help="The reference (default: the problem's reference order).")] = None,
    recipe: Annotated[Optional[list[str]], typer.Option(
        "--recipe", "-r", help="Recipe name or shell pattern (repeatable; default: every "
        "recipe but the max ones).")] = None,
    budget: Annotated[str, typer.Option(
        "--budget", help="The session's time (e.g. 60s, 5m); a shrink under way "
        "finishes.")] = "60s",
    stop_after: Annotated[int, typer.Option(
        "--stop-after", min=1, help="Stop after this many findings.")] = 1,
    seed: Annotated[int, typer.Option("--seed")] = 1,
    jobs: Annotated[Optional[int], typer.Option("--jobs", "-j", min=1,
                                                help="Worker processes (default: cores).")] = None,
    external: Annotated[Optional[list[str]], typer.Option(
        "--external", "-e", help="NAME=COMMAND external program (repeatable).")] = None,
    shrink_budget: Annotated[str, typer.Option(
        "--shrink-budget", help="Time for shrinking each failure.")] = "120s",
) -> None:
    """Generate cases from recipes until SOLVER and the reference disagree (or SOLVER fails),
    shrink each failure, keep it in group `found` and the findings table."""
    from pipeline.run.solvers import parse_external
    from pipeline.stress.durations import parse_duration
    from pipeline.stress.stress import StressRequest, format_summary, stress

    problem = _problem(problem_id)
    try:
        request = StressRequest(
            problem=problem.id, solver=solver, against=against, recipes=tuple(recipe or ()),
            budget_s=parse_duration(budget), stop_after=stop_after, seed=seed, jobs=jobs,
            externals=tuple(parse_external(text, problem.id) for text in external or []),
            shrink_budget_s=parse_duration(shrink_budget), command=" ".join(sys.argv))
        summary = stress(ctx.obj.data_dir, request)
    except _stress_errors() as error:
        _fail(str(error))
    typer.echo(format_summary(summary))
    if summary.status == "interrupted":
        raise typer.Exit(130)
    if summary.failures:
        raise typer.Exit(1)


@app.command("hunt")
def hunt_command(
    ctx: typer.Context,
    problem_id: Annotated[str, typer.Option("--problem", "-p", help="Problem id.")],
    solver: Annotated[str, typer.Option(
        "--solver", "-s", help="The solver to slow down: a stage, a configured solver or an "
        "--external name.")],
    size: Annotated[Optional[int], typer.Option(
        "--size", min=1, help="Size measure of the inputs (default: the growth ladder's "
        "first size).")] = None,
    budget: Annotated[str, typer.Option("--budget", help="Time to search (e.g. 120s).")] = "120s",
    seed: Annotated[int, typer.Option("--seed")] = 1,
    jobs: Annotated[Optional[int], typer.Option("--jobs", "-j", min=1,
                                                help="Worker processes (default: cores).")] = None,
    external: Annotated[Optional[list[str]], typer.Option(
        "--external", "-e", help="NAME=COMMAND external program (repeatable).")] = None,
    repeats: Annotated[int, typer.Option(
        "--repeats", min=1, help="Timings per candidate that may be kept.")] = 3,
) -> None:
    """Search for an input of the given size on which SOLVER is slowest; keep it in group
    `hunt` with its time and the findings table."""
    from pipeline.run.solvers import parse_external
    from pipeline.stress.durations import parse_duration
    from pipeline.stress.hunt import HuntRequest, format_summary, hunt

    problem = _problem(problem_id)
    try:
        request = HuntRequest(
            problem=problem.id, solver=solver, size=size, budget_s=parse_duration(budget),
            seed=seed, jobs=jobs, repeats=repeats,
            externals=tuple(parse_external(text, problem.id) for text in external or []),
            command=" ".join(sys.argv))
        summary = hunt(ctx.obj.data_dir, request)
    except _stress_errors() as error:
        _fail(str(error))
    typer.echo(format_summary(summary))
    if summary.status == "interrupted":
        raise typer.Exit(130)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
