"""`python -m benchmarks`: run the bench sections, print the figures, write the rows.

    python -m benchmarks                  # everything (`make bench`: ~15 min on 2 cores, and
                                          # about an hour more for peers with BAPCtools' packages)
    python -m benchmarks --quick          # a tiny smoke version (`make bench-quick`)
    python -m benchmarks --only growth    # one section (repeatable)
    python -m benchmarks --problem PROBLEM --only max-tests
    python -m benchmarks --only peers --package hello --package fixtures/guess

Sections, in order: `startup`, `max-tests`, `growth`, `ingest`, `throughput`, `overhead`,
`stress`, `dask`, `nightly`, `peers`, `contests` (see their modules; the quick version skips
`nightly`, `peers` runs only the fixture packages there and `contests` four problems of one
contest). Every measurement becomes a row of `DATA/bench/<bench_id>.parquet` (DATA from
`--data-dir`, else `PIPELINE_DATA_DIR`, else `data`); C++ builds are cached under
`DATA/build/`. Scratch files live in a temporary folder removed at the end (`--keep-work`
keeps it). The exit status is 1
when something failed outright (a wrong answer, a crash, a failed build); goals missed are
listed at the end but do not fail the run.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from benchmarks import (
    contests,
    growth,
    ingest,
    maxtests,
    nightly,
    overhead,
    peers,
    startup,
    stress,
    throughput,
    workspace,
)
from benchmarks import dask as dask_section
from benchmarks.common import (
    BenchContext,
    close_launcher,
    fail,
    load_average,
    make_context,
    record,
    say,
    write_rows,
)
from pipeline.problems import all_problems, get_problem, problem_ids

SECTIONS = ("startup", "max-tests", "growth", "ingest", "throughput", "overhead", "stress",
            "dask", "nightly", "peers", "contests")
ALIASES = {"max": "max-tests", "maxtests": "max-tests", "run": "throughput",
           "throughput": "throughput", "growth": "growth", "ingest": "ingest",
           "max-tests": "max-tests", "dask": "dask", "cluster": "dask", "nightly": "nightly",
           "stress": "stress", "peers": "peers", "bapctools": "peers", "overhead": "overhead",
           "containment": "overhead", "startup": "startup", "start": "startup",
           "contests": "contests", "contest": "contests"}


@dataclass(frozen=True)
class Settings:
    """How big each section is: the full bench or the quick smoke version."""

    max_repeats: int
    max_warm_up: bool
    max_breakdown_repeats: int
    growth_sizes_up_to: int | None  # None: the whole ladder
    growth_repeats: int
    growth_cap_s: float
    ingest_small_files: int
    ingest_small_repeats: int
    ingest_max_repeats: int
    ingest_reingest: bool
    run_cases: int
    run_external_cases: int
    run_repeats: int
    run_external_repeats: int
    dask_repeats: int
    nights: int
    stress_budget_s: float
    stress_wrong_budget_s: float
    peer_repeats: int
    overhead_cases: int
    overhead_rounds: int
    startup_rounds: int


FULL = Settings(max_repeats=5, max_warm_up=True, max_breakdown_repeats=3,
                growth_sizes_up_to=None, growth_repeats=3,
                growth_cap_s=1.5, ingest_small_files=10_000, ingest_small_repeats=3,
                ingest_max_repeats=2, ingest_reingest=True,
                run_cases=20_000, run_external_cases=2_000, run_repeats=3,
                run_external_repeats=3, dask_repeats=3, nights=2, stress_budget_s=10.0,
                stress_wrong_budget_s=60.0, peer_repeats=3,
                overhead_cases=50, overhead_rounds=20, startup_rounds=9)
QUICK = Settings(max_repeats=1, max_warm_up=False, max_breakdown_repeats=1,
                 growth_sizes_up_to=5_000, growth_repeats=3,
                 growth_cap_s=0.3, ingest_small_files=400, ingest_small_repeats=1,
                 ingest_max_repeats=1, ingest_reingest=False,
                 run_cases=500, run_external_cases=100, run_repeats=1,
                 run_external_repeats=1, dask_repeats=1, nights=0, stress_budget_s=2.0,
                 stress_wrong_budget_s=5.0, peer_repeats=1,
                 overhead_cases=10, overhead_rounds=3, startup_rounds=2)


def default_run_problem() -> str:
    """The throughput section's problem: the first registered one whose tiny cases the C++
    solution and a `fast` stage both answer."""
    for problem in all_problems():
        names = {s.name for s in problem.stages}
        if "fast" in names and problem.solutions and any(r.kind == "tiny"
                                                           for r in problem.recipes):
            return problem.id
    return problem_ids()[0]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks",
                                     description="gamebench benchmarks (make bench)")
    parser.add_argument("--quick", action="store_true", help="tiny smoke version (< 1 min)")
    parser.add_argument("--only", action="append", default=[], metavar="SECTION",
                        help=f"run only this section (repeatable): {', '.join(SECTIONS)}")
    parser.add_argument("--problem", action="append", default=[], metavar="P",
                        help="only these problems in max-tests, growth and the max corpus")
    parser.add_argument("--package", action="append", default=[], metavar="NAME",
                        help="only these packages in peers (repeatable; a fixture's or "
                        "BAPCtools' test/problems/ name, or fixtures/NAME, bapctools/NAME)")
    parser.add_argument("--bt-all", action="store_true",
                        help="peers: bt runs every case of every submission (`bt run -aa`), as "
                        "the pipeline does, instead of stopping a submission at its first "
                        "failing case")
    parser.add_argument("--fail-fast", action="store_true",
                        help="peers: the pipeline runs with `--fail-fast` (each submission "
                        "stopped at its first failing case, as `bt run` stops it)")
    parser.add_argument("--data-dir", type=Path,
                        default=Path(os.environ.get("PIPELINE_DATA_DIR", "data")),
                        help="bench rows go to DATA/bench/, C++ builds are cached in DATA/build/")
    parser.add_argument("--keep-work", action="store_true", help="keep the scratch folder")
    parser.add_argument("--run-problem", default=default_run_problem(), metavar="P",
                        help="the problem of the throughput section's tiny-case corpus "
                        "(default: %(default)s)")
    args = parser.parse_args(argv)
    sections = []
    for item in args.only:
        for name in item.split(","):
            if name.strip() not in ALIASES:
                parser.error(f"unknown section {name!r}; sections: {', '.join(SECTIONS)}")
            sections.append(ALIASES[name.strip()])
    args.sections = [s for s in SECTIONS if s in sections] if sections else list(SECTIONS)
    unknown = [p for p in args.problem if p not in problem_ids()]
    if unknown:
        parser.error(f"unknown problem {unknown[0]!r}; problems: {', '.join(problem_ids())}")
    args.problems = args.problem or problem_ids()
    if args.run_problem not in problem_ids():
        parser.error(f"unknown problem {args.run_problem!r}; problems: "
                     f"{', '.join(problem_ids())}")
    return args


def _git_dirty() -> bool | None:
    try:
        out = subprocess.run(["git", "status", "--porcelain", "--untracked-files=normal",
                              "pipeline", "configs", "benchmarks"],
                             cwd=Path(__file__).resolve().parents[2], capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return bool(out.stdout.strip()) if out.returncode == 0 else None


def _header(ctx: BenchContext, args: argparse.Namespace) -> None:
    rev = ctx.host.get("git_rev") or "unknown"
    dirty = _git_dirty()
    say(f"gamebench bench {ctx.bench_id}{' (quick)' if ctx.quick else ''}: "
        f"sections {', '.join(args.sections)}")
    say(f"host {ctx.host.get('host')}, {ctx.host.get('cpu_model')}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, git {rev[:12]}"
        f"{' + uncommitted changes' if dirty else ''}")
    say(f"load average at start: {load_average():.2f} (other processes share these cores; "
        "timings move with it)")
    record(ctx, "suite", "load_average_start", load_average(), "procs")


def _section_title(number: int, name: str) -> None:
    say()
    say(f"== {number}. {name} " + "=" * max(0, 70 - len(name)))


def _run_corpus(ctx: BenchContext, settings: Settings, problem: str) -> throughput.RunCorpus:
    """The tiny-case corpus of `throughput` and `dask`, written and ingested once per run."""
    key = ("run_corpus", problem, settings.run_cases)
    if key not in ctx.cache:
        ctx.cache[key] = throughput.run_corpus(ctx, problem, settings.run_cases,
                                               settings.run_external_cases)
    return ctx.cache[key]


def byte_compile() -> None:
    """Byte-compile the package (as a first import of an installed package does), so that no
    timed process compiles Python source: with PYTHONDONTWRITEBYTECODE set, every process would
    otherwise compile each module edited since its last .pyc was written."""
    import compileall

    import pipeline

    if not compileall.compile_dir(Path(pipeline.__file__).parent, quiet=1):
        say("(byte-compiling the package failed; timings include compiling it)")


def run_sections(ctx: BenchContext, args: argparse.Namespace, settings: Settings) -> None:
    """Run the chosen sections; an exception in one is a failure line, the rest still run."""
    data_dir = args.data_dir
    titles = {"startup": "each command's start, with no resident process",
              "max-tests": "max tests: fast vs C++ vs the time limit",
              "growth": "growth of each stage's time with size",
              "ingest": "ingest throughput vs read + hash",
              "throughput": "run throughput, end to end",
              "overhead": "a contained program's fixed cost per case vs bare fork/exec",
              "stress": "stress cases/s and the known-wrong stages found",
              "dask": "runs on a Dask cluster beside the local pool",
              "nightly": "the nightly job on a fresh data folder",
              "peers": "packages judged by pipeline beside BAPCtools (bt run)",
              "contests": "whole contests: pipeline run --contest vs its floor and bt run"}
    for number, section in enumerate(args.sections, start=1):
        _section_title(number, titles[section])
        started = time.perf_counter()
        try:
            if section == "startup":
                startup.run_startup(ctx, settings.startup_rounds)
            elif section == "max-tests":
                tests = workspace.max_tests(ctx, args.problems, ctx.quick)
                binaries = workspace.binaries(ctx, args.problems, data_dir)
                maxtests.run_max_tests(ctx, tests, binaries, settings.max_repeats,
                                       settings.max_warm_up, settings.max_breakdown_repeats)
            elif section == "growth":
                sizes = None
                if settings.growth_sizes_up_to is not None:
                    sizes = {p: [n for n in get_problem(p).growth.sizes
                                 if n <= settings.growth_sizes_up_to]
                             for p in args.problems if get_problem(p).growth}
                growth.run_growth(ctx, args.problems, sizes, settings.growth_repeats,
                                  settings.growth_cap_s)
            elif section == "ingest":
                small = ingest.small_corpus(ctx, settings.ingest_small_files)
                tests = workspace.max_tests(ctx, args.problems, ctx.quick)
                binaries = workspace.binaries(ctx, args.problems, data_dir)
                big = ingest.max_corpus(ctx, tests, binaries)
                ingest.run_ingest(ctx, [(small, settings.ingest_small_repeats,
                                         settings.ingest_reingest),
                                        (big, settings.ingest_max_repeats, False)])
                ingest.run_peak_memory(ctx, tests)
            elif section == "throughput":
                problem = args.run_problem
                binaries = workspace.binaries(ctx, [problem], data_dir)
                corpus = _run_corpus(ctx, settings, problem)
                throughput.run_throughput(ctx, corpus, binaries.get(problem),
                                          settings.run_repeats, settings.run_external_repeats)
            elif section == "overhead":
                overhead.run_overhead(ctx, settings.overhead_cases, settings.overhead_rounds)
            elif section == "stress":
                stress.run_throughput(ctx, args.problems, settings.stress_budget_s)
                stress.run_known_wrong(ctx, args.problems, settings.stress_wrong_budget_s)
            elif section == "dask":
                tests = workspace.max_tests(ctx, args.problems, ctx.quick)
                binaries = workspace.binaries(ctx, args.problems, data_dir)
                dask_section.run_dask(ctx, _run_corpus(ctx, settings, args.run_problem),
                                      dask_section.max_corpus(ctx, tests, binaries), tests,
                                      binaries, settings.dask_repeats,
                                      warm_up=not ctx.quick)
            elif section == "nightly":
                if settings.nights:
                    nightly.run_nightly(ctx, settings.nights)
                    nightly.run_loaded_nightly(ctx)
                else:
                    say("(skipped in the quick version: a night takes minutes)")
            elif section == "peers":
                peers.run_peers(ctx, settings.peer_repeats, ctx.quick, args.package,
                                every_case=args.bt_all, fail_fast=args.fail_fast)
            elif section == "contests":
                contests.run_contests(ctx, ctx.quick)
        except Exception as error:
            fail(ctx, f"section {section} crashed: {type(error).__name__}: {error}")
            traceback.print_exc(file=sys.stdout)
        seconds = time.perf_counter() - started
        record(ctx, section, "section_s", seconds, "s")
        say(f"({section}: {seconds:.0f} s)")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    settings = QUICK if args.quick else FULL
    started = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="gamebench-bench-"))
    ctx = make_context(work, args.data_dir / "bench", quick=args.quick)
    _header(ctx, args)
    byte_compile()
    try:
        run_sections(ctx, args, settings)
    except KeyboardInterrupt:
        fail(ctx, "interrupted")
    finally:
        total = time.perf_counter() - started
        record(ctx, "suite", "total_s", total, "s")
        record(ctx, "suite", "load_average_end", load_average(), "procs")
        close_launcher()
        path = write_rows(ctx)
        if args.keep_work:
            say(f"scratch kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    say()
    say("== summary " + "=" * 70)
    if ctx.failures:
        say(f"{len(ctx.failures)} FAILURES:")
        for text in ctx.failures:
            say(f"  !!! {text}")
    if ctx.missed:
        say(f"{len(ctx.missed)} goals missed:")
        for text in ctx.missed:
            say(f"  - {text}")
    else:
        say("every goal met")
    if ctx.quick:
        say("(quick smoke run: tiny sizes and single runs; `make bench` gives the figures that "
            "count)")
    say(f"load average at end: {load_average():.2f}")
    say(f"{len(ctx.rows)} rows -> {path}")
    say(f"total {total:.0f} s ({total / 60:.1f} min)")
    return 1 if ctx.failures else 0
