"""Section `nightly`: the wall time of `pipeline nightly` on a fresh data folder.

`pipeline --data-dir D nightly` runs as a real process on an empty temporary folder D, as
`make nightly` does on a fresh clone: the first night generates the default corpus, ingests
it and the samples, runs every problem with every stage and external solver, and writes the
report; a second night on the same folder finds the corpus and compares with the first.
Printed: wall and CPU time and peak memory of each night, and its exit status (a failing
night is a failure line); the goal is a night under 10 minutes.

Then a first night on a loaded machine (`run_loaded_nightly`): another fresh folder, with two
CPU-bound processes (`python -c 'while True: pass'`) running beside it the whole night. It must
exit 0: cases are limited by their CPU time, so a slowdown by other processes is no `TLE`
(with no baseline, a `TLE` on the first night would be a new failure).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from benchmarks.common import BenchContext, fail, goal, pipeline_argv, record, say, spawn_timed

SECTION = "nightly"
GOAL_S = 600.0


def run_nightly(ctx: BenchContext, nights: int = 2, config: Path | None = None) -> list[dict]:
    """Time `nights` nights in a row on one fresh data folder; print one line per night.

    `config` replaces `configs/nightly.toml` (`pipeline nightly --config`)."""
    data_dir = ctx.work_dir / "nightly-data"
    log = ctx.work_dir / "nightly.log"
    ctx.work_dir.mkdir(parents=True, exist_ok=True)
    say(f"`pipeline --data-dir D nightly` on a fresh temporary folder D, {nights} nights in a "
        "row (real process; goal: a night under 10 minutes)")
    say(f"{'night':<7} {'wall s':>8} {'CPU s':>8} {'peak MB':>8}  {'exit':>4}  goal")
    results = []
    for night in range(1, nights + 1):
        argv = [*pipeline_argv(), "--data-dir", str(data_dir), "nightly"]
        run = spawn_timed(argv + (["--config", str(config)] if config else []), stdout=log)
        keys = dict(solver="pipeline nightly", repeat=night)
        record(ctx, SECTION, "wall_s", run.wall_s, "s", **keys)
        record(ctx, SECTION, "cpu_s", run.cpu_s, "s", **keys)
        record(ctx, SECTION, "peak_rss_mb", run.peak_rss_kb / 1024, "MB", **keys)
        record(ctx, SECTION, "exit_code", run.exit_code, "code", **keys)
        if run.exit_code != 0:
            tail = log.read_text(errors="replace")[-400:] if log.exists() else ""
            fail(ctx, f"night {night} exited with {run.exit_code}: "
                 f"{run.stderr.strip()[-300:]} {tail}")
        mark = goal(ctx, SECTION, run.wall_s < GOAL_S,
                    f"night {night}: {run.wall_s:.0f} s (goal < {GOAL_S:.0f} s)", **keys)
        say(f"{night:<7} {run.wall_s:>8.1f} {run.cpu_s:>8.1f} {run.peak_rss_kb / 1024:>8.0f}  "
            f"{run.exit_code:>4}  {mark}")
        results.append({"night": night, "wall_s": run.wall_s, "cpu_s": run.cpu_s,
                        "exit_code": run.exit_code})
    return results


SPIN = "while True: pass"


def run_loaded_nightly(ctx: BenchContext, spinners: int = 2,
                       config: Path | None = None) -> dict:
    """A first night on a fresh data folder with `spinners` CPU-bound processes beside it;
    one line; a night that does not exit 0 is a failure. `config` as in `run_nightly`."""
    data_dir = ctx.work_dir / "nightly-loaded-data"
    log = ctx.work_dir / "nightly-loaded.log"
    ctx.work_dir.mkdir(parents=True, exist_ok=True)
    say(f"a first night on a fresh folder with {spinners} CPU-bound processes beside it "
        f"(`python -c '{SPIN}'`; it must exit 0)")
    hogs = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(spinners)]
    try:
        argv = [*pipeline_argv(), "--data-dir", str(data_dir), "nightly"]
        run = spawn_timed(argv + (["--config", str(config)] if config else []), stdout=log)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    keys = dict(solver="pipeline nightly (loaded)", repeat=1)
    record(ctx, SECTION, "wall_s", run.wall_s, "s", **keys)
    record(ctx, SECTION, "cpu_s", run.cpu_s, "s", **keys)
    record(ctx, SECTION, "exit_code", run.exit_code, "code", **keys)
    if run.exit_code != 0:
        tail = log.read_text(errors="replace")[-400:] if log.exists() else ""
        fail(ctx, f"the loaded first night exited with {run.exit_code}: "
             f"{run.stderr.strip()[-300:]} {tail}")
    say(f"loaded  {run.wall_s:>8.1f} {run.cpu_s:>8.1f} {run.peak_rss_kb / 1024:>8.0f}  "
        f"{run.exit_code:>4}")
    return {"wall_s": run.wall_s, "cpu_s": run.cpu_s, "exit_code": run.exit_code,
            "spinners": [hog.pid for hog in hogs]}
