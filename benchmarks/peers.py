"""`peers`: `pipeline run` beside BAPCtools' `bt run` on the same packages, back to back.

Problem setters judge packages with BAPCtools today, so this section runs both tools on each
package, alternating which goes first, `repeats` times, and reports the medians of wall and CPU
time (each tool's process and everything it waited for), the ratio pipeline/bt and whether the
two agree on every submission's verdict.

- BAPCtools is the `bt` command named by `BAPCTOOLS_BT`, else a `bt` on PATH, else the
  `bapctools` package from PyPI, installed by this section into a virtualenv of its own
  (`.bench/bapctools-venv`, never the project's); when none is found and it cannot be installed
  the section says so and skips.
- The packages: the project's fixture packages (`tests/fixtures/packages/`) and, when a git
  snapshot of RagnarGrootKoerkamp/BAPCtools is on this machine (`PIPELINE_BAPCTOOLS_GIT`, else
  under the folder `GAMEBENCH_SNAPSHOTS` names), the packages of its `test/problems/`, with
  what their links name outside them (`validation.h`) copied in, as `bt zip` exports a
  package. The bench fetches nothing: without the snapshot it says so and runs the fixtures only.
- Each tool gets a fresh copy of the package, the pipeline a fresh data folder and bt a fresh
  TMPDIR (where it keeps its builds): neither finds the builds of an earlier run. bt reads
  only the 2025-09 format: a package in another is upgraded with `bt upgrade` in bt's copy
  before the clock starts (as a bt user would); a package bt still judges nothing of is
  reported and not compared.
- The goals: `pipeline run` against `bt run` (0.7x), and `pipeline ingest` + `pipeline run`
  against `bt generate` + `bt run` (1.0x). A package's data made by its generators.yaml is made
  by `bt generate` before bt's run (`bt run` would make it itself first, as it does without
  `-G`) and by the pipeline's ingest; each is timed, and the first goal leaves both out.
- With `--fail-fast` (as `make bench` runs it), also each package's run against its floor
  (`benchmarks.floor`, from what the run recorded: at most 1.15x) and the share of its wall
  time the cores were busy with its programs (at least 85%).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.common import (
    BenchContext,
    ProcessRun,
    goal,
    load_average,
    median,
    pipeline_argv,
    record,
    say,
    spawn_timed,
)
from benchmarks.floor import BUSY_GOAL, FLOOR_GOAL, Floor, measured_floor
from pipeline.packages.expectations import kattis_class

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "packages"
BT_VENV = ROOT / ".bench" / "bapctools-venv"
DEFAULT_SNAPSHOT = (Path(os.environ.get("GAMEBENCH_SNAPSHOTS") or "/nonexistent")
                    / "RagnarGrootKoerkamp+BAPCtools" / "repo")
RUN_GOAL = 0.7         # pipeline run / bt run, ingest excluded
BT_FORMAT = "2025-09"  # the one problem_format_version bt reads; others get `bt upgrade` first
WITH_INGEST_GOAL = 1.0  # (pipeline ingest + run) / bt run
# bt's verdict words in our vocabulary (pipeline/verdicts.py).
BT_VERDICTS = {"ACCEPTED": "AC", "AC": "AC", "WRONG_ANSWER": "WA", "WA": "WA",
               "TIME_LIMIT_EXCEEDED": "TLE", "TLE": "TLE", "RUN_TIME_ERROR": "RE", "RTE": "RE",
               "COMPILER_ERROR": "CE", "CE": "CE", "VALIDATOR_CRASH": "JE"}
_BT_LINE = re.compile(r"^\s*((?:accepted|wrong_answer|time_limit_exceeded|run_time_error|"
                      r"rejected|mixed|[\w.-]+)/[^\s:]+):\s+([A-Z_]+)(?![A-Za-z_])",
                      re.MULTILINE)  # `TLE14.026s`: bt's duration column can touch the verdict
# A row of the expectations table: submission, expected (words and spaces: DOMjudge's
# `@EXPECTED_RESULTS@: CORRECT, WRONG-ANSWER`), got, and agree (yes, NO, judge-error, skipped).
_PIPELINE_LINE = re.compile(r"^\s{4}(\S+/\S+)\s+.*?\s([A-Z]+)\s+(yes|NO|judge-error|skipped)\b",
                            re.MULTILINE)


@dataclass(frozen=True)
class Timed:
    run: ProcessRun
    verdicts: dict[str, str]
    made: ProcessRun | None = None  # bt: its `bt generate` before the run (None: none ran)
    time_limit_s: float | None = None  # the limit the tool judged at, as it printed it
    floor: Floor | None = None  # the pipeline's, with --fail-fast: what its programs needed


# The time limit each tool says it judges at: bt's `Run: using timelimit: 1.0s`, the
# pipeline's summary line `  time limit 7 s: ...`.
_BT_LIMIT = re.compile(r"using timelimit:\s*([0-9.]+)s")
_PIPELINE_LIMIT = re.compile(r"^\s*time limit ([0-9.]+) s\b", re.MULTILINE)


def judged_limit(pattern: re.Pattern, text: str) -> float | None:
    """The time limit `text` (a tool's output) says it judged at (None: it says none)."""
    found = pattern.search(text)
    return float(found.group(1)) if found else None


def bapctools(ctx: BenchContext) -> Path | None:
    """The `bt` command: `BAPCTOOLS_BT`, else `bt` on PATH, else the bench's own BAPCtools
    virtualenv (installed on first use)."""
    named = os.environ.get("BAPCTOOLS_BT")
    if named:
        if Path(named).is_file() and os.access(named, os.X_OK):
            return Path(named)
        say(f"(BAPCTOOLS_BT={named} is no executable file; looking for bt elsewhere)")
    on_path = shutil.which("bt")
    if on_path:
        return Path(on_path)
    bt = BT_VENV / "bin" / "bt"
    if bt.exists():
        return bt
    say(f"installing bapctools from PyPI into {BT_VENV} (the bench's own virtualenv)")
    try:
        subprocess.run([sys.executable, "-m", "venv", str(BT_VENV)], check=True,
                       capture_output=True, timeout=300)
        subprocess.run([str(BT_VENV / "bin" / "python"), "-m", "pip", "install", "--quiet",
                        "bapctools"], check=True, capture_output=True, timeout=900)
    except (OSError, subprocess.SubprocessError) as error:
        say(f"(peers skipped: bapctools could not be installed: {error})")
        shutil.rmtree(BT_VENV, ignore_errors=True)
        return None
    return bt if bt.exists() else None


def snapshot_packages(work: Path) -> list[Path]:
    """BAPCtools' `test/problems/` packages from a local git snapshot ([] when absent)."""
    git_dir = Path(os.environ.get("PIPELINE_BAPCTOOLS_GIT", DEFAULT_SNAPSHOT))
    if not git_dir.is_dir():
        say(f"(no BAPCtools snapshot at {git_dir}: its test/problems/ packages are skipped; "
            "set PIPELINE_BAPCTOOLS_GIT to a git directory of RagnarGrootKoerkamp/BAPCtools)")
        return []
    target = work / "bapctools"
    target.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", f"--git-dir={git_dir}", "archive", "HEAD", "test/problems",
                              "bapctools/resources/headers"], capture_output=True, timeout=120)
    if archive.returncode != 0:
        say(f"(the BAPCtools snapshot could not be read: {archive.stderr.decode()[:200]})")
        return []
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    folder = target / "test" / "problems"
    packages = sorted(p for p in folder.iterdir() if (p / "problem.yaml").is_file())
    for package in packages:  # as `bt zip` exports them: what links lead out of, copied in
        for link in [p for p in package.rglob("*") if p.is_symlink()]:
            named = link.resolve()
            if named.is_file() and package.resolve() not in named.parents:
                link.unlink()
                shutil.copyfile(named, link)
    return packages


