"""`startup`: what a command costs before its real work, with no resident process to help.

Each command is started as a real process, its wall time from just before `fork` to `wait4`
and its CPU time from `wait4` (`spawn_timed`), in rounds that interleave the commands with
`python -c pass` (Python's own start, the floor):

- `pipeline --help`, `pipeline run --help` and `pipeline problems`, whole;
- the start of `pipeline run`: the console script's `main` with the run command's body
  replaced by an exit (`PROBE`), so the process ends where the run's own work would begin:
  Python's start, the command line read, the data folder's options applied.

The goal: each at most `GOAL_S` of CPU (median of the rounds). Wall time grows with the
machine's load (a short process waits for a core), so it is printed beside, with the load.
"""

from __future__ import annotations

import statistics
import sys

from benchmarks.common import (
    BenchContext,
    goal,
    load_average,
    pipeline_argv,
    record,
    say,
    spawn_timed,
)
from pipeline.problems import problem_ids

GOAL_S = 0.25
# `pipeline run`'s start: its body, once reached, ends the process (no teardown, as `exit_now`)
# (main ends the process; the run's body, once reached, ends it first). `{problem}`: any
# built-in problem (the first the registry lists), so none is named outside its folder.
PROBE = ("import os, sys\n"
         "import pipeline.commands.running as running\n"
         "running.run = lambda *args, **kwargs: os._exit(0)\n"
         "sys.argv = ['pipeline', 'run', '--problem', {problem!r}]\n"
         "from pipeline.entry import main\n"
         "main()\n")
FLOOR = "python -c pass"


def commands() -> dict[str, list[str]]:
    """Name -> argv of each measured command, the floor first."""
    pipeline = pipeline_argv()
    return {FLOOR: [sys.executable, "-c", "pass"],
            "pipeline --help": [*pipeline, "--help"],
            "pipeline run --help": [*pipeline, "run", "--help"],
            "pipeline problems": [*pipeline, "problems"],
            "pipeline run (its start)": [sys.executable, "-c",
                                         PROBE.format(problem=problem_ids()[0])]}


def run_startup(ctx: BenchContext, rounds: int) -> dict[str, float]:
    """Measure and record; returns {command: median CPU s}."""
    measured = commands()
    folder = ctx.work_dir / "startup"  # no data folder here: nothing registered is read
    folder.mkdir(parents=True, exist_ok=True)
    say(f"{rounds} rounds, each command once a round; load average {load_average():.2f}")
    walls: dict[str, list[float]] = {name: [] for name in measured}
    cpus: dict[str, list[float]] = {name: [] for name in measured}
    for _ in range(rounds):
        for name, argv in measured.items():
            done = spawn_timed(argv, cwd=folder)
            if done.exit_code != 0:
                raise RuntimeError(f"{name} exited with {done.exit_code}: {done.stderr}")
            walls[name].append(done.wall_s)
            cpus[name].append(done.cpu_s)
    say(f"  {'command':<26} {'CPU s':>7} {'wall s':>7} {'CPU over python':>16}")
    medians: dict[str, float] = {}
    for name in measured:
        cpu, wall = statistics.median(cpus[name]), statistics.median(walls[name])
        over = statistics.median(c - f for c, f in zip(cpus[name], cpus[FLOOR]))
        medians[name] = cpu
        say(f"  {name:<26} {cpu:7.3f} {wall:7.3f} {over:+16.3f}")
        for metric, value in (("cpu_s", cpu), ("wall_s", wall), ("cpu_over_python_s", over),
                              ("fastest_wall_s", min(walls[name]))):
            record(ctx, "startup", metric, value, "s", solver=name)
    slowest = max((n for n in measured if n != FLOOR), key=medians.__getitem__)
    mark = goal(ctx, "startup", medians[slowest] <= GOAL_S,
                f"{slowest}: {medians[slowest]:.3f} s of CPU (goal <= {GOAL_S:g} s)",
                solver=slowest)
    say(f"goal: each command's start at most {GOAL_S:g} s of CPU: the slowest, {slowest}, "
        f"{medians[slowest]:.3f} s, {mark} (load average {load_average():.2f})")
    return medians
