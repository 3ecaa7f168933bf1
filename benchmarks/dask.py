"""Section `dask`: `pipeline run` on a Dask cluster beside the local pool, on this machine.

A real cluster is started for the section on loopback, as one would be on other machines: a
`dask scheduler` and two `dask worker --nthreads 1` processes (under their nannies). Then,
alternately, as real processes (process start included), `repeats` times each after one untimed
run of each (the cluster's workers keep their warm pools between runs, as they would between a
setter's runs; the quick bench skips the untimed runs):

- tiny: the `throughput` section's corpus of distinct tiny cases (20,000 of `--run-problem`),
  `pipeline run --problem P --solver fast --jobs 2` against the same with
  `--executor dask --scheduler ADDRESS`; beside them, once per repeat and without a goal, the
  same run with `--executor dask` alone, which starts a local Dask cluster of two workers for
  the run (its start-up included);
- max tests: every max test of the chosen problems, ingested with the C++ solution's output as
  expected answer, run per problem with `--solver fast --external ours=BIN` by both executors;
  a repeat's time is the sum over the problems.

Both executors' verdict counts must agree (and be all AC on the tiny corpus). Goals: the Dask
executor's median time within 1.5x the local pool's on the tiny cases, within 1.1x on the max
tests; the fastest repeats of each are printed beside the medians.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.common import (
    BenchContext,
    fail,
    goal,
    median,
    pipeline_argv,
    record,
    say,
    spawn_timed,
)
from benchmarks.throughput import RunCorpus
from benchmarks.throughput import _verdicts as verdict_counts
from benchmarks.workspace import MaxTest

SECTION = "dask"
TINY_GOAL = 1.5
MAX_GOAL = 1.1
WORKERS = 2
START_TIMEOUT_S = 120.0


@dataclass
class LoopbackCluster:
    """A `dask scheduler` and `dask worker` processes on 127.0.0.1, started by the bench."""

    address: str
    processes: list[subprocess.Popen]

    def stop(self) -> None:
        for process in self.processes[1:] + self.processes[:1]:  # workers, then the scheduler
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def scheduler_address(path: Path) -> str | None:
    """The address in the scheduler's file, None until it is there: Dask creates the file
    before it writes it, so a reader can find it empty."""
    try:
        return json.loads(path.read_text())["address"]
    except (OSError, ValueError, KeyError):
        return None


def start_cluster(ctx: BenchContext, workers: int = WORKERS) -> LoopbackCluster:
    """Start the scheduler and `workers` single-threaded workers; return once all joined."""
    from distributed import Client

    folder = ctx.work_dir / "dask-cluster"
    folder.mkdir(parents=True, exist_ok=True)
    scheduler_file = folder / "scheduler.json"
    scheduler_file.unlink(missing_ok=True)
    env = {**os.environ, "PIPELINE_BUILD_DIR": str(folder / "build")}
    dask = [sys.executable, "-m", "dask"]

    def start(argv: list[str], log: str) -> subprocess.Popen:
        with open(folder / log, "wb") as handle:
            return subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=handle)

    processes = [start([*dask, "scheduler", "--host", "127.0.0.1", "--port", "0",
                        "--no-dashboard", "--scheduler-file", str(scheduler_file)],
                       "scheduler.log")]
    cluster = LoopbackCluster("", processes)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not (address := scheduler_address(scheduler_file)):
            if time.monotonic() > deadline or processes[0].poll() is not None:
                raise RuntimeError(f"the Dask scheduler did not start (see {folder})")
            time.sleep(0.05)
        cluster.address = address
        for index in range(workers):
            processes.append(start([*dask, "worker", cluster.address, "--nthreads", "1",
                                    "--no-dashboard", "--host", "127.0.0.1",
                                    "--local-directory", str(folder / f"worker-{index}")],
                                   f"worker-{index}.log"))
        with Client(cluster.address, set_as_default=False) as client:
            client.wait_for_workers(workers, timeout=START_TIMEOUT_S)
    except BaseException:
        cluster.stop()
        raise
    return cluster


def _run(ctx: BenchContext, data_dir: Path, problem: str, args: list[str],
         label: str) -> tuple[float, dict[str, dict[str, int]]]:
    """One `pipeline run` as a real process: (wall seconds, solver -> verdict counts)."""
    log = data_dir / f"{label}.log"
    argv = [*pipeline_argv(), "--data-dir", str(data_dir), "run", "--problem", problem, *args]
    run = spawn_timed(argv, stdout=log)
    if run.exit_code != 0:
        fail(ctx, f"{label}: `pipeline run` exited with {run.exit_code}: "
             f"{run.stderr.strip()[-300:]}")
    return run.wall_s, verdict_counts(log) if log.exists() else {}


def max_corpus(ctx: BenchContext, tests: list[MaxTest],
               binaries: dict[str, tuple[str, ...]]) -> Path:
    """The max tests with C++'s answers, ingested (once, untimed) into a data dir of their own."""
    from benchmarks.ingest import max_corpus as write_max_corpus
    from pipeline.corpus.ingest import ingest

    written = write_max_corpus(ctx, tests, binaries)
    root = ctx.work_dir / "dask-max"
    summary = ingest(root, [written.data_dir / "raw"])
    if summary.rejected:
        fail(ctx, f"dask max corpus: {summary.rejected} rejected cases on ingest")
    return root