def fixture_packages() -> list[Path]:
    return sorted(p for p in FIXTURES.iterdir()
                  if (p / "problem.yaml").is_file() or (p / "problem.xml").is_file())


def _fresh_copy(package: Path, where: Path) -> Path:
    if where.exists():
        shutil.rmtree(where)
    shutil.copytree(package, where, symlinks=True)
    return where


def _output(run_dir: Path) -> str:
    path = run_dir / "stdout.txt"
    return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""


def bt_copy(bt: Path, source: Path, scratch: Path) -> tuple[Path, dict[str, str]]:
    """A fresh copy of `source` (a package, or a contest of them) for bt, upgraded to the
    format bt reads (`bt upgrade`, where a package is in another), and the environment bt runs
    in: `bt` on PATH, a fresh TMPDIR."""
    copy = _fresh_copy(source, scratch / "bt" / source.name)
    # bt keeps its builds in TMPDIR/bapctools_<hash of the folder>/: a fresh TMPDIR each time,
    # shared by its generate and its run, as the pipeline gets a fresh data folder shared by
    # its ingest and its run (else bt's builds of one repetition served the next ones)
    temporary = scratch / "bt-tmp"
    shutil.rmtree(temporary, ignore_errors=True)
    temporary.mkdir(parents=True)
    env = {**os.environ, "PATH": f"{bt.parent}:{os.environ.get('PATH', '')}",
           "TMPDIR": str(temporary)}
    packages = [copy] if (copy / "problem.yaml").is_file() else \
        [p for p in copy.iterdir() if (p / "problem.yaml").is_file()]
    if any(_format_version(p) not in (None, BT_FORMAT) for p in packages):  # bt reads 2025-09
        subprocess.run([str(bt), "upgrade", "--no-bar"], cwd=copy, capture_output=True,
                       env=env, timeout=1800)
    return copy, env


