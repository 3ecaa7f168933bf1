"""The `pipeline` command: thin Typer commands over the library's layers.

Each command parses its options, calls one function of `pipeline.problems`, `pipeline.corpus`,
`pipeline.run` or `pipeline.report`, and prints what it returns. Heavy modules (polars,
pyarrow) are imported inside the commands that need them, so `pipeline solve` starts fast.

Help: every command shows examples (its epilog) and every default; values are shown by their
metavar (`SQL`, `N`, `FILE`) rather than by type (`<str>`, `{sql}`). Shell completion is
Typer's: `pipeline --install-completion` (or `--show-completion` to print the script), with
problem ids completed for `--problem`.
"""

from __future__ import annotations

import io
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Optional

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from pipeline.errors import UnknownName, UserError


class _Argument(TyperArgument):
    """An argument shown by its metavar alone: `SQL`, `[PATH]...`, never `{sql}` or `<str>`."""

    def display_type_rich(self, ctx):
        return None

    def _usage_display_name(self) -> str:
        name = self.display_name_raw if self.required else f"[{self.display_name_raw}]"
        return name + ("..." if self.nargs != 1 else "")


class _Option(TyperOption):
    """An option shown with its metavar (`--top N`), flags with nothing, never `<bool>`."""

    def display_type_rich(self, ctx):
        if self.is_flag or self.count:
            return None
        return self.metavar or (self.name or "value").upper()

    def _get_number_range_help_str(self):
        return None


def _readable(params: list) -> list:
    for param in params:
        if type(param) is TyperArgument:
            param.__class__ = _Argument
        elif type(param) is TyperOption:
            param.__class__ = _Option
    return params


class _Command(TyperCommand):
    def get_params(self, ctx):
        return _readable(super().get_params(ctx))


class _Group(TyperGroup):
    def get_params(self, ctx):
        return _readable(super().get_params(ctx))


def _examples(*lines: str) -> str:
    """An epilog of example command lines (Markdown: one line each, as written)."""
    return "**Examples**\n\n" + "  \n".join(f"`{line}`" for line in lines)


app = typer.Typer(
    cls=_Group,
    rich_markup_mode="markdown",
    add_completion=True,
    no_args_is_help=True,
    help="gamebench: check solutions of combinatorial-game problems over test corpora.",
    epilog=_examples("pipeline problems", "pipeline --data-dir /tmp/d ingest",
                     "pipeline COMMAND --help", "pipeline --install-completion"),
    pretty_exceptions_enable=False,
)


def _complete_problem(incomplete: str) -> list[str]:
    """Problem ids starting with what was typed (for shell completion)."""
    from pipeline.problems import problem_ids

    return [pid for pid in problem_ids() if pid.startswith(incomplete)]




def _within(low: float, high: float = math.inf, *, low_included: bool = True):
    """An option's check: a finite number from `low` (or above it) to `high`; anything else
    (`nan`, `inf`, out of range) is a usage error naming the option."""
    def check(value: float | None) -> float | None:
        if value is None:
            return value
        above = value >= low if low_included else value > low
        if not (math.isfinite(value) and above and value <= high):
            bounds = f"{'at least' if low_included else 'above'} {low:g}"
            if math.isfinite(high):
                bounds += f" and at most {high:g}"
            raise typer.BadParameter(f"must be a finite number {bounds}, not {value:g}")
        return value
    return check


def _jobs(value: int | None) -> int | None:
    """`--jobs` of a pool on this machine: at most a few workers per core (each is a process
    of its own). The executors check theirs (a cluster's may be larger)."""
    from pipeline.run.executors import check_jobs

    try:
        return check_jobs(value)
    except UserError as error:
        raise typer.BadParameter(str(error)) from None


@dataclass(frozen=True)
class Settings:
    data_dir: Path
    problems_dirs: tuple[Path, ...] = ()  # as given with --problems-dir


@app.callback()
def _options(
    ctx: typer.Context,
    data_dir: Annotated[Path, typer.Option(
        "--data-dir", envvar="PIPELINE_DATA_DIR", metavar="DIR",
        help="Where raw corpora and tables live (a relative path is from the current "
        "folder).")] = Path("data"),
    problems_dir: Annotated[Optional[list[Path]], typer.Option(
        "--problems-dir", metavar="DIR", help="A folder of extra problems, one folder each "
        "(repeatable; also PIPELINE_PROBLEMS_DIR; default: the built-in problems only).")] = None,
) -> None:
    from pipeline.problems import add_problem_dirs

    if ctx.invoked_subcommand not in ("solve", "problems") and data_dir.exists() \
            and not data_dir.is_dir():
        _fail(f"the data folder {data_dir} is not a folder (--data-dir DIR or "
              "PIPELINE_DATA_DIR names another)")
    # Packages registered in the data folder are problems too.
    add_problem_dirs([*(problems_dir or []), data_dir / "problems"])
    ctx.obj = Settings(data_dir=data_dir, problems_dirs=tuple(problems_dir or ()))


# Where a command's cases run; shared by every command that runs cases (`run`, `nightly`).
ExecutorOption = Annotated[str, typer.Option(
    "--executor", metavar="KIND", help="Where cases run: local (a process pool on this machine) "
    "or dask (a Dask cluster).")]
SchedulerOption = Annotated[Optional[str], typer.Option(
    "--scheduler", metavar="ADDRESS", help="Dask scheduler address, tcp://HOST:PORT (default: "
    "$PIPELINE_SCHEDULER; neither: a local Dask cluster is started for the command).")]


# Options every command that runs solvers shares (`stress`, `hunt`).
ProblemOption = Annotated[str, typer.Option("--problem", "-p", metavar="PROBLEM",
                                            autocompletion=_complete_problem,
                                            help="Problem id.")]
