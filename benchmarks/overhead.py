"""`overhead`: what containing a program costs per case, against a bare fork/exec/wait4 of it.

Every case a worker runs goes through the contained runner (`pipeline.programs.contained`,
through `external.run_external`): a folder for the case, the launcher started as the init of a
PID namespace, the worker's sandbox template entered, limits set, the result read from the
launcher's pipe, the verdict, the folder removed. This section times that whole per-case path
on a tiny C++ program (a + b) beside `bare`, the same program started with `posix_spawn` (a
vfork and exec) and reaped with `wait4`, with the same case files and nothing else, in rounds
that interleave the mechanisms (`benchmarks.mechanisms.measure`, which also has the steps
in between). It reports each mechanism's median wall time and CPU time (this process and all it
started) a case, and the goal: the sandboxed path at most `GOAL_MS` over bare, on the median of
the rounds' differences (a round's mechanisms run back to back, so the machine's load touches
them alike).
"""

from __future__ import annotations

import shutil
import statistics
from pathlib import Path

from benchmarks.common import BenchContext, goal, load_average, record, say

GOAL_MS = 3.0
SHOWN = ("bare", "plain", "launcher as init", "launcher as init, sandbox",
         "run_external, no sandbox", "run_external, sandbox")
CONTAINED = "run_external, sandbox"


def run_overhead(ctx: BenchContext, cases: int, rounds: int) -> dict[str, float] | None:
    """Measure and record; returns {mechanism: median wall ms a case} (None: skipped)."""
    from benchmarks.mechanisms import measure, scratch_folder
    from pipeline.programs import external
    from pipeline.programs.launcher import launcher_path

    if launcher_path() is None or shutil.which("g++") is None:
        say("(overhead skipped: it needs the launcher, built with a C compiler, and g++)")
        return None
    say(f"{rounds} rounds of {cases} cases per mechanism, interleaved; load average "
        f"{load_average():.2f}")
    try:
        with scratch_folder() as folder:
            root = Path(folder)
            root.chmod(0o711)
            found = measure(root, cases, rounds, SHOWN)
    finally:
        external.cleanup_scratch()
    bare_wall, bare_cpu = found["bare"]
    say(f"  {'mechanism':<27} {'wall ms':>8} {'over bare':>10} {'CPU ms':>8} {'over bare':>10}")
    medians: dict[str, float] = {}
    for name, (wall, cpu) in found.items():
        over = statistics.median(w - b for w, b in zip(wall, bare_wall))
        over_cpu = statistics.median(c - b for c, b in zip(cpu, bare_cpu))
        medians[name] = statistics.median(wall)
        say(f"  {name:<27} {medians[name]:8.3f} {over:+10.3f} {statistics.median(cpu):8.3f} "
            f"{over_cpu:+10.3f}")
        for metric, value in (("wall_ms", medians[name]), ("over_bare_ms", over),
                              ("cpu_ms", statistics.median(cpu)), ("cpu_over_bare_ms", over_cpu),
                              ("fastest_round_ms", min(wall))):
            record(ctx, "overhead", metric, value, "ms", solver=name)
    contained_wall, _ = found[CONTAINED]
    over = statistics.median(w - b for w, b in zip(contained_wall, bare_wall))
    mark = goal(ctx, "overhead", over <= GOAL_MS,
                f"contained per-case path {over:.2f} ms over a bare fork/exec/wait4 "
                f"(goal <= {GOAL_MS:g} ms)", solver=CONTAINED)
    say(f"goal: the sandboxed per-case path at most {GOAL_MS:g} ms over bare: {over:.2f} ms, "
        f"{mark} (load average {load_average():.2f})")
    return medians