def run_bt(bt: Path, package: Path, scratch: Path, every_case: bool = False,
           time_limit_s: float | None = None) -> Timed:
    """One `bt run` of a fresh copy of `package`; `every_case`: `bt run -aa`, every case of
    every submission (by default bt stops a submission at its first failing case);
    `time_limit_s`: `bt run -t`, judged at that limit rather than the package's own or bt's
    default."""
    copy, env = bt_copy(bt, package, scratch)
    made = None
    if (copy / "generators" / "generators.yaml").exists():
        made = spawn_timed([str(bt), "generate", "--no-bar"], stdout=scratch / "bt-generate.txt",
                           cwd=copy, env=env, stderr=scratch / "bt-generate-stderr.txt")
    out, err = scratch / "bt-stdout.txt", scratch / "bt-stderr.txt"
    run = spawn_timed([str(bt), "run", "--no-bar", *(["-aa"] if every_case else []),
                       *(["-t", f"{time_limit_s:g}"] if time_limit_s is not None else [])],
                      stdout=out, cwd=copy, env=env, stderr=err)
    # bt writes its verdict lines to stderr: all of it is read, not only its tail
    text = out.read_text(encoding="utf-8", errors="replace") + \
        err.read_text(encoding="utf-8", errors="replace")
    return Timed(run, bt_verdicts(text), made, judged_limit(_BT_LIMIT, text))


def bt_verdicts(text: str) -> dict[str, str]:
    """Each submission's verdict in the output of `bt run --no-bar` (its last line naming the
    submission is its summary), in our vocabulary; the conformance test reads bt with it too."""
    return {name: BT_VERDICTS.get(word, word) for name, word in _BT_LINE.findall(text)}


def _format_version(package: Path) -> str | None:
    """The problem_format_version line of a package's problem.yaml (None: none)."""
    path = package / "problem.yaml"
    if not path.is_file():
        return None
    found = re.search(r"^problem_format_version:\s*['\"]?([\w.-]+)", path.read_text(
        encoding="utf-8", errors="replace"), re.MULTILINE)
    return found.group(1) if found else "legacy"