ExternalOption = Annotated[Optional[list[str]], typer.Option(
    "--external", "-e", metavar="NAME=COMMAND",
    help="An external program: a command, or a source file built by its language "
    "(NAME=sol.cpp, or sol.cpp named sol; repeatable; default: none).")]
SandboxOption = Annotated[str, typer.Option(
    "--sandbox", metavar="MODE", help="Run external programs in a sandbox, as `run` does: "
    "auto (where it works), on (or fail), off.")]
JobsOption = Annotated[Optional[int], typer.Option(
    "--jobs", "-j", min=1, metavar="N", help="Worker processes (default: the number of cores).")]
SeedOption = Annotated[int, typer.Option("--seed", metavar="N", help="Random seed.")]


def _executor(kind: str, scheduler: Optional[str], jobs: Optional[int], problem=None,
              selection=None):
    """The executor the options ask for, started now (a clear error when it cannot be)."""
    from pipeline.run.choice import make_executor
    from pipeline.run.executors import ExecutorError

    try:
        return make_executor(kind, scheduler, jobs, problem, selection)
    except UserError as error:
        _fail(str(error))
    except ExecutorError as error:
        _fail(str(error), code=1)
    except KeyboardInterrupt:
        _fail("interrupted while starting the executor", code=130)


def _fail(message: str, code: int = 2) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def _settle(data_dir: Path) -> None:
    """Runs left `running` by a process that died are marked `interrupted`."""
    from pipeline.tables.doctor import settle_dead_runs

    for run_id in settle_dead_runs(data_dir):
        typer.echo(f"note: run {run_id} was left running by a process that is gone: marked "
                   "interrupted", err=True)


def _problem(problem_id: str):
    from pipeline.problems import get_problem

    try:
        return get_problem(problem_id)
    except UnknownName as error:
        _fail(str(error))


@app.command("problems", cls=_Command, epilog=_examples("pipeline problems"))
def problems_command() -> None:
    """List the problems (built-in, --problems-dir, and packages registered in the data
    folder) with their limits, stages, own programs and recipes."""
    from pipeline.problems import all_problems
    from pipeline.problems.listing import describe

    for problem in all_problems():
        typer.echo(describe(problem))


