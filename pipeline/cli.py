"""The `pipeline` command: the Typer application, its commands in the order help lists them.

Each command declares its options here and makes one call into the layers below or into
`pipeline.commands`, or is declared where it is done (`commands.reporting`, `running`,
`searching`). Heavy modules (polars, pyarrow) are imported inside the commands that need them,
so a command starts fast.
"""

from __future__ import annotations

import copy
import functools
import io
import sys
from pathlib import Path
from typing import Annotated

import typer

from pipeline.commands.common import fail, find_problem, make_data_dir, need_data, report_runs, say
from pipeline.commands.options import (
    Command,
    EveryProblemOption,
    ExecutorOption,
    ExternalOption,
    Group,
    NoWaitOption,
    RunJobsOption,
    RunsOption,
    SandboxOption,
    SchedulerOption,
    Settings,
    complete_problem,
    decide_sandbox,
    examples,
    within,
)
from pipeline.commands.options import jobs as check_jobs
from pipeline.commands.reporting import compare_command, query_command, strength_command
from pipeline.commands.running import nightly_command
from pipeline.commands.searching import harden_command, hunt_command, stress_command
from pipeline.errors import UnknownName, UserError

app = typer.Typer(
    cls=Group,
    rich_markup_mode="markdown",
    add_completion=True,
    no_args_is_help=True,
    help="gamebench: check solutions of combinatorial-game problems over test corpora.",
    epilog=examples("pipeline problems", "pipeline --data-dir /tmp/d ingest",
                    "pipeline COMMAND --help", "pipeline --install-completion"),
    pretty_exceptions_enable=False,
)


@app.callback()
def _options(
    ctx: typer.Context,
    data_dir: Annotated[Path, typer.Option(
        "--data-dir", envvar="PIPELINE_DATA_DIR", metavar="DIR",
        help="Where raw corpora and tables live (a relative path is from the current "
        "folder).")] = Path("data"),
    problems_dir: Annotated[list[Path] | None, typer.Option(
        "--problems-dir", metavar="DIR", help="A folder of extra problems, one folder each "
        "(repeatable; also PIPELINE_PROBLEMS_DIR; default: the built-in problems only).")] = None,
) -> None:
    from pipeline.problems import add_problem_dirs

    if ctx.invoked_subcommand not in ("solve", "problems") and data_dir.exists() \
            and not data_dir.is_dir():
        fail(f"the data folder {data_dir} is not a folder (--data-dir DIR or "
             "PIPELINE_DATA_DIR names another)")
    # Packages registered in the data folder are problems too.
    add_problem_dirs([*(problems_dir or []), data_dir / "problems"])
    source = ctx.get_parameter_source("data_dir")  # given, or from the environment
    named = source is not None and source.name != "DEFAULT"
    ctx.obj = Settings(data_dir=data_dir, problems_dirs=tuple(problems_dir or ()),
                       data_dir_named=named)


@app.command("problems", cls=Command, epilog=examples("pipeline problems"))
def problems_command(ctx: typer.Context) -> None:
    """List the problems (built-in, --problems-dir, and packages registered in the data
    folder) with their limits, stages, own programs and recipes; a contest's problems under
    its name."""
    from pipeline.commands.contest import list_problems
    from pipeline.tables.layout import no_data_folder

    if ctx.obj.data_dir_named:  # listing needs no data folder: a missing one named is noted
        if missing := no_data_folder(ctx.obj.data_dir):
            say(f"note: {missing}; no package registered in it is listed", err=True)
    list_problems(ctx.obj)