def run_pipeline(package: Path, scratch: Path,
                 fail_fast: bool = False) -> tuple[ProcessRun, Timed]:
    copy = _fresh_copy(package, scratch / "pipeline" / package.name)
    data = scratch / "pipeline-data"
    shutil.rmtree(data, ignore_errors=True)
    command = [*pipeline_argv(), "--data-dir", str(data)]
    ingest = spawn_timed([*command, "ingest", "--allow-rejects", str(copy)],
                         stdout=scratch / "ingest-stdout.txt")
    out = scratch / "pipeline-stdout.txt"
    started = time.time()
    run = spawn_timed([*command, "run", "--problem", package.name,
                       *(["--fail-fast"] if fail_fast else [])], stdout=out)
    text = out.read_text(encoding="utf-8", errors="replace")
    # the floor's chains are those of --fail-fast (a submission stopped at its first failure)
    return ingest, Timed(run, {name: got for name, got, _ in _PIPELINE_LINE.findall(text)},
                         time_limit_s=judged_limit(_PIPELINE_LIMIT, text),
                         floor=measured_floor(data, started) if fail_fast else None)


def against_floor(ctx: BenchContext, name: str, bt_mode: str, walls: list[float],
                  floors: list[Floor]) -> None:
    """A package's `pipeline run --fail-fast` against its floor and how busy it kept the
    cores: the medians over its runs, each run against the floor it recorded. Where the floor
    is the longest chain, not the CPU time over the cores, no run keeps the cores busier than
    the CPU time over (cores x chain): the busy goal is 85% of that bound."""
    cores = os.cpu_count() or 1
    floor_s = median([floor.floor_s(cores) for floor in floors])
    ratio = median([wall / floor.floor_s(cores) if floor.floor_s(cores) else float("inf")
                    for wall, floor in zip(walls, floors)])
    busy = median([floor.cpu_s / (wall * cores) if wall else 0.0
                   for wall, floor in zip(walls, floors)])
    bound = median([floor.cpu_s / (cores * floor.floor_s(cores)) if floor.floor_s(cores)
                    else 1.0 for floor in floors])
    chain = median([floor.chain_s for floor in floors])
    cpu = median([floor.cpu_s for floor in floors])
    say(f"    floor {floor_s:.2f} s (longest chain {chain:.2f} s, programs' CPU {cpu:.2f} s / "
        f"{cores} cores): run {ratio:.2f}x it, cores busy {busy:.0%}"
        f"{f' (the chain allows at most {bound:.0%})' if bound < 1 else ''}")
    for metric, value, unit in (("floor_s", floor_s, "s"), ("chain_s", chain, "s"),
                                ("programs_cpu_s", cpu, "s"), ("ratio_floor", ratio, "x"),
                                ("busy_share", busy, "share"), ("busy_bound", bound, "share")):
        record(ctx, "peers", metric, value, unit, problem=name, recipe=bt_mode)
    goal(ctx, "peers/floor", ratio <= FLOOR_GOAL,
         f"{name}: pipeline run --fail-fast {ratio:.2f}x its floor (goal {FLOOR_GOAL}x)",
         problem=name)
    goal(ctx, "peers/busy", busy >= BUSY_GOAL * bound,
         f"{name}: cores busy {busy:.0%} (goal {BUSY_GOAL:.0%}"
         f"{f' of the {bound:.0%} its chain allows' if bound < 1 else ''})", problem=name)


def chosen_packages(packages: list[Path], names: list[str] | None) -> list[Path]:
    """The packages named in `names` (all when None or empty), in the order given; a fixture
    package and a BAPCtools one of the same name are both kept. `bapctools/guess` or
    `fixtures/guess` picks one of them."""
    if not names:
        return packages
    chosen = []
    for name in names:
        where, _, short = name.rpartition("/")
        found = [p for p in packages if p.name == short and (
            not where or (where == "fixtures") == (p.parent == FIXTURES))]
        if not found:
            say(f"(peers: no package {name!r} here; skipped)")
        chosen += [p for p in found if p not in chosen]
    return chosen


