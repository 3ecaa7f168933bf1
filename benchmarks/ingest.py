"""Section `ingest`: `pipeline ingest` throughput beside the read-and-hash floor.

Two corpora, each laid out as `NAME.in` + `NAME.out` under `raw/<problem>/<folder>/`:

- small: distinct tiny cases of every registered problem (equal shares) with their expected
  outputs (from the `fast` stage), 10,000 files in all;
- max: every max test of the max-tests section with the C++ solution's output.

Each corpus is timed alternately, `repeats` times: `pipeline --data-dir D ingest` as a real
process into empty tables (process start, imports, validation, Parquet writes included), and
the floor, a Python process that walks the same tree and only reads and SHA-256-hashes every
file. Printed: files/s and MB/s of both, and their ratio; the goal is ingest within 3x of the
floor. A re-ingest of the unchanged small tree (nothing added) is timed once beside them.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from benchmarks.common import (
    BenchContext,
    ProcessRun,
    fail,
    goal,
    median,
    pipeline_argv,
    record,
    say,
    spawn_timed,
)
from benchmarks.workspace import MaxTest
from pipeline.problems import all_problems, get_problem

SECTION = "ingest"
RATIO_GOAL = 3.0

FLOOR_CODE = """
import hashlib, os, sys
files = size = 0
for root in sys.argv[1:]:
    for folder, dirs, names in os.walk(root):
        dirs.sort()
        for name in sorted(names):
            with open(os.path.join(folder, name), "rb") as handle:
                data = handle.read()
            hashlib.sha256(data).digest()
            files += 1
            size += len(data)