@app.command("solve", cls=Command, add_help_option=False,
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


@app.command("generate", cls=Command, epilog=examples(
    "pipeline generate PROBLEM --recipe RECIPE --count 200 --seed 7",
    "pipeline generate PROBLEM --recipe RECIPE --out corpus/ --expected-from STAGE",
    "(pipeline problems lists each problem's recipes and stages)"))
def generate_command(
    ctx: typer.Context,
    problem_id: Annotated[str, typer.Argument(
        metavar="PROBLEM", help="Problem id.", autocompletion=complete_problem)],
    recipe: Annotated[str, typer.Option("--recipe", "-r", metavar="RECIPE",
                                        help="Recipe name.")],
    count: Annotated[int, typer.Option("--count", "-n", min=1, metavar="N",
                                       help="How many cases.")] = 10,
    seed: Annotated[int, typer.Option("--seed", metavar="SEED", help="Random seed.")] = 1,
    out: Annotated[Path | None, typer.Option(
        "--out", metavar="DIR",
        help="Folder (default: DATA/raw/PROBLEM/generated/RECIPE).")] = None,
    expected_from: Annotated[str, typer.Option(
        "--expected-from", metavar="STAGE",
        help="Stage that writes NAME.out (when within its limits).")] = "brute",
) -> None:
    """Write seeded cases of a recipe as NNN.in (+ NNN.out) with a manifest."""
    from pipeline.corpus.generate import generate

    problem = find_problem(problem_id, ctx.obj.data_dir)
    target = out or ctx.obj.data_dir / "raw" / problem.id / "generated" / recipe
    try:
        if out is None:
            problem.recipe(recipe)  # an unknown recipe makes no data folder either
            make_data_dir(ctx.obj.data_dir)
        manifest = generate(problem, recipe, count, seed, target, expected_from)
    except UnknownName as error:
        fail(str(error))
    with_expected = sum(case.expected for case in manifest.cases)
    say(f"wrote {count} cases of {problem.id}/{recipe} (seed {seed}) to {target}; "
        f"{with_expected} with expected output from {expected_from}")


@app.command("ingest", cls=Command, epilog=examples(
    "pipeline ingest",
    "pipeline ingest ~/judge/PROBLEM.zip",
    "pipeline ingest tests/ --problem PROBLEM"))
def ingest_command(
    ctx: typer.Context,
    paths: Annotated[list[Path] | None, typer.Argument(
        metavar="PATH", help="Roots to ingest (default: DATA/raw and every problem's "
        "samples).")] = None,
    problem_id: Annotated[str | None, typer.Option(
        "--problem", "-p", metavar="PROBLEM", autocompletion=complete_problem,
        help="Treat every file as this problem's (default: the first folder under a root "
        "names the problem).")] = None,
    allow_rejects: Annotated[bool, typer.Option(
        "--allow-rejects", help="Exit 0 even when some files were rejected.")] = False,
    max_file_mb: Annotated[float, typer.Option(
        "--max-file-mb", metavar="MB", callback=within(0.001),
        help="Refuse files (and archive members) larger than this.")] = 256,
    jobs: Annotated[int | None, typer.Option(
        "--jobs", "-j", min=1, metavar="N", callback=check_jobs,
        help="Processes validating files (default: the number of cores).")] = None,
    no_wait: NoWaitOption = False,
    sandbox: SandboxOption = "auto",
) -> None:
    """Find, validate and store every test case under PATH in the cases table."""
    from pipeline.corpus.ingest import default_roots, format_summary, ingest, nothing_stored_reason
    from pipeline.progress import progress_bar

    roots = paths or default_roots(ctx.obj.data_dir)
    if missing := next((root for root in roots if not root.exists()), None):
        fail(f"{missing} does not exist")
    contests: list = []
    names: dict[Path, str] = {}  # a contest's package folder -> the problem it registers as
    if paths and problem_id is None:  # a contest is read as its problems' package folders
        from pipeline.commands.contest import contest_roots

        roots, contests, names = contest_roots(roots, ctx.obj.data_dir)
    from pipeline.programs.contained import hide

    decide_sandbox(sandbox)  # a package's builds, validators and generators
    make_data_dir(ctx.obj.data_dir)
    hide(ctx.obj.data_dir)  # validators and generators never see the stored answers
    summary = ingest(ctx.obj.data_dir, roots, problem_id, progress_bar("ingest"), jobs=jobs,
                     max_file_mb=max_file_mb, wait=not no_wait, names=names)
    if text := format_summary(summary):
        say(text)
    if contests:
        from pipeline.commands.contest import record_ingested

        say("\n".join(record_ingested(ctx.obj, contests, summary, wait=not no_wait,
                                       names=names)))
    if reason := nothing_stored_reason(summary, roots):
        fail(f"nothing ingested: {reason}", code=1)
    if summary.rejected and not allow_rejects:
        raise typer.Exit(1)


app.command("query", cls=Command, epilog=examples(
    'pipeline query "SELECT solver, verdict, count(*) AS n FROM results GROUP BY 1, 2"',
    'pipeline query "SELECT source, line, rule, message FROM rejects" --format csv',
    'pipeline query "SELECT * FROM runs" --format parquet --out runs.parquet'))(query_command)


@app.command("run", cls=Command, epilog=examples(
    "pipeline run --problem PROBLEM",
    "pipeline run --problem PROBLEM --solver fast --group GROUP --repeat 3",
    "pipeline run --problem PROBLEM --external mine=./mine --solver mine --jobs 2",
    "pipeline run --problem PROBLEM --resume RUN_ID",
    "pipeline run --problem PROBLEM --fail-fast",
    "cd PACKAGE && pipeline run",
    "pipeline run submissions/accepted/sol.py --fail-fast",
    "pipeline run --contest CONTEST"))
def run_command(
    ctx: typer.Context,
    paths: Annotated[list[Path] | None, typer.Argument(
        metavar="SUBMISSION", show_default=False,
        help="Judge just these submissions of a package, named by their paths (default: "
        "every solver).")] = None,
    problem_id: Annotated[str | None, typer.Option(
        "--problem", "-p", metavar="PROBLEM", autocompletion=complete_problem,
        help="Problem id (default: the package holding the current folder, or the "
        "SUBMISSIONs; --contest runs a contest's).")] = None,
    solver: Annotated[list[str] | None, typer.Option(
        "--solver", "-s", metavar="NAME", help="A stage, configured solver or submission to "
        "keep, a submission also by its path (submissions/accepted/sol.py) (repeatable; "
        "default: every stage and configured solver).")] = None,
    external: ExternalOption = None,
    group: Annotated[str | None, typer.Option(
        "--group", metavar="GROUP", help="Only cases of this group (default: every "
        "case).")] = None,
    jobs: RunJobsOption = None,
    timeout: Annotated[float | None, typer.Option(
        "--timeout", metavar="SEC", callback=within(0, 86400, low_included=False),
        help="Seconds per case (default: the problem's time limit).")] = None,
    memory: Annotated[int | None, typer.Option(
        "--memory", min=0, max=1 << 30, metavar="MB", help="Memory limit in MB of external "
        "programs (default: the problem's, 512 where it has none; 0: no limit).")] = None,
    stack: Annotated[int | None, typer.Option(
        "--stack", min=0, max=1 << 30, metavar="MB", help="Stack limit in MB of external "
        "programs (default: the memory limit, as judges set it; 0: unlimited).")] = None,
    sandbox: SandboxOption = "auto",
    repeat: Annotated[int, typer.Option("--repeat", min=1, max=1000, metavar="K",
                                        help="Runs per case.")] = 1,
    resume: Annotated[str | None, typer.Option(
        "--resume", metavar="RUN_ID", help="Finish this killed run (default: a new "
        "run).")] = None,
    no_wait: NoWaitOption = False,
    fail_fast: Annotated[bool, typer.Option(
        "--fail-fast", help="Stop each solver at its first failing case: its other cases are "
        "stored as SKIP, and a package's submission is held to the cases it ran (as `bt "
        "run` does by default).")] = False,
    executor_kind: ExecutorOption = "local",
    scheduler: SchedulerOption = None,
    contest: Annotated[str | None, typer.Option(
        "--contest", metavar="CONTEST", help="Judge every problem of this contest (as `pipeline "
        "ingest CONTEST_DIR` recorded it) and print one summary (default: none: --problem's "
        "only).")] = None,
) -> None:
    """Run solver stages and external programs over the stored cases of a problem (or of
    every problem of a contest).

    A package is judged as it is on disk: one whose folder changed since it was registered is
    registered again first, saying so in one line. Inside a package's folder, --problem may be
    left out (the data folder is then the nearest data/ above unless named).
    """
    from pipeline.commands.running import run

    if contest is not None:  # each problem is run whole, at its own time limit
        from pipeline.commands.contest import run_contest

        given = [option for option, value in (
            ("--problem", problem_id), ("--solver", solver), ("--external", external),
            ("--group", group), ("--timeout", timeout), ("--resume", resume)) if value]
        if given:
            fail(f"--contest runs every problem whole, at its own time limit: leave out "
                 f"{', '.join(given)} (or run one problem with --problem)")
        run_contest(ctx.obj, name=contest, jobs=jobs, memory=memory, stack=stack,
                    sandbox=sandbox, repeat=repeat, no_wait=no_wait, fail_fast=fail_fast,
                    executor_kind=executor_kind, scheduler=scheduler)
        return
    run(ctx.obj, problem_id=problem_id, solver=solver, external=external, group=group, jobs=jobs,
        timeout=timeout, memory=memory, stack=stack, sandbox=sandbox, repeat=repeat,
        resume=resume, no_wait=no_wait, fail_fast=fail_fast, executor_kind=executor_kind,
        scheduler=scheduler, paths=paths)


@app.command("slow", cls=Command, epilog=examples(
    "pipeline slow",
    "pipeline slow --problem PROBLEM --solver fast --top 10",
    "pipeline slow --run RUN_ID"))
def slow_command(
    ctx: typer.Context,
    problem_id: EveryProblemOption = None,
    solver: Annotated[str | None, typer.Option(
        "--solver", "-s", metavar="NAME", help="Only this solver (default: every "
        "solver).")] = None,
    run_ids: RunsOption = None,
    top: Annotated[int, typer.Option("--top", "-n", min=1, metavar="N",
                                     help="How many cases.")] = 20,
) -> None:
    """The slowest cases: size, median wall/CPU ms, share of the time limit, verdict, and the
    case's source and groups."""
    from pipeline.report.slow import format_slow, slow_cases

    runs = report_runs(ctx.obj.data_dir, run_ids, problem_id)
    if runs:
        say(format_slow(slow_cases(ctx.obj.data_dir, problem_id, solver, runs, top)))


@app.command("mismatches", cls=Command, epilog=examples(
    "pipeline mismatches",
    "pipeline mismatches --problem PROBLEM --top 3",
    "pipeline mismatches --all --run RUN_ID"))
def mismatches_command(
    ctx: typer.Context,
    problem_id: EveryProblemOption = None,
    run_ids: RunsOption = None,
    top: Annotated[int | None, typer.Option(
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

    runs = report_runs(ctx.obj.data_dir, run_ids, problem_id)
    if runs:
        say(format_mismatches(find_mismatches(ctx.obj.data_dir, problem_id, runs),
                              top=top, show_all=show_all, run_ids=runs))


app.command("compare", cls=Command, epilog=examples(
    "pipeline compare",
    "pipeline compare --problem PROBLEM",
    "pipeline compare BASE_RUN NEW_RUN --ratio 2 --min-diff-ms 20",
    "pipeline compare RUN --solver fast --against brute"))(compare_command)
app.command("strength", cls=Command, epilog=examples(
    "pipeline strength --problem PROBLEM",
    "pipeline strength --run RUN_ID --format json"))(strength_command)


@app.command("report", cls=Command, epilog=examples(
    "pipeline report",
    "pipeline report --out report.html",
    "pipeline report --run RUN_ID --run OTHER_RUN_ID",
    "pipeline report --contest CONTEST"))
def report_command(
    ctx: typer.Context,
    run_ids: RunsOption = None,
    out: Annotated[Path | None, typer.Option(
        "--out", metavar="FILE",
        help="HTML file (default: DATA/reports/report-TIMESTAMP.html).")] = None,
    contest: Annotated[str | None, typer.Option(
        "--contest", metavar="CONTEST", help="A contest `pipeline ingest` recorded: the "
        "latest finished run of each of its problems (default: none; every problem).")] = None,
) -> None:
    """Write one self-contained HTML report (verdicts, comparison, growth, nightly history,
    slowest cases, mismatches)."""
    from pipeline.report.html import write_report

    need_data(ctx.obj.data_dir)
    if contest is not None:
        from pipeline.commands.contest import contest_runs

        if run_ids:
            fail("--contest reports the latest run of each of its problems: leave out --run")
        run_ids = contest_runs(ctx.obj, contest)
    try:
        path = write_report(ctx.obj.data_dir, run_ids, out)
    except (UnknownName, UserError) as error:
        fail(str(error))
    say(f"report: {path}")


app.command("nightly", cls=Command, epilog=examples(
    "pipeline nightly",
    "pipeline nightly --jobs 2 --config my-nightly.toml",
    "pipeline nightly --contest CONTEST"))(nightly_command)


@app.command("doctor", cls=Command, epilog=examples(
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
    from pipeline.tables.doctor import examine, format_examination
    from pipeline.tables.doctor import fix as fix_folder

    data_dir = ctx.obj.data_dir
    need_data(data_dir)
    found = examine(data_dir)
    say(format_examination(found, data_dir))
    if found.healthy:
        return
    if not fix:
        say("run `pipeline doctor --fix` to set it right", err=True)
        raise typer.Exit(1)
    target = fix_folder(data_dir, found, wait=not no_wait)
    if target is not None:
        say(f"moved {len(found.damaged) + len(found.leftovers)} files to {target}")
    if found.dead_runs:
        say(f"marked {len(found.dead_runs)} runs interrupted")


app.command("stress", cls=Command, epilog=examples(
    "pipeline stress --problem PROBLEM --solver fast",
    "pipeline stress --problem PROBLEM --solver mine --external mine=./mine --budget 5m",
    "pipeline stress --problem PROBLEM --solver STAGE --against brute --recipe 'tiny*' "
    "--stop-after 3",
    "pipeline stress --problem PACKAGE --solver solutions/mine.cpp "
    "--generator 'gen 10 100 {seed}'"))(stress_command)
app.command("harden", cls=Command, epilog=examples(
    "pipeline harden --problem PROBLEM",
    "pipeline harden --problem PACKAGE --solver wrong_answer/int32.c "
    "--generator 'gen 10 100 {seed}' --budget 2m"))(harden_command)
app.command("hunt", cls=Command, epilog=examples(
    "pipeline hunt --problem PROBLEM --solver fast --size 20000",
    "pipeline hunt --problem PROBLEM --solver mine --external mine=./mine --budget 10m"))(
    hunt_command)


def main(argv: list[str] | None = None) -> None:
    """Run the command line, ended as `commands.common.run_app` ends it."""
    from pipeline.commands.common import run_app

    run_app(app_for(sys.argv[1:] if argv is None else argv), argv)


def app_for(argv: list[str]) -> typer.Typer:
    """The application with only the command that `argv` invokes (Typer reads the options of
    every command it holds at each start); the whole application when no word names one (the
    help, shell completion, and the error that lists the commands)."""
    taking_a_value = _root_options_taking_a_value()
    words = iter(argv)
    for word in words:
        if word == "--":
            word = next(words, "")
        elif word.startswith("-"):
            if word in taking_a_value:  # `--data-dir DIR`: the next word is its value
                next(words, None)
            continue
        named = [command for command in app.registered_commands if command.name == word]
        if not named:
            return app
        bare = copy.copy(app)
        bare.registered_commands = named
        return bare
    return app


@functools.cache
def _root_options_taking_a_value() -> frozenset[str]:
    """The root options followed by a value (`--data-dir`), read once per process."""
    import typer.main

    root = copy.copy(app)
    root.registered_commands = []
    return frozenset(name for param in typer.main.get_group(root).params
                     if not getattr(param, "is_flag", False) and not getattr(param, "count", 0)
                     for name in (*param.opts, *param.secondary_opts))


if __name__ == "__main__":
    main()