@app.command("solve", cls=_Command, add_help_option=False,
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


@app.command("generate", cls=_Command, epilog=_examples(
    "pipeline generate PROBLEM --recipe RECIPE --count 200 --seed 7",
    "pipeline generate PROBLEM --recipe RECIPE --out corpus/ --expected-from STAGE",
    "(pipeline problems lists each problem's recipes and stages)"))
def generate_command(
    ctx: typer.Context,
    problem_id: Annotated[str, typer.Argument(
        metavar="PROBLEM", help="Problem id.", autocompletion=_complete_problem)],
    recipe: Annotated[str, typer.Option("--recipe", "-r", metavar="RECIPE",
                                        help="Recipe name.")],
    count: Annotated[int, typer.Option("--count", "-n", min=1, metavar="N",
                                       help="How many cases.")] = 10,
    seed: Annotated[int, typer.Option("--seed", metavar="SEED", help="Random seed.")] = 1,
    out: Annotated[Optional[Path], typer.Option(
        "--out", metavar="DIR",
        help="Folder (default: DATA/raw/PROBLEM/generated/RECIPE).")] = None,
    expected_from: Annotated[str, typer.Option(
        "--expected-from", metavar="STAGE",
        help="Stage that writes NAME.out (when within its limits).")] = "brute",
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


@app.command("ingest", cls=_Command, epilog=_examples(
    "pipeline ingest",
    "pipeline ingest ~/judge/PROBLEM.zip",
    "pipeline ingest tests/ --problem PROBLEM"))
def ingest_command(
    ctx: typer.Context,
    paths: Annotated[Optional[list[Path]], typer.Argument(
        metavar="PATH", help="Roots to ingest (default: DATA/raw and every problem's "
        "samples).")] = None,
    problem_id: Annotated[Optional[str], typer.Option(
        "--problem", "-p", metavar="PROBLEM", autocompletion=_complete_problem,
        help="Treat every file as this problem's (default: the first folder under a root "
        "names the problem).")] = None,
    allow_rejects: Annotated[bool, typer.Option(
        "--allow-rejects", help="Exit 0 even when some files were rejected.")] = False,
    max_file_mb: Annotated[float, typer.Option(
        "--max-file-mb", metavar="MB", callback=_within(0.001),
        help="Refuse files (and archive members) larger than this.")] = 256,
    jobs: Annotated[Optional[int], typer.Option(
        "--jobs", "-j", min=1, metavar="N", callback=_jobs,
        help="Processes validating files (default: the number of cores).")] = None,
    no_wait: Annotated[bool, typer.Option(
        "--no-wait", help="Fail at once if another command is writing the tables.")] = False,
) -> None:
    """Find, validate and store every test case under PATH in the cases table."""
    from pipeline.corpus.ingest import (default_roots, format_summary, ingest,
                                        nothing_stored_reason)
    from pipeline.progress import progress_bar

    roots = paths or default_roots(ctx.obj.data_dir)
    for root in roots:
        if not root.exists():
            _fail(f"{root} does not exist")
    from pipeline.programs.contained import hide

    hide(ctx.obj.data_dir)  # validators and generators never see the stored answers
    summary = ingest(ctx.obj.data_dir, roots, problem_id, progress_bar("ingest"), jobs=jobs,
                     max_file_mb=max_file_mb, wait=not no_wait)
    text = format_summary(summary)
    if text:
        typer.echo(text)
    reason = nothing_stored_reason(summary, roots)
    if reason:
        _fail(f"nothing ingested: {reason}", code=1)
    if summary.rejected and not allow_rejects:
        raise typer.Exit(1)


@app.command("query", cls=_Command, epilog=_examples(
    'pipeline query "SELECT solver, verdict, count(*) AS n FROM results GROUP BY 1, 2"',
    'pipeline query "SELECT source, line, rule, message FROM rejects" --format csv',
    'pipeline query "SELECT * FROM runs" --format parquet --out runs.parquet'))
def query_command(
    ctx: typer.Context,
    sql: Annotated[str, typer.Argument(
        metavar="SQL", help="Polars SQL over the tables cases, rejects, results, runs, "
        "findings, expectations, strength.")],
    fmt: Annotated[str, typer.Option("--format", "-f", metavar="FORMAT",
                                     help="table, csv, json (one object per line) or "
                                     "parquet.")] = "table",
    out: Annotated[Optional[Path], typer.Option(
        "--out", metavar="FILE", help="Write to FILE (default: standard output).")] = None,
) -> None:
    """Run Polars SQL over the tables (streamed: any result size fits).

    When the data folder holds no tables (or does not exist), the answer comes with a note on
    stderr naming the folder.
    """
    import polars as pl

    from pipeline.report.query import FORMATS, plan, query_error, show_table, write

    if fmt not in FORMATS:
        _fail(f"unknown format {fmt!r}: use {', '.join(FORMATS)}")
    note = _empty_data_note(ctx.obj.data_dir)
    if note:  # any answer from no tables at all (a count of 0, no rows) is from nothing
        typer.echo(f"note: {note}", err=True)
    try:
        lazy = plan(ctx.obj.data_dir, sql)
        if fmt == "table" and out is None:
            sys.stdout.write(show_table(lazy))
        elif fmt == "table":
            from pipeline.fsutil import atomic_write_text

            atomic_write_text(out, show_table(lazy))
        else:
            write(lazy, fmt, out)  # type: ignore[arg-type]
    except (pl.exceptions.PolarsError, UserError) as error:
        _fail("query failed: " + "\n".join(query_error(sql, error).lines(sql)), code=1)


@app.command("run", cls=_Command, epilog=_examples(
    "pipeline run --problem PROBLEM",
    "pipeline run --problem PROBLEM --solver fast --group GROUP --repeat 3",
    "pipeline run --problem PROBLEM --external mine=./mine --solver mine --jobs 2",
    "pipeline run --problem PROBLEM --resume RUN_ID"))
def run_command(
    ctx: typer.Context,
    problem_id: Annotated[str, typer.Option("--problem", "-p", metavar="PROBLEM",
                                            autocompletion=_complete_problem,
                                            help="Problem id.")],
    solver: Annotated[Optional[list[str]], typer.Option(
        "--solver", "-s", metavar="NAME", help="A stage or configured solver to keep "
        "(repeatable; default: every stage and configured solver).")] = None,
    external: ExternalOption = None,
    group: Annotated[Optional[str], typer.Option(
        "--group", metavar="GROUP", help="Only cases of this group (default: every "
        "case).")] = None,
    jobs: Annotated[Optional[int], typer.Option(
        "--jobs", "-j", min=1, metavar="N",
        help="Worker processes (default: the number of cores).")] = None,
    timeout: Annotated[Optional[float], typer.Option(
        "--timeout", metavar="SEC", callback=_within(0, 86400, low_included=False),
        help="Seconds per case (default: the problem's time limit).")] = None,
    memory: Annotated[Optional[int], typer.Option(
        "--memory", min=0, max=1 << 30, metavar="MB", help="Memory limit in MB of external "
        "programs (default: the problem's, 512 where it has none; 0: no limit).")] = None,
    stack: Annotated[Optional[int], typer.Option(
        "--stack", min=0, max=1 << 30, metavar="MB", help="Stack limit in MB of external "
        "programs (default: the memory limit, as judges set it; 0: unlimited).")] = None,
    sandbox: Annotated[str, typer.Option(
        "--sandbox", metavar="MODE", help="Run external programs in a sandbox (own mount and "
        "network namespaces, as user nobody): auto (where it works), on (or fail), "
        "off.")] = "auto",
    repeat: Annotated[int, typer.Option("--repeat", min=1, max=1000, metavar="K",
                                        help="Runs per case.")] = 1,
    resume: Annotated[Optional[str], typer.Option(
        "--resume", metavar="RUN_ID", help="Finish this killed run (default: a new "
        "run).")] = None,
    no_wait: Annotated[bool, typer.Option(
        "--no-wait", help="Fail at once if another command is writing the tables.")] = False,
    executor_kind: ExecutorOption = "local",
    scheduler: SchedulerOption = None,
) -> None:
    """Run solver stages and external programs over the stored cases of a problem."""
    from pipeline.progress import progress_bar
    from pipeline.run.executors import ExecutorError
    from pipeline.run.request import RunRequest, select_solvers
    from pipeline.programs.languages import BuildError
    from pipeline.run.solvers import parse_external

    problem = _problem(problem_id)
    _settle(ctx.obj.data_dir)
    if sandbox not in ("auto", "on", "off"):
        _fail(f"--sandbox must be auto, on or off, not {sandbox!r}")
    if resume and (solver or external or group):
        _fail("--resume RUN_ID runs the solvers, programs and group the run recorded: leave "
              "out --solver, --external and --group")
    try:
        externals = tuple(parse_external(text) for text in external or [])
        request = RunRequest(problem=problem.id, solvers=tuple(solver or ()),
                             externals=externals, group=group, jobs=jobs, timeout_s=timeout,
                             memory_mb=memory, stack_mb=stack, sandbox=sandbox,
                             repeat=repeat, resume=resume,
                             command=" ".join(["pipeline", *sys.argv[1:]]), wait=not no_wait)
        selection = select_solvers(problem, request) if not resume else None
    except (UnknownName, UserError) as error:
        _fail(str(error))
    # The workers start before Polars is imported: they warm up while the parent loads.
    executor = _executor(executor_kind, scheduler, jobs, problem, selection)
    try:
        from pipeline.run.runner import format_summary, run

        summary = run(ctx.obj.data_dir, request, executor=executor,
                      progress=progress_bar("run"))
    except (BuildError, ExecutorError, UserError) as error:
        _fail(str(error), code=1)
    finally:
        executor.close()
    typer.echo(format_summary(summary))
    if summary.status == "interrupted":
        typer.echo(f"to finish it: {_resume_command(ctx.obj, problem.id, summary.run_id)}")
    if summary.cases == 0:
        typer.echo(f"note: no stored cases of {problem.id}"
                   f"{' in group ' + group if group else ''} in "
                   f"{Path(ctx.obj.data_dir).resolve()}: pipeline ingest stores them", err=True)
    if summary.status != "finished":
        raise typer.Exit(130 if summary.status == "interrupted" else 1)
    if summary.cannot_start:  # no verdict of the program: it never ran
        names = ", ".join(failure.solver for failure in summary.cannot_start)
        typer.echo(f"{names} could not start: its results are no verdict (see above)", err=True)
        raise typer.Exit(1)
    if summary.disagreements:
        typer.echo(f"{summary.disagreements} submission(s) got what their folder does not "
                   "expect (see above)", err=True)
        raise typer.Exit(1)


def _resume_command(settings: Settings, problem_id: str, run_id: str) -> str:
    """The command line that finishes run `run_id`, as it is to be typed (with the data folder
    and problem folders this command was given)."""
    import shlex

    words = ["pipeline"]
    if settings.data_dir != Path("data"):
        words += ["--data-dir", str(settings.data_dir)]
    for folder in settings.problems_dirs:
        words += ["--problems-dir", str(folder)]
    return shlex.join([*words, "run", "--problem", problem_id, "--resume", run_id])


def _empty_data_note(data_dir: Path) -> str | None:
    """What to tell a user whose data folder holds no tables (None when it holds some)."""
    from pipeline.tables.files import table_files
    from pipeline.tables.schemas import TABLES

    where = Path(data_dir).resolve()
    if not where.is_dir():
        return (f"the data folder {where} does not exist (--data-dir DIR or "
                "PIPELINE_DATA_DIR names another)")
    if not any(table_files(data_dir, table) for table in TABLES):
        return (f"the data folder {where} holds no tables yet (pipeline ingest and pipeline "
                "run fill them; --data-dir DIR names another folder)")
    return None


def _report_runs(data_dir: Path, run_ids: Optional[list[str]],
                 problem_id: Optional[str]) -> list[str]:
    """The runs a report command looks at; says so when there are none."""
    from pipeline.tables.runs import resolve_runs

    _settle(data_dir)
    if problem_id:
        _problem(problem_id)
    try:
        runs = resolve_runs(data_dir, run_ids, problem_id)
    except UnknownName as error:
        _fail(str(error))
    if not runs:
        typer.echo(f"no finished runs{' of ' + problem_id if problem_id else ''} in "
                   f"{Path(data_dir).resolve()}: run 'pipeline run' first (or name another "
                   "data folder with --data-dir)")
    return runs


@app.command("slow", cls=_Command, epilog=_examples(
    "pipeline slow",
    "pipeline slow --problem PROBLEM --solver fast --top 10",
    "pipeline slow --run RUN_ID"))
def slow_command(
    ctx: typer.Context,
    problem_id: Annotated[Optional[str], typer.Option(
        "--problem", "-p", metavar="PROBLEM", autocompletion=_complete_problem,
        help="Only this problem (default: every problem).")] = None,
    solver: Annotated[Optional[str], typer.Option(
        "--solver", "-s", metavar="NAME", help="Only this solver (default: every "
        "solver).")] = None,
    run_ids: Annotated[Optional[list[str]], typer.Option(
        "--run", metavar="RUN_ID", help="Run id (repeatable; default: the latest finished "
        "run of each problem).")] = None,
    top: Annotated[int, typer.Option("--top", "-n", min=1, metavar="N",
                                     help="How many cases.")] = 20,
) -> None:
    """The slowest cases: size, median wall/CPU ms, share of the time limit, verdict, and the
    case's source and groups."""
    from pipeline.report.slow import format_slow, slow_cases

    runs = _report_runs(ctx.obj.data_dir, run_ids, problem_id)
    if runs:
        typer.echo(format_slow(slow_cases(ctx.obj.data_dir, problem_id, solver, runs, top)))


@app.command("mismatches", cls=_Command, epilog=_examples(
    "pipeline mismatches",
    "pipeline mismatches --problem PROBLEM --top 3",
    "pipeline mismatches --all --run RUN_ID"))
def mismatches_command(
    ctx: typer.Context,
    problem_id: Annotated[Optional[str], typer.Option(
        "--problem", "-p", metavar="PROBLEM", autocompletion=_complete_problem,
        help="Only this problem (default: every problem).")] = None,
    run_ids: Annotated[Optional[list[str]], typer.Option(
        "--run", metavar="RUN_ID", help="Run id (repeatable; default: the latest finished "
        "run of each problem).")] = None,
    top: Annotated[Optional[int], typer.Option(
        "--top", "-n", min=1, metavar="N", help="Cases shown in full per problem (default: "
        "10; with --all, every case).")] = None,
    show_all: Annotated[bool, typer.Option(
        "--all", help="Also show in full every case where only known-wrong stages are off "
        "(default: one line per such stage).")] = False,
) -> None:
    """Cases where a stage's answer differs from the expected one or two stages disagree.

    Per problem, smallest first by that problem's size: the findings (a trusted solver
    disagrees) in full, then one line per known-wrong stage failing as documented, with how
    many cases it gets wrong and its smallest counterexample.
    """
    from pipeline.report.mismatches import find_mismatches, format_mismatches

    runs = _report_runs(ctx.obj.data_dir, run_ids, problem_id)
    if runs:
        typer.echo(format_mismatches(find_mismatches(ctx.obj.data_dir, problem_id, runs),
                                     top=top, show_all=show_all, run_ids=runs))


@app.command("compare", cls=_Command, epilog=_examples(
    "pipeline compare",
    "pipeline compare --problem PROBLEM",
    "pipeline compare BASE_RUN NEW_RUN --ratio 2 --min-diff-ms 20",
    "pipeline compare RUN --solver fast --against brute"))
def compare_command(
    ctx: typer.Context,
    base: Annotated[Optional[str], typer.Argument(
        metavar="BASE", help="Baseline run (default: the newest earlier comparable run of "
        "NEW's problem).")] = None,
    new: Annotated[Optional[str], typer.Argument(
        metavar="NEW", help="Run to judge (default: the newest finished run of the "
        "problem).")] = None,
    problem_id: Annotated[Optional[str], typer.Option(
        "--problem", "-p", metavar="PROBLEM", autocompletion=_complete_problem,
        help="Only this problem (default: every problem with two finished runs).")] = None,
    ratio: Annotated[float, typer.Option(
        "--ratio", metavar="X", callback=_within(1),
        help="A case is slower when NEW/BASE exceeds this ...")] = 1.5,
    min_diff_ms: Annotated[float, typer.Option(
        "--min-diff-ms", metavar="MS", callback=_within(0), help="... and NEW - BASE exceeds "
        "this many ms (the measured noise floor of a process start on a shared 2-core "
        "machine).")] = 20.0,
    solver: Annotated[Optional[str], typer.Option(
        "--solver", "-s", metavar="A", help="With --against: compare program A with program B "
        "on the cases of one run (the one run given, else the newest finished run of "
        "--problem, else the newest finished run) (default: compare two runs).")] = None,
    against: Annotated[Optional[str], typer.Option(
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
    if problem_id:
        _problem(problem_id)
    if solver or against:
        _side_by_side(data_dir, solver, against, base, new, problem_id, ratio, min_diff_ms)
        return
    try:
        pairs = pairs_to_compare(data_dir, base, new, problem_id)
    except (UnknownName, UserError) as error:
        _fail(str(error))
    if all(pair.base is None for pair in pairs):
        _fail("; ".join(pair.why + "".join(f"; passed over {r}" for r in pair.skipped)
                        for pair in pairs))
    failed = False
    for index, pair in enumerate(pairs):
        if pair.base is None:
            typer.echo(("\n" if index else "") + f"compare {pair.problem}: {pair.why}"
                       + "".join(f"\n  passed over {reason}" for reason in pair.skipped))
            continue
        try:
            comparison = compare_runs(data_dir, pair.base, pair.new, ratio, min_diff_ms)
        except (UnknownName, UserError) as error:
            _fail(str(error))
        typer.echo(("\n" if index else "") + format_comparison(comparison, choice=pair))
        failed = failed or comparison.failed
    if failed:
        raise typer.Exit(1)


@app.command("strength", cls=_Command, epilog=_examples(
    "pipeline strength --problem PROBLEM",
    "pipeline strength --run RUN_ID --format json"))
def strength_command(
    ctx: typer.Context,
    problem_id: Annotated[Optional[str], typer.Option(
        "--problem", "-p", metavar="PROBLEM", autocompletion=_complete_problem,
        help="Only this problem (default: every problem).")] = None,
    run_ids: Annotated[Optional[list[str]], typer.Option(
        "--run", metavar="RUN_ID", help="Run id (repeatable; default: the latest finished "
        "run of each problem).")] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", metavar="FORMAT",
                                     help="text, json (one object per run) or csv (one row "
                                     "per case).")] = "text",
) -> None:
    """How strong the tests are: which case kills which wrong program (known-wrong stages,
    submissions expected to fail), which wrong programs survive every case, and the smallest
    set of cases that still kills every killed one (exact, or greedy with its bound), with the
    CPU time it saves per run; and which of the input's bounds the cases reach (constraint
    coverage). Stored in the `strength` table."""
    from pipeline.report.strength import as_json, format_strength, strength_of_runs, strength_rows
    from pipeline.tables.results import write_strength

    if fmt not in ("text", "json", "csv"):
        _fail(f"unknown format {fmt!r}: use text, json or csv")
    data_dir = ctx.obj.data_dir
    runs = _report_runs(data_dir, run_ids, problem_id)
    if not runs:
        return
    strengths = strength_of_runs(data_dir, runs)
    for strength in strengths:  # one file per run, written atomically
        write_strength(data_dir, strength.run_id, strength_rows(strength))
    from dataclasses import asdict

    from pipeline.problems import get_problem
    from pipeline.report.coverage import NO_BOUNDS, format_coverage, stored_coverage

    covered, why_none = {}, {}
    for strength in strengths if fmt != "csv" else ():  # (csv prints no coverage)
        try:
            problem = get_problem(strength.problem)
        except UnknownName:  # a problem no longer registered: its bounds are unknown
            covered[strength.problem] = ()
            continue
        covered[strength.problem] = stored_coverage(data_dir, problem)
        why_none[strength.problem] = problem.why_no_coverage()
    if fmt == "json":
        sys.stdout.write(as_json(strengths, {p: [asdict(r) for r in rows]
                                             for p, rows in covered.items()}))
    elif fmt == "csv":
        import polars as pl

        from pipeline.tables.schemas import STRENGTH

        rows = [row for s in strengths for row in strength_rows(s)]
        columns = [name for name in STRENGTH if name != "measured_at"]
        frame = pl.DataFrame(rows, schema={n: STRENGTH[n] for n in columns}, strict=False)
        frame = frame.with_columns(pl.col(n).list.join(";") for n in columns
                                   if isinstance(STRENGTH[n], pl.List))
        sys.stdout.write(frame.write_csv())
    else:
        typer.echo("\n\n".join(format_strength(s) + "\n" + format_coverage(
            s.problem, covered[s.problem], why_none.get(s.problem, NO_BOUNDS))
                                 for s in strengths))


def _side_by_side(data_dir: Path, solver: str | None, against: str | None, run_id: str | None,
                  extra: str | None, problem_id: str | None, ratio: float,
                  min_diff_ms: float) -> None:
    """`compare [RUN] --solver A --against B`."""
    from pipeline.report.compare import compare_solvers, format_side_by_side
    from pipeline.tables.runs import finished_runs

    if not (solver and against):
        _fail("--solver A and --against B go together: name both programs")
    if extra:
        _fail("--solver A --against B compares two programs of one run: give one RUN, not two")
    _settle(data_dir)
    if run_id is None:
        runs = finished_runs(data_dir, problem_id)["run_id"]
        if runs.is_empty():
            _fail(f"no finished runs{' of ' + problem_id if problem_id else ''} in "
                  f"{Path(data_dir).resolve()}: run 'pipeline run' first")
        run_id = runs[0]
    try:
        typer.echo(format_side_by_side(compare_solvers(data_dir, run_id, solver, against,
                                                       ratio, min_diff_ms)))
    except UnknownName as error:
        _fail(str(error))


@app.command("report", cls=_Command, epilog=_examples(
    "pipeline report",
    "pipeline report --out report.html",
    "pipeline report --run RUN_ID --run OTHER_RUN_ID"))
def report_command(
    ctx: typer.Context,
    run_ids: Annotated[Optional[list[str]], typer.Option(
        "--run", metavar="RUN_ID", help="Run id (repeatable; default: the latest finished "
        "run of each problem).")] = None,
    out: Annotated[Optional[Path], typer.Option(
        "--out", metavar="FILE",
        help="HTML file (default: DATA/reports/report-TIMESTAMP.html).")] = None,
) -> None:
    """Write one self-contained HTML report (verdicts, comparison, growth, nightly history,
    slowest cases, mismatches)."""
    from pipeline.report.html import write_report

    try:
        path = write_report(ctx.obj.data_dir, run_ids, out)
    except (UnknownName, UserError) as error:
        _fail(str(error))
    typer.echo(f"report: {path}")


@app.command("nightly", cls=_Command, epilog=_examples(
    "pipeline nightly",
    "pipeline nightly --jobs 2 --config my-nightly.toml"))
def nightly_command(
    ctx: typer.Context,
    config: Annotated[Optional[Path], typer.Option(
        "--config", metavar="FILE",
        help="The nightly's settings (default: configs/nightly.toml).")] = None,
    jobs: Annotated[Optional[int], typer.Option(
        "--jobs", "-j", min=1, metavar="N",
        help="Worker processes (default: the number of cores).")] = None,
    executor_kind: ExecutorOption = "local",
    scheduler: SchedulerOption = None,
) -> None:
    """The whole job: generate the default corpus if missing, ingest, run everything,
    compare with the previous run, write the report."""
    from pipeline.nightly import DEFAULT_CONFIG, format_outcome, nightly
    from pipeline.progress import progress_bar
    from pipeline.run.executors import ExecutorError
    from pipeline.programs.languages import BuildError

    # The local pool is started per problem by each run; a cluster is connected to once.
    local = executor_kind.strip().lower() == "local"
    if local and scheduler:
        _fail("--scheduler is for --executor dask")
    if local:
        _jobs(jobs)
    executor = None if local else _executor(executor_kind, scheduler, jobs)
    try:
        outcome = nightly(ctx.obj.data_dir, config or DEFAULT_CONFIG, jobs,
                          log=lambda line: typer.echo(line), progress=progress_bar("nightly"),
                          executor=executor)
    except (BuildError, ExecutorError) as error:
        _fail(str(error), code=1)
    finally:
        if executor is not None:
            executor.close()
    typer.echo(format_outcome(outcome))
    if outcome.failed:
        raise typer.Exit(1)


@app.command("doctor", cls=_Command, epilog=_examples(
    "pipeline doctor",
    "pipeline doctor --fix"))
def doctor_command(
    ctx: typer.Context,
    fix: Annotated[bool, typer.Option(
        "--fix", help="Move damaged and leftover files to DATA/quarantine/ (never deleting) "
        "and mark dead runs interrupted.")] = False,
    no_wait: Annotated[bool, typer.Option(
        "--no-wait", help="With --fix: fail at once if another command is writing.")] = False,
) -> None:
    """Check the data folder: damaged table files, leftover temporary files, dead runs.

    Exits 1 when something is wrong and --fix was not given.
    """
    from pipeline.tables.doctor import examine, fix as fix_folder, format_examination

    data_dir = ctx.obj.data_dir
    found = examine(data_dir)
    typer.echo(format_examination(found, data_dir))
    if found.healthy:
        return
    if not fix:
        typer.echo("run `pipeline doctor --fix` to set it right", err=True)
        raise typer.Exit(1)
    target = fix_folder(data_dir, found, wait=not no_wait)
    if target is not None:
        typer.echo(f"moved {len(found.damaged) + len(found.leftovers)} files to {target}")
    if found.dead_runs:
        typer.echo(f"marked {len(found.dead_runs)} runs interrupted")


def _check_sandbox(mode: str) -> None:
    """A usage error (exit 2) for a `--sandbox` that is not auto, on or off."""
    from pipeline.programs.isolation import SANDBOX_MODES

    if mode not in SANDBOX_MODES:
        _fail(f"--sandbox must be {', '.join(SANDBOX_MODES[:-1])} or {SANDBOX_MODES[-1]}, "
              f"not {mode!r}")


def _stress_errors():
    """The errors a stress or hunt session can meet, reported without a traceback: unknown
    names, solvers that cannot be paired, a failed build, a data folder it cannot write or a
    damaged table."""
    from pipeline.config import ConfigError
    from pipeline.run.executors import ExecutorError
    from pipeline.programs.languages import BuildError
    from pipeline.stress.hunt import HuntError
    from pipeline.stress.judge import JudgeError
    from pipeline.stress.stress import StressError
    from pipeline.tables.files import DamagedTable

    return (UnknownName, JudgeError, StressError, HuntError, BuildError, ConfigError,
            DamagedTable, ExecutorError, UserError, OSError)


@app.command("stress", cls=_Command, epilog=_examples(
    "pipeline stress --problem PROBLEM --solver fast",
    "pipeline stress --problem PROBLEM --solver mine --external mine=./mine --budget 5m",
    "pipeline stress --problem PROBLEM --solver STAGE --against brute --recipe 'tiny*' "
    "--stop-after 3",
    "pipeline stress --problem PACKAGE --solver solutions/mine.cpp "
    "--generator 'gen 10 100 {seed}'"))
def stress_command(
    ctx: typer.Context,
    problem_id: ProblemOption,
    solver: Annotated[str, typer.Option(
        "--solver", "-s", metavar="NAME", help="The solver to check: a stage, a configured "
        "solver, an --external name or a package's submission.")],
    against: Annotated[Optional[str], typer.Option(
        "--against", metavar="NAME", help="The reference (default: the problem's reference order; "
        "for a package, its main or first accepted submission).")] = None,
    recipe: Annotated[Optional[list[str]], typer.Option(
        "--recipe", "-r", metavar="PATTERN", help="Recipe name or shell pattern (repeatable; "
        "default: every recipe but the max ones; a Polygon package's recipes are its generator "
        "commands).")] = None,
    generator: Annotated[Optional[list[str]], typer.Option(
        "--generator", "-g", metavar="COMMAND", help="A generator as a recipe: a program of the "
        "package (or a path, or a command on PATH) and its arguments, {seed} filled in per case "
        "(appended when absent); its output is checked by the package's input validators "
        "(repeatable; default: none; given, the session uses only these unless --recipe is "
        "given).")] = None,
    group: Annotated[Optional[str], typer.Option(
        "--group", metavar="GROUP", help="A package's test group whose rules every generated case "
        "is held to: its validator arguments, its judging (default: a Polygon test's own group; "
        "for --generator, the package's first group of secret cases).")] = None,
    budget: Annotated[str, typer.Option(
        "--budget", metavar="DURATION", help="The session's time (e.g. 60s, 5m); a shrink under "
        "way finishes.")] = "60s",
    stop_after: Annotated[int, typer.Option(
        "--stop-after", min=1, metavar="N", help="Stop after this many findings.")] = 1,
    seed: SeedOption = 1,
    jobs: JobsOption = None,
    external: ExternalOption = None,
    shrink_budget: Annotated[str, typer.Option(
        "--shrink-budget", metavar="DURATION", help="Time for shrinking each failure.")] = "120s",
    sandbox: SandboxOption = "auto",
    executor_kind: ExecutorOption = "local",
    scheduler: SchedulerOption = None,
) -> None:
    """Generate cases from recipes until SOLVER and the reference disagree (or SOLVER fails),
    shrink each failure, keep it in group `found` and the findings table."""
    from pipeline.run.solvers import parse_external
    from pipeline.stress.durations import parse_duration
    from pipeline.stress.judge import StartError
    from pipeline.stress.stress import StressRequest, format_summary, stress

    problem = _problem(problem_id)
    _check_sandbox(sandbox)
    try:
        request = StressRequest(
            problem=problem.id, solver=solver, against=against, recipes=tuple(recipe or ()),
            budget_s=parse_duration(budget), stop_after=stop_after, seed=seed, jobs=jobs,
            externals=tuple(parse_external(text) for text in external or []),
            shrink_budget_s=parse_duration(shrink_budget), command=" ".join(sys.argv),
            executor=executor_kind, scheduler=scheduler, generators=tuple(generator or ()),
            group=group, sandbox=sandbox)
        summary = stress(ctx.obj.data_dir, request)
    except StartError as error:  # the user's program, not the command line
        _fail(str(error), code=1)
    except _stress_errors() as error:
        _fail(str(error))
    typer.echo(format_summary(summary))
    if summary.status == "interrupted":
        raise typer.Exit(130)
    if summary.failures:
        raise typer.Exit(1)


@app.command("harden", cls=_Command, epilog=_examples(
    "pipeline harden --problem PROBLEM",
    "pipeline harden --problem PACKAGE --solver wrong_answer/int32.c "
    "--generator 'gen 10 100 {seed}' --budget 2m"))
def harden_command(
    ctx: typer.Context,
    problem_id: ProblemOption,
    solver: Annotated[Optional[list[str]], typer.Option(
        "--solver", "-s", metavar="NAME", help="A wrong program to kill (repeatable; default: "
        "every wrong program no case of the latest run kills).")] = None,
    against: Annotated[Optional[str], typer.Option(
        "--against", metavar="NAME", help="The reference (default: the problem's reference "
        "order; for a package, its main or first accepted submission).")] = None,
    recipe: Annotated[Optional[list[str]], typer.Option(
        "--recipe", "-r", metavar="PATTERN", help="Recipe name or shell pattern (repeatable; "
        "default: as pipeline stress).")] = None,
    generator: Annotated[Optional[list[str]], typer.Option(
        "--generator", "-g", metavar="COMMAND", help="A generator as a recipe, as for pipeline "
        "stress (repeatable; default: none).")] = None,
    group: Annotated[Optional[str], typer.Option(
        "--group", metavar="GROUP", help="A package's test group the new tests are held to "
        "(default: as pipeline stress).")] = None,
    budget: Annotated[str, typer.Option(
        "--budget", metavar="DURATION", help="Search time per wrong program (e.g. 60s, 5m).")]
        = "60s",
    seed: SeedOption = 1,
    jobs: JobsOption = None,
    external: ExternalOption = None,
    shrink_budget: Annotated[str, typer.Option(
        "--shrink-budget", metavar="DURATION", help="Time for shrinking each case found.")]
        = "120s",
    sandbox: SandboxOption = "auto",
) -> None:
    """For each wrong program the tests let through, search for a case that kills it (as
    pipeline stress does), shrink it and add it to the problem's own tests: a package's data
    (harden-NAME.in/.ans beside its test group's cases), a built-in problem's
    DATA/raw/PROBLEM/hardened/. Exits 1 when a wrong program still survives."""
    from pipeline.run.solvers import parse_external
    from pipeline.stress.durations import parse_duration
    from pipeline.stress.harden import HardenError, format_hardened, harden
    from pipeline.stress.stress import StressRequest

    _check_sandbox(sandbox)
    problem = _problem(problem_id)
    _settle(ctx.obj.data_dir)
    try:
        request = StressRequest(
            problem=problem.id, solver="", against=against, recipes=tuple(recipe or ()),
            budget_s=parse_duration(budget), seed=seed, jobs=jobs,
            externals=tuple(parse_external(text) for text in external or []),
            shrink_budget_s=parse_duration(shrink_budget), command=" ".join(sys.argv),
            generators=tuple(generator or ()), group=group, sandbox=sandbox)
        done = harden(ctx.obj.data_dir, request, tuple(solver or ()),
                      log=lambda line: typer.echo(line, err=True))
    except (HardenError, *_stress_errors()) as error:
        _fail(str(error), code=1)
    typer.echo(format_hardened(problem.id, done))
    if any(item.status == "interrupted" for item in done):
        raise typer.Exit(130)
    if any(item.status != "added" for item in done):
        raise typer.Exit(1)


@app.command("hunt", cls=_Command, epilog=_examples(
    "pipeline hunt --problem PROBLEM --solver fast --size 20000",
    "pipeline hunt --problem PROBLEM --solver mine --external mine=./mine --budget 10m"))
def hunt_command(
    ctx: typer.Context,
    problem_id: ProblemOption,
    solver: Annotated[str, typer.Option(
        "--solver", "-s", metavar="NAME", help="The solver to slow down: a stage, a configured "
        "solver or an --external name.")],
    size: Annotated[Optional[int], typer.Option(
        "--size", min=1, metavar="N", help="Size measure of the inputs (default: the growth "
        "ladder's first size).")] = None,
    budget: Annotated[str, typer.Option(
        "--budget", metavar="DURATION", help="Time to search from the starting cases on "
        "(e.g. 120s; a round under way finishes).")] = "120s",
    seed: SeedOption = 1,
    jobs: JobsOption = None,
    external: ExternalOption = None,
    repeats: Annotated[int, typer.Option(
        "--repeats", min=1, metavar="N", help="Timings per candidate that may be kept.")] = 3,
    sandbox: SandboxOption = "auto",
) -> None:
    """Search for an input of the given size on which SOLVER is slowest; keep it in group
    `hunt` with its time and the findings table."""
    from pipeline.run.solvers import parse_external
    from pipeline.stress.durations import parse_duration
    from pipeline.stress.hunt import HuntRequest, format_summary, hunt
    from pipeline.stress.judge import StartError

    problem = _problem(problem_id)
    _check_sandbox(sandbox)
    try:
        request = HuntRequest(
            problem=problem.id, solver=solver, size=size, budget_s=parse_duration(budget),
            seed=seed, jobs=jobs, repeats=repeats,
            externals=tuple(parse_external(text) for text in external or []),
            command=" ".join(sys.argv), sandbox=sandbox)
        summary = hunt(ctx.obj.data_dir, request)
    except StartError as error:  # the user's program, not the command line
        _fail(str(error), code=1)
    except _stress_errors() as error:
        _fail(str(error))
    typer.echo(format_summary(summary))
    if summary.status == "interrupted":
        raise typer.Exit(130)


def main(argv: list[str] | None = None) -> None:
    """Run the command line; every error a user can cause ends in one line, never a
    traceback (set PIPELINE_DEBUG=1 to see one), with exit status 1 (2 for usage errors,
    128 + N when interrupted by signal N)."""
    import os

    from typer.exceptions import TyperException

    from pipeline import signals
    from pipeline.config import ConfigError
    from pipeline.tables.layout import DamagedTable
    from pipeline.tables.lock import LockHeld

    signals.install()
    try:
        code = app(args=argv, standalone_mode=False, prog_name="pipeline")
        if signals.received is not None:  # a command that stopped on a signal by itself
            typer.echo(f"interrupted ({signals.name()})", err=True)
            code = signals.exit_code()
    except typer.Exit as exit_:
        code = exit_.exit_code
    except TyperException as error:  # usage errors: Typer says what is wrong
        getattr(error, "show", lambda: typer.echo(f"error: {error}", err=True))()
        code = getattr(error, "exit_code", 2)
    except (typer.Abort, KeyboardInterrupt):
        typer.echo(f"interrupted ({signals.name()})", err=True)
        code = signals.exit_code()
    except (LockHeld, DamagedTable, ConfigError, UnknownName, UserError) as error:
        typer.echo(f"error: {error}", err=True)
        code = 1
    except OSError as error:
        where = f" ({error.filename})" if error.filename else ""
        extra = ("; the tables keep their old content" if error.errno == 28 else "")
        typer.echo(f"error: {error.strerror or error}{where}{extra}", err=True)
        code = 1
    except Exception as error:  # a bug: say so in one line, keep the traceback for debugging
        if os.environ.get("PIPELINE_DEBUG"):
            raise
        typer.echo(f"internal error: {type(error).__name__}: {error} (set PIPELINE_DEBUG=1 "
                   "for the traceback)", err=True)
        code = 70
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