print(files, size)
"""


@dataclass(frozen=True)
class Corpus:
    name: str
    data_dir: Path  # raw files live in data_dir / "raw"
    files: int
    bytes: int


def distinct_cases(problem_id: str, recipe: str, count: int, seed: int = 1,
                   max_draws: int | None = None) -> list:
    """`count` cases of `recipe` with pairwise different judge text (drawn in index order)."""
    problem = get_problem(problem_id)
    seen: set[str] = set()
    cases = []
    limit = max_draws or 50 * count + 100
    index = 0
    while len(cases) < count:
        if index >= limit:
            raise ValueError(f"{problem_id}/{recipe}: only {len(cases)} distinct cases in "
                             f"{limit} draws, {count} wanted")
        case = problem.generate(recipe, seed, index)
        index += 1
        text = problem.render(case)
        if text not in seen:
            seen.add(text)
            cases.append((text, case))
    return cases


def write_pairs(folder: Path, problem_id: str, cases: list, stage: str, start: int = 1) -> int:
    """NNNNN.in + NNNNN.out for each (text, case); returns the bytes written."""
    problem = get_problem(problem_id)
    solve = problem.stage(stage)
    folder.mkdir(parents=True, exist_ok=True)
    total = 0
    for number, (text, case) in enumerate(cases, start=start):
        answer = problem.format_answer(case, solve(case))
        data_in, data_out = text.encode("utf-8"), answer.encode("utf-8")
        (folder / f"{number:05d}.in").write_bytes(data_in)
        (folder / f"{number:05d}.out").write_bytes(data_out)
        total += len(data_in) + len(data_out)
    return total


def small_corpus(ctx: BenchContext, files: int = 10_000) -> Corpus:
    """`files` files (half inputs, half outputs) of distinct tiny cases, split over problems."""
    root = ctx.work_dir / "ingest-small"
    cases_wanted = max(1, files // 2)
    problems = [p.id for p in all_problems() if any(r.kind == "tiny" for r in p.recipes)]
    per_problem = [cases_wanted // len(problems)] * len(problems)
    per_problem[0] += cases_wanted - sum(per_problem)
    total = 0
    for problem_id, count in zip(problems, per_problem):
        cases = distinct_cases(problem_id, "tiny", count)
        total += write_pairs(root / "raw" / problem_id / "small", problem_id, cases, "fast")
    return Corpus("small", root, 2 * cases_wanted, total)


def max_corpus(ctx: BenchContext, tests: list[MaxTest],
               binaries: dict[str, tuple[str, ...]]) -> Corpus:
    """The max tests, hard-linked (or copied) with the C++ output (else fast's) as NAME.out."""
    root = ctx.work_dir / "ingest-max"
    files = size = 0
    for test in tests:
        folder = root / "raw" / test.problem / "max"
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / f"{test.recipe}.in"
        _link(test.path, target)
        out = folder / f"{test.recipe}.out"
        argv = list(binaries[test.problem]) if test.problem in binaries else \
            [*pipeline_argv(), "solve", test.problem, "--solver", "fast"]
        run = spawn_timed(argv, stdin=target, stdout=out)
        if run.exit_code != 0:
            fail(ctx, f"ingest corpus: expected output of {test.problem}/{test.recipe} failed "
                 f"(exit {run.exit_code})")
        files += 2
        size += test.input_bytes + out.stat().st_size
    return Corpus("max", root, files, size)


def _link(source: Path, target: Path) -> None:
    """`target` as a hard link to `source` (a copy across file systems), unless it exists."""
    if not target.exists():
        try:
            os.link(source, target)
        except OSError:
            shutil.copyfile(source, target)


def _ingest_once(corpus: Corpus, fresh: bool) -> ProcessRun:
    if fresh:
        shutil.rmtree(corpus.data_dir / "tables", ignore_errors=True)
    argv = [*pipeline_argv(), "--data-dir", str(corpus.data_dir), "ingest"]
    return spawn_timed(argv, stdout=corpus.data_dir / "ingest.log")


def measure_corpus(ctx: BenchContext, corpus: Corpus, repeats: int = 3,
                   reingest: bool = True) -> dict:
    """Ingest (fresh tables each time) and the floor, alternately; then, if `reingest`, the
    same ingest once more over the stored tables (nothing to add)."""
    floor_argv = [sys.executable, "-c", FLOOR_CODE, str(corpus.data_dir / "raw")]
    keys = dict(recipe=corpus.name, size=corpus.files)
    runs: dict[str, list[ProcessRun]] = {"floor": [], "ingest": []}
    for rep in range(repeats):
        for solver in ("floor", "ingest"):
            run = spawn_timed(floor_argv) if solver == "floor" else _ingest_once(corpus, True)
            runs[solver].append(run)
            if run.exit_code != 0:
                log = (corpus.data_dir / "ingest.log")
                detail = log.read_text()[-300:] if solver == "ingest" and log.exists() else ""
                fail(ctx, f"{solver} of the {corpus.name} corpus exited with {run.exit_code}: "
                     f"{run.stderr.strip()[-300:]} {detail}")
            record(ctx, SECTION, "wall_s", run.wall_s, "s", solver=solver, repeat=rep, **keys)
            record(ctx, SECTION, "peak_rss_mb", run.peak_rss_kb / 1024, "MB", solver=solver,
                   repeat=rep, **keys)
    again = _ingest_once(corpus, False) if reingest else None
    if again is not None:
        record(ctx, SECTION, "wall_s", again.wall_s, "s", solver="re-ingest", **keys)
    result = {"corpus": corpus.name, "files": corpus.files, "mb": corpus.bytes / 1e6}
    for solver in ("floor", "ingest"):
        seconds = median([r.wall_s for r in runs[solver]])
        result[solver] = seconds
        record(ctx, SECTION, "wall_s_median", seconds, "s", solver=solver, **keys)
        record(ctx, SECTION, "files_per_s", corpus.files / seconds, "files/s", solver=solver,
               **keys)
        record(ctx, SECTION, "mb_per_s", corpus.bytes / 1e6 / seconds, "MB/s", solver=solver,
               **keys)
    result["reingest"] = again.wall_s if again is not None else None
    result["peak_mb"] = max(r.peak_rss_kb for r in runs["ingest"]) / 1024
    ratio = result["ingest"] / result["floor"]
    result["ratio"] = ratio
    record(ctx, SECTION, "ratio_ingest_floor", ratio, "x", solver="ingest", **keys)
    result["mark"] = goal(ctx, SECTION, ratio <= RATIO_GOAL,
                          f"{corpus.name} corpus: ingest {ratio:.1f}x the read+hash floor "
                          f"({result['ingest']:.2f} s vs {result['floor']:.2f} s; goal <= 3x)",
                          solver="ingest", **keys)
    return result


def run_ingest(ctx: BenchContext, corpora: list[tuple[Corpus, int, bool]]) -> list[dict]:
    """Measure each (corpus, repeats, re-ingest too?); print one table line per corpus."""
    say("`pipeline --data-dir D ingest` (real process, empty tables) vs a Python process that "
        "only reads + SHA-256-hashes the same files; medians, alternating")
    header = (f"{'corpus':<7} {'files':>6} {'MB':>7}  {'ingest s':>8} {'files/s':>8} "
              f"{'MB/s':>7}  {'floor s':>7} {'files/s':>8} {'MB/s':>7}  {'ratio':>6}  "
              f"{'re-ingest s':>11} {'peak MB':>7}  {'runs':>4}  goal <= 3x")
    say(header)
    say("-" * len(header))
    results = []
    for corpus, repeats, reingest in corpora:
        r = measure_corpus(ctx, corpus, repeats, reingest)
        again = f"{r['reingest']:>11.2f}" if r["reingest"] is not None else f"{'-':>11}"
        results.append(r)
        say(f"{r['corpus']:<7} {r['files']:>6} {r['mb']:>7.1f}  {r['ingest']:>8.2f} "
            f"{r['files'] / r['ingest']:>8.0f} {r['mb'] / r['ingest']:>7.1f}  "
            f"{r['floor']:>7.2f} {r['files'] / r['floor']:>8.0f} {r['mb'] / r['floor']:>7.1f}  "
            f"{r['ratio']:>5.1f}x  {again} {r['peak_mb']:>7.0f}  {repeats:>4}  "
            f"{r['mark']}")
    return results


BOMB_MB = 100  # a zip of this many MB of zeros (about 100 KB compressed)


def run_peak_memory(ctx: BenchContext, tests: list[MaxTest]) -> None:
    """Peak memory of `pipeline ingest` against its input: each problem's largest max test
    alone (its input only: validation is what costs memory), then a zip bomb (rejected by its
    compression ratio before it is inflated)."""
    import zipfile

    say("peak memory of `pipeline --data-dir D ingest` (real process, empty tables) against "
        "the input it reads")
    header = f"{'input':<36} {'input MB':>9} {'peak MB':>8} {'peak / input':>12}  exit"
    say(header)
    say("-" * len(header))
    largest: dict[str, MaxTest] = {}
    for test in tests:
        if test.problem not in largest or test.input_bytes > largest[test.problem].input_bytes:
            largest[test.problem] = test
    empty = ctx.work_dir / "ingest-peak-nothing"
    (empty / "raw").mkdir(parents=True, exist_ok=True)
    rows = [("(an empty folder: start and imports)", empty, 0)]
    for test in largest.values():
        root = ctx.work_dir / f"ingest-peak-{test.problem}"
        folder = root / "raw" / test.problem / "max"
        folder.mkdir(parents=True, exist_ok=True)
        _link(test.path, folder / f"{test.recipe}.in")
        rows.append((f"{test.problem}/{test.recipe}.in", root, test.input_bytes))
    bomb_root = ctx.work_dir / "ingest-peak-bomb"
    problem = next(iter(largest), None) or all_problems()[0].id
    bomb = bomb_root / "raw" / problem / "bomb.zip"
    bomb.parent.mkdir(parents=True, exist_ok=True)
    if not bomb.exists():
        with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
            with archive.open("01.in", "w") as member:
                chunk = b"0" * (1 << 20)
                for _ in range(BOMB_MB):
                    member.write(chunk)
    rows.append((f"{problem}/bomb.zip ({BOMB_MB} MB of zeros)", bomb_root,
                 bomb.stat().st_size))
    for label, root, size in rows:
        run = _ingest_once(Corpus(label, root, 0, size), True)
        peak_mb = run.peak_rss_kb / 1024
        record(ctx, SECTION, "peak_rss_mb", peak_mb, "MB", solver="ingest", recipe=label,
               size=size)
        ratio = f"{peak_mb / (size / 1e6):>11.1f}x" if size else f"{'-':>12}"
        say(f"{label:<36} {size / 1e6:>9.2f} {peak_mb:>8.0f} {ratio}  {run.exit_code}")
