"""Where the time of `pipeline run --problem P` on a package goes, phase by phase:
`python -m benchmarks.package_phases PACKAGE... [--keep DIR] [--run-arg ARG]...`.

Each package is copied, ingested into a fresh data folder (not timed), then run once as a real
`pipeline run` process whose Python processes (the parent and its pool workers) carry the
timing hooks of `phase_hooks` (a `sitecustomize` on PYTHONPATH; contained programs get a clean
environment and run untouched). It prints, per process role, the seconds spent in each phase
and how often it was entered:

- parent: start-up (process start to `run()`), the time-limit derivation pass, writing the
  results chunks and the run row (Parquet), holding the expectations (with the validators on
  the invalid data), and the run's whole time;
- workers: start-up (spawn and imports), building the submissions and the package's programs,
  each job, and inside a job the submission's process (batch), the output validator or
  checker, the interactive pair, the launcher spawns and sandbox templates;

and, from the stored results, the cases whose verdict is TLE with their wall time past the
judged limit (time the run spent on cases already over it).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Loads phase_hooks by its path: importing the `benchmarks` package would import much of the
# pipeline before the hooks are in place (and slow every process's start).
SITECUSTOMIZE = f"""import importlib.util as _util
_spec = _util.spec_from_file_location(
    "_phase_hooks", {str(Path(__file__).with_name("phase_hooks.py"))!r})
_hooks = _util.module_from_spec(_spec)
_spec.loader.exec_module(_hooks)
_hooks.install()
"""


def profiled_run(package: Path, work: Path, extra: list[str] | None = None) -> dict:
    """Ingest `package` (a copy) into a fresh data folder under `work`, run it with the hooks;
    returns {"wall_s", "log": [(pid, role, phase, seconds)], "data": data folder, "name"}."""
    copy = work / package.name
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(package, copy, symlinks=True)
    data = work / "data"
    shutil.rmtree(data, ignore_errors=True)
    command = [sys.executable, "-m", "pipeline", "--data-dir", str(data)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    subprocess.run([*command, "ingest", "--allow-rejects", str(copy)], env=env,
                   capture_output=True, check=False)
    hooks = work / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "sitecustomize.py").write_text(SITECUSTOMIZE)
    log = work / "phases.log"
    log.unlink(missing_ok=True)
    env = {**env, "PYTHONPATH": f"{hooks}{os.pathsep}{env['PYTHONPATH']}",
           "PIPELINE_PHASES_LOG": str(log)}
    started = time.perf_counter()
    out = subprocess.run([*command, "run", "--problem", package.name, *(extra or [])], env=env,
                         capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    lines = []
    for line in log.read_text().splitlines() if log.exists() else []:
        pid, role, phase, seconds = line.split()
        lines.append((int(pid), role, phase.replace("_", " "), float(seconds)))
    return {"wall_s": wall, "log": lines, "data": data, "name": package.name,
            "stdout": out.stdout, "stderr": out.stderr, "code": out.returncode}


def summarize(found: dict) -> list[str]:
    """Lines of the per-phase breakdown of one `profiled_run`."""
    totals: dict[tuple[str, str], float] = defaultdict(float)
    counts: dict[tuple[str, str], int] = defaultdict(int)
    workers = set()
    for pid, role, phase, seconds in found["log"]:
        totals[(role, phase)] += seconds
        counts[(role, phase)] += 1
        if role == "worker":
            workers.add(pid)
    lines = [f"{found['name']}: pipeline run {found['wall_s']:.1f} s wall (exit "
             f"{found['code']}), {len(workers)} workers"]
    for role in ("parent", "worker"):
        for (r, phase), seconds in sorted(totals.items(), key=lambda item: -item[1]):
            if r == role:
                lines.append(f"  {role:<6} {phase:<32} {seconds:8.2f} s  x{counts[(r, phase)]}")
    lines += tle_waits(found["data"])
    return lines


def tle_waits(data: Path) -> list[str]:
    """The TLE cases of the run: how many, their wall time, and what of it was past the
    judged limit (the package's time limit recorded with the run's expectations)."""
    import polars as pl

    from pipeline.tables.results import read_expectations, read_run_results, read_runs

    try:
        run_id = read_runs(data)["run_id"][-1]
        rows = read_run_results(data, run_id, ["verdict", "wall_ms", "cpu_ms"])
        limit = read_expectations(data)["time_limit_s"].max()
    except Exception as error:  # noqa: BLE001 - a measurement tool: say it and go on
        return [f"  (no results to read: {error})"]
    tle = rows.filter(pl.col("verdict") == "TLE")
    wall = (tle["wall_ms"].sum() or 0) / 1000
    past = sum(max(0.0, w / 1000 - (limit or 0)) for w in tle["wall_ms"].fill_null(0))
    all_wall = (rows["wall_ms"].sum() or 0) / 1000
    return [f"  results: {rows.height} cases, their programs' wall {all_wall:.1f} s; "
            f"{tle.height} TLE, {wall:.1f} s wall, {past:.1f} s of it past the "
            f"{limit} s limit"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.package_phases")
    parser.add_argument("packages", nargs="+", type=Path)
    parser.add_argument("--keep", type=Path, help="work here and keep it")
    parser.add_argument("--run-arg", action="append", default=[], dest="run_args",
                        metavar="ARG", help="an extra argument of pipeline run (repeatable)")
    args = parser.parse_args(argv)
    work = args.keep or Path(tempfile.mkdtemp(prefix="gamebench-phases-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"load average {os.getloadavg()[0]:.2f}")
    try:
        for package in args.packages:
            found = profiled_run(package.resolve(), work / package.name,
                                 args.run_args)
            print("\n".join(summarize(found)), flush=True)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