def run_peers(ctx: BenchContext, repeats: int, quick: bool,
              names: list[str] | None = None, every_case: bool = False,
              fail_fast: bool = False) -> None:
    bt = bapctools(ctx)
    if bt is None:
        return
    _run_peers(ctx, bt, repeats, quick, names, every_case, fail_fast)


def _run_peers(ctx: BenchContext, bt: Path, repeats: int, quick: bool, names: list[str] | None,
               every_case: bool, fail_fast: bool) -> None:
    # the snapshot is read in the full bench, or when a package was named
    snapshot = [] if quick and not names else snapshot_packages(ctx.work_dir / "peers")
    packages = chosen_packages(fixture_packages() + snapshot, names)
    scratch = ctx.work_dir / "peers-scratch"
    # the rows' recipe column says which pairing ran
    bt_mode = ("bt run -aa" if every_case else "bt run") + (
        " / pipeline --fail-fast" if fail_fast else "")
    say(f"{len(packages)} packages, {repeats} alternating runs of each tool, medians "
        "(wall and CPU of the whole command; pipeline's ingest reported apart)")
    say(f"bt: {bt}{' run -aa (every case)' if every_case else ' run'}; pipeline run"
        f"{' --fail-fast (each submission stopped at its first failure)' if fail_fast else ''}"
        f"; load average {load_average():.2f}")
    say(f"{'package':<24} {'bt wall':>8} {'run wall':>9} {'ratio':>6} {'+ingest':>8} "
        f"{'bt cpu':>7} {'run cpu':>8}  verdicts")
    for package in packages:
        name = package.name if package.parent == FIXTURES else f"bapctools/{package.name}"
        bt_runs: list[Timed] = []
        ours: list[tuple[ProcessRun, Timed]] = []
        for repeat in range(repeats):
            order = ("bt", "pipeline") if repeat % 2 == 0 else ("pipeline", "bt")
            for tool in order:
                scratch.mkdir(parents=True, exist_ok=True)
                if tool == "bt":
                    bt_runs.append(run_bt(bt, package, scratch, every_case))
                else:
                    ours.append(run_pipeline(package, scratch, fail_fast))
        bt_wall = median([t.run.wall_s for t in bt_runs])
        bt_cpu = median([t.run.cpu_s for t in bt_runs])
        run_wall = median([t.run.wall_s for _, t in ours])
        run_cpu = median([t.run.cpu_s for _, t in ours])
        ingest_wall = median([i.wall_s for i, _ in ours])
        # what bt spent making the data from generators.yaml (the pipeline's ingest makes it)
        bt_made_wall = median([t.made.wall_s if t.made else 0.0 for t in bt_runs])
        theirs, mine = bt_runs[-1].verdicts, ours[-1][1].verdicts
        shared = sorted(set(theirs) & set(mine))
        differ = [f"{s}: bt {theirs[s]}, pipeline {mine[s]}" for s in shared
                  if theirs[s] != kattis_class(mine[s])]  # our MLE and OLE are bt's RTE
        agree = f"{len(shared) - len(differ)}/{len(shared)} agree" + (
            f" ({len(set(theirs) ^ set(mine))} judged by one tool only)"
            if set(theirs) ^ set(mine) else "")
        if not theirs:  # bt could not run it: nothing to hold the pipeline to
            first = next((line for line in bt_runs[-1].run.stderr.splitlines() if line.strip()),
                         "no output")
            say(f"{name:<24} {bt_wall:>7.1f}s {run_wall:>8.1f}s      -        -  bt judged no "
                f"submission (exit {bt_runs[-1].run.exit_code}: {first[:80]}); not compared")
            record(ctx, "peers", "run_wall_s", run_wall, "s", problem=name, recipe=bt_mode)
            shutil.rmtree(scratch, ignore_errors=True)
            continue
        ratio = run_wall / bt_wall if bt_wall > 0 else float("nan")
        with_ingest = (run_wall + ingest_wall) / (bt_wall + bt_made_wall) if bt_wall > 0 \
            else float("nan")
        say(f"{name:<24} {bt_wall:>7.1f}s {run_wall:>8.1f}s {ratio:>6.2f} {with_ingest:>8.2f} "
            f"{bt_cpu:>6.1f}s {run_cpu:>7.1f}s  {agree}")
        for line in differ:
            say(f"    differs: {line}")
        floors = [timed.floor for _, timed in ours if timed.floor is not None]
        if floors:
            against_floor(ctx, name, bt_mode, [t.run.wall_s for _, t in ours], floors)
        limits = (bt_runs[-1].time_limit_s, ours[-1][1].time_limit_s)
        same_limit = None  # bt judged at the pipeline's limit: the same work, when they differ
        if None not in limits and limits[0] != limits[1]:  # not the same work: say so
            say(f"    judged at other time limits: bt {limits[0]:g} s, pipeline {limits[1]:g} s")
            at_ours = [run_bt(bt, package, scratch, every_case, time_limit_s=limits[1])
                       for _ in range(repeats)]
            same_limit = median([t.run.wall_s for t in at_ours])
            theirs_there = at_ours[-1].verdicts
            both = sorted(set(theirs_there) & set(mine))
            apart = [s for s in both if theirs_there[s] != kattis_class(mine[s])]
            say(f"    bt run -t {limits[1]:g} (the pipeline's limit): {same_limit:.1f} s; "
                f"pipeline/bt {run_wall / same_limit:.2f}; verdicts "
                f"{len(both) - len(apart)}/{len(both)} agree")
            for submission in apart:
                say(f"    differs at -t {limits[1]:g}: {submission}: bt {theirs_there[submission]}"
                    f", pipeline {mine[submission]}")
        for tool, own, other in (("bt", theirs, mine), ("pipeline", mine, theirs)):
            alone = sorted(set(own) - set(other))
            if alone:
                say(f"    judged by {tool} only: {', '.join(alone[:8])}"
                    f"{' ...' if len(alone) > 8 else ''}")
        for metric, value in (("bt_wall_s", bt_wall), ("bt_cpu_s", bt_cpu),
                              ("run_wall_s", run_wall), ("run_cpu_s", run_cpu),
                              ("ingest_wall_s", ingest_wall),
                              ("bt_generate_wall_s", bt_made_wall), ("ratio", ratio),
                              ("ratio_with_ingest", with_ingest),
                              ("verdicts_agree", float(not differ and bool(shared))),
                              ("bt_time_limit_s", limits[0]), ("run_time_limit_s", limits[1]),
                              ("bt_same_limit_wall_s", same_limit),
                              ("ratio_same_limit", run_wall / same_limit if same_limit else None)):
            if value is None:
                continue
            record(ctx, "peers", metric, value, "s" if metric.endswith("_s") else "x",
                   problem=name, recipe=bt_mode)
        # judged at other limits, the goal holds the pipeline to bt at the pipeline's limit
        held = run_wall / same_limit if same_limit else ratio
        goal(ctx, "peers/run", held <= RUN_GOAL,
             f"{name}: pipeline run {held:.2f}x {bt_mode}"
             f"{f' -t {limits[1]:g}' if same_limit else ''} (goal <= {RUN_GOAL}x)", problem=name)
        held_with_ingest = (run_wall + ingest_wall) / (same_limit + bt_made_wall) \
            if same_limit else with_ingest
        goal(ctx, "peers/with-ingest", held_with_ingest <= WITH_INGEST_GOAL,
             f"{name}: ingest + run {held_with_ingest:.2f}x bt generate + {bt_mode}"
             f"{f' -t {limits[1]:g}' if same_limit else ''} (goal <= {WITH_INGEST_GOAL}x)",
             problem=name)
        goal(ctx, "peers/verdicts", not differ and bool(shared),
             f"{name}: verdicts differ from bt's or none compared ({agree})", problem=name)
        shutil.rmtree(scratch, ignore_errors=True)