def _fastest(samples: dict[str, list[float]], corpus: str) -> str:
    """The fastest repeat of each executor (noise on a shared machine only adds time)."""
    local, dask = min(samples[f"{corpus}/local"]), min(samples[f"{corpus}/dask"])
    return f"fastest runs: local {local:.2f} s, dask {dask:.2f} s = {dask / local:.2f}x"


def run_dask(ctx: BenchContext, tiny: RunCorpus, max_root: Path | None, tests: list[MaxTest],
             binaries: dict[str, tuple[str, ...]], repeats: int = 3,
             warm_up: bool = True) -> dict:
    """Time both executors on both corpora (alternating); print and record the figures.

    `warm_up` runs each executor once, untimed, first (the quick bench skips it)."""
    say(f"`pipeline run` through a Dask cluster (a `dask scheduler` and {WORKERS} `dask worker "
        f"--nthreads 1` on loopback) and through the local pool (--jobs {WORKERS}); real "
        f"processes, medians of {repeats}, alternating"
        f"{', after one untimed run of each' if warm_up else ''}")
    cluster = start_cluster(ctx)
    try:
        return _measure(ctx, cluster, tiny, max_root, tests, binaries, repeats, warm_up)
    finally:
        cluster.stop()


def _measure(ctx: BenchContext, cluster: LoopbackCluster, tiny: RunCorpus,
             max_root: Path | None, tests: list[MaxTest], binaries: dict[str, tuple[str, ...]],
             repeats: int, warm_up: bool) -> dict:
    executors = {"local": ["--jobs", str(WORKERS)],
                 "dask": ["--executor", "dask", "--scheduler", cluster.address]}
    problems = sorted({t.problem for t in tests if t.problem in binaries}) if max_root else []
    counts = {p: sum(1 for t in tests if t.problem == p) for p in problems}
    samples: dict[str, list[float]] = {"tiny/local": [], "tiny/dask": [], "tiny/dask-local": [],
                                       "max/local": [], "max/dask": []}
    seen: dict[tuple[str, str, str], dict] = {}  # (corpus, problem, executor) -> verdicts
    for rep in range(-1 if warm_up else 0, repeats):  # -1: the untimed first run of each
        for executor, args in executors.items():
            wall, verdicts = _run(ctx, tiny.data_dir, tiny.problem, ["--solver", "fast", *args],
                                  f"dask-tiny-{executor}")
            seen[("tiny", tiny.problem, executor)] = verdicts
            if rep >= 0:
                samples[f"tiny/{executor}"].append(wall)
                record(ctx, SECTION, "wall_s", wall, "s", problem=tiny.problem, recipe="tiny",
                       solver=executor, size=tiny.cases, repeat=rep)
            total = 0.0
            for problem in problems:
                ours = "ours=" + " ".join(shlex.quote(part) for part in binaries[problem])
                wall, verdicts = _run(ctx, max_root, problem, ["--solver", "fast", "--external",
                                                               ours, *args],
                                      f"dask-max-{problem}-{executor}")
                seen[("max", problem, executor)] = verdicts
                total += wall
            if rep >= 0 and problems:
                samples[f"max/{executor}"].append(total)
                record(ctx, SECTION, "wall_s", total, "s", recipe="max", solver=executor,
                       size=sum(counts.values()), repeat=rep)
        if rep >= 0:  # a local Dask cluster started by the run itself: for information
            wall, verdicts = _run(ctx, tiny.data_dir, tiny.problem,
                                  ["--solver", "fast", "--executor", "dask", "--jobs",
                                   str(WORKERS)], "dask-tiny-local-cluster")
            seen[("tiny", tiny.problem, "dask-local")] = verdicts
            samples["tiny/dask-local"].append(wall)
            record(ctx, SECTION, "wall_s", wall, "s", problem=tiny.problem, recipe="tiny",
                   solver="dask-local-cluster", size=tiny.cases, repeat=rep)
    for (corpus, problem, executor), verdicts in seen.items():
        if executor != "local" and verdicts != seen[(corpus, problem, "local")]:
            fail(ctx, f"{corpus} {problem}: {executor} verdicts {verdicts} differ from the local "
                 f"pool's {seen[(corpus, problem, 'local')]}")
    if seen[("tiny", tiny.problem, "local")] != {"fast": {"AC": tiny.cases}}:
        fail(ctx, f"tiny: expected AC={tiny.cases}, got {seen[('tiny', tiny.problem, 'local')]}")
    result = {}
    local_s, dask_s = median(samples["tiny/local"]), median(samples["tiny/dask"])
    cluster_s = median(samples["tiny/dask-local"])
    ratio = dask_s / local_s
    for executor, value in (("local", local_s), ("dask", dask_s),
                            ("dask-local-cluster", cluster_s)):
        record(ctx, SECTION, "wall_s_median", value, "s", problem=tiny.problem, recipe="tiny",
               solver=executor, size=tiny.cases)
    record(ctx, SECTION, "ratio_dask_local_time", ratio, "x", problem=tiny.problem,
           recipe="tiny", solver="dask", size=tiny.cases)
    mark = goal(ctx, SECTION, ratio <= TINY_GOAL,
                f"tiny cases: Dask {dask_s:.2f} s = {ratio:.2f}x the local pool's {local_s:.2f} s "
                f"for {tiny.cases} cases (goal <= {TINY_GOAL}x)", problem=tiny.problem,
                recipe="tiny", solver="dask")
    say(f"  tiny ({tiny.cases} {tiny.problem} cases, fast): local {local_s:6.2f} s, "
        f"dask {dask_s:6.2f} s = {ratio:4.2f}x  (goal <= {TINY_GOAL}x: {mark}); "
        f"{_fastest(samples, 'tiny')}")
    say(f"    (with --executor dask alone, a local Dask cluster started for the run: "
        f"{cluster_s:.2f} s)")
    result.update(tiny_local_s=local_s, tiny_dask_s=dask_s, tiny_ratio=ratio,
                  tiny_local_cluster_s=cluster_s)
    if not problems:
        say("  (no max tests with a C++ binary: max-test figures skipped)")
        return result
    local_s, dask_s = median(samples["max/local"]), median(samples["max/dask"])
    ratio = dask_s / local_s
    size = sum(counts.values())
    for executor, value in (("local", local_s), ("dask", dask_s)):
        record(ctx, SECTION, "wall_s_median", value, "s", recipe="max", solver=executor,
               size=size)
    record(ctx, SECTION, "ratio_dask_local_time", ratio, "x", recipe="max", solver="dask",
           size=size)
    mark = goal(ctx, SECTION, ratio <= MAX_GOAL,
                f"max tests: Dask {dask_s:.2f} s = {ratio:.2f}x the local pool's {local_s:.2f} s "
                f"for {size} max tests (goal <= {MAX_GOAL}x)", recipe="max", solver="dask")
    say(f"  max tests ({size} over {len(problems)} problems, fast + cpp, one run per problem): "
        f"local {local_s:6.2f} s, dask {dask_s:6.2f} s = {ratio:4.2f}x  "
        f"(goal <= {MAX_GOAL}x: {mark}); {_fastest(samples, 'max')}")
    result.update(max_local_s=local_s, max_dask_s=dask_s, max_ratio=ratio)
    return result
