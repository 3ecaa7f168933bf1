"""Section `max-tests`: `fast` against our C++ and the time limit on every max test.

For each max test three real processes are timed, alternately (fast, C++, floor, fast, ...),
`repeats` times each, and the medians compared:

- `pipeline solve P --solver fast < max.in` (the venv's console script: interpreter start,
  imports, parse, solve and output included);
- the problem's C++ solution on the same file;
- the read floor: a C++ program that only reads its stdin (`read_floor.cpp`, built through
  `pipeline.native` like the problems' own native code), the least any solution can take.

Before a problem's first test, one untimed `pipeline solve` run loads (or, after an edit,
builds) the native code and fills the OS's file cache. The outputs of fast and C++ are
compared token by token on the first repeat; a disagreement or a crash is a loud failure line.
Wall time and peak RSS of each child come from `os.wait4`.

Checks per test: PASS when the fast median is within the problem's time limit (`[limits]` of
its `problem.toml`) and its peak RSS is under 512 MB; the goal is fast < 5x the C++ time where
C++ takes >= 50 ms, else fast < 0.25 s. The count of tests meeting the goal is printed after
the table. Then `phases.py` is run on every test (`breakdown_repeats` times, medians) and a
second table says where fast's time goes: start (interpreter start-up and exit), import, read,
parse, solve and print.
"""

from __future__ import annotations

import json
import sys
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
from pipeline.problems import get_problem

SECTION = "max-tests"
FLOOR_SOURCE = Path(__file__).with_name("read_floor.cpp")
PYTHON_FLOOR_CODE = "import sys; sys.stdin.buffer.read()"
PHASES_SCRIPT = Path(__file__).with_name("phases.py")
PHASES = ("start", "import", "read", "parse", "solve", "print")
MEMORY_LIMIT_MB = 512
RATIO_GOAL = 5.0
CPP_SLOW_S = 0.050
FAST_QUICK_GOAL_S = 0.25

HEADERS = ("problem", "recipe", "size", "fast s", "C++ s", "ratio", "floor s", "fast MB",
           "limit s", "check", "goal")
WIDTHS = (15, 20, 8, 7, 7, 6, 7, 7, 7, 5, 22)


def _line(values) -> str:
    parts = []
    for value, width in zip(values, WIDTHS):
        text = value if isinstance(value, str) else _num(value)
        parts.append(text.ljust(width) if isinstance(value, str) else text.rjust(width))
    return "  ".join(parts).rstrip()


def _num(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, int):
        return str(value)
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.3f}"


def time_limit_s(problem_id: str) -> float:
    return float(get_problem(problem_id).time_limit_s)


def run_max_tests(ctx: BenchContext, tests: list[MaxTest], binaries: dict[str, tuple[str, ...]],
                  repeats: int = 5, warm_up: bool = True,
                  breakdown_repeats: int = 3) -> list[dict]:
    """Time every test; print one table line per test, the count meeting the goal, and the
    breakdown table; return the per-test summaries.

    `warm_up` runs `pipeline solve` once, untimed, before each problem's first test (so that
    a native library is built if its source changed); the quick bench skips
    it. `breakdown_repeats` = 0 skips the breakdown."""
    floor = floor_argv(ctx)
    say(f"fast vs C++ vs the C++ read floor: real processes, medians of {repeats}, "
        "interleaved; goal = fast < 5x C++ where C++ >= 50 ms, else fast < 0.25 s")
    say(_line(HEADERS))
    say(_line(tuple("-" * w for w in WIDTHS)))
    scratch = ctx.work_dir / "max-out"
    scratch.mkdir(parents=True, exist_ok=True)
    summaries = []
    warmed: set[str] = set()
    for test in tests:
        if warm_up and test.problem not in warmed:
            warmed.add(test.problem)
            spawn_timed(_fast_argv(test.problem), stdin=test.path, stdout=scratch / "warm.out")
        summaries.append(_measure(ctx, test, binaries.get(test.problem), floor, repeats,
                                  scratch))
    met = sum(1 for s in summaries if s["goal_met"])
    record(ctx, SECTION, "tests_meeting_goal", met, "tests")
    record(ctx, SECTION, "tests", len(summaries), "tests")
    say(f"goal met on {met} of {len(summaries)} max tests")
    if breakdown_repeats > 0 and summaries:
        breakdowns(ctx, tests, summaries, breakdown_repeats, scratch)
    return summaries


def floor_argv(ctx: BenchContext) -> list[str]:
    """The C++ read floor's command (built once through `pipeline.native`); the Python
    read-only process when it cannot be built (a failure line says why)."""
    if "floor" not in ctx.cache:
        from pipeline import native

        try:
            ctx.cache["floor"] = [str(native.build(
                native.Native("read-floor", FLOOR_SOURCE, kind="program")))]
        except native.BuildError as error:
            fail(ctx, f"building the C++ read floor: {error}; the floor is a Python process")
            ctx.cache["floor"] = [sys.executable, "-c", PYTHON_FLOOR_CODE]
    return ctx.cache["floor"]


def _fast_argv(problem_id: str) -> list[str]:
    return [*pipeline_argv(), "solve", problem_id, "--solver", "fast"]


def _measure(ctx: BenchContext, test: MaxTest, cpp: tuple[str, ...] | None, floor: list[str],
             repeats: int, scratch: Path) -> dict:
    keys = dict(problem=test.problem, recipe=test.recipe, size=test.size)
    runs: dict[str, list[ProcessRun]] = {"fast": [], "cpp": [], "floor": []}
    commands = {"fast": _fast_argv(test.problem), "cpp": list(cpp) if cpp else None,
                "floor": floor}
    outputs = {"fast": scratch / "fast.out", "cpp": scratch / "cpp.out", "floor": None}
    agree: bool | None = None
    for rep in range(repeats):
        for solver in ("fast", "cpp", "floor"):
            argv = commands[solver]
            if argv is None:
                continue
            run = spawn_timed(argv, stdin=test.path, stdout=outputs[solver])
            runs[solver].append(run)
            record(ctx, SECTION, "wall_s", run.wall_s, "s", solver=solver, repeat=rep, **keys)
            record(ctx, SECTION, "cpu_s", run.cpu_s, "s", solver=solver, repeat=rep, **keys)
            record(ctx, SECTION, "peak_rss_mb", run.peak_rss_kb / 1024, "MB", solver=solver,
                   repeat=rep, **keys)
            if run.exit_code != 0 and rep == 0:
                fail(ctx, f"{test.problem}/{test.recipe}: {solver} exited with code "
                     f"{run.exit_code}: {run.stderr.strip()[-300:]}")
        if rep == 0 and cpp is not None and runs["fast"][0].exit_code == 0 \
                and runs["cpp"][0].exit_code == 0:
            agree = _compare(ctx, test, outputs["fast"], outputs["cpp"])
    fast_s = median([r.wall_s for r in runs["fast"]])
    cpp_s = median([r.wall_s for r in runs["cpp"]]) if runs["cpp"] else None
    floor_s = median([r.wall_s for r in runs["floor"]])
    peak_mb = max(r.peak_rss_kb for r in runs["fast"]) / 1024
    limit = time_limit_s(test.problem)
    ratio = fast_s / cpp_s if cpp_s else None
    for solver, value in (("fast", fast_s), ("cpp", cpp_s), ("floor", floor_s)):
        if value is not None:
            record(ctx, SECTION, "wall_s_median", value, "s", solver=solver, **keys)
    record(ctx, SECTION, "peak_rss_mb_max", peak_mb, "MB", solver="fast", **keys)
    record(ctx, SECTION, "time_limit_s", limit, "s", solver="fast", **keys)
    if ratio is not None:
        record(ctx, SECTION, "ratio_fast_cpp", ratio, "x", solver="fast", **keys)
    crashed = any(r.exit_code != 0 for r in runs["fast"])
    passed = not crashed and agree is not False and fast_s <= limit \
        and peak_mb < MEMORY_LIMIT_MB
    where = f"{test.problem}/{test.recipe}"
    goal(ctx, SECTION + "/limit", passed,
         f"{where}: fast {fast_s:.3f} s (limit {limit:g} s), peak {peak_mb:.0f} MB",
         solver="fast", **keys)
    if cpp_s is not None and cpp_s >= CPP_SLOW_S:
        met = ratio is not None and ratio < RATIO_GOAL
        goal_text = f"{'<' if met else '>='} 5x C++"
        missed_text = f"{where}: fast/C++ = {ratio:.1f}x (goal < 5x; C++ {cpp_s:.3f} s)"
    else:
        met = fast_s < FAST_QUICK_GOAL_S
        goal_text = f"fast {'<' if met else '>='} 0.25 s"
        missed_text = f"{where}: fast {fast_s:.3f} s (goal < 0.25 s; C++ " + \
            (f"{cpp_s * 1000:.0f} ms)" if cpp_s is not None else "not built)")
    mark = goal(ctx, SECTION + "/goal", met, missed_text, solver="fast", **keys)
    say(_line((test.problem, test.recipe, test.size, fast_s, cpp_s, ratio, floor_s, peak_mb,
               limit, "PASS" if passed else "FAIL", f"{goal_text}: {mark}")))
    return {"problem": test.problem, "recipe": test.recipe, "size": test.size, "fast_s": fast_s,
            "cpp_s": cpp_s, "floor_s": floor_s, "ratio": ratio, "peak_mb": peak_mb,
            "limit_s": limit, "passed": passed, "goal_met": met, "agree": agree}


def _compare(ctx: BenchContext, test: MaxTest, fast_out: Path, cpp_out: Path) -> bool:
    problem = get_problem(test.problem)
    fast_text = fast_out.read_text(encoding="utf-8", errors="replace")
    cpp_text = cpp_out.read_text(encoding="utf-8", errors="replace")
    difference = problem.compare(cpp_text, fast_text)
    record(ctx, SECTION, "outputs_agree", 0.0 if difference else 1.0, "bool",
           problem=test.problem, recipe=test.recipe, size=test.size, solver="fast")
    if difference:
        fail(ctx, f"{test.problem}/{test.recipe}: fast and C++ DISAGREE: {difference}")
        return False
    return True


def breakdowns(ctx: BenchContext, tests: list[MaxTest], summaries: list[dict], repeats: int,
               scratch: Path) -> list[dict]:
    """Where fast's time goes on each test (medians of `repeats` runs of `phases.py`)."""
    say()
    say(f"where fast's time goes (ms; medians of {repeats} runs of benchmarks/phases.py, a "
        "child doing what `pipeline solve` does; start = interpreter start-up and exit)")
    widths = (15, 20, *(7,) * len(PHASES), 7, 7, 5)
    header = ("problem", "recipe", *PHASES, "sum", "fast", "goal")
    say(_row(header, widths))
    say(_row(tuple("-" * w for w in widths), widths))
    report = scratch / "phases.json"
    results = []
    for test, summary in zip(tests, summaries):
        runs: dict[str, list[float]] = {name: [] for name in PHASES}
        for rep in range(repeats):
            run = spawn_timed([sys.executable, str(PHASES_SCRIPT), test.problem, "fast",
                               str(report)], stdin=test.path, stdout=scratch / "phases.out")
            if run.exit_code != 0:
                fail(ctx, f"{test.problem}/{test.recipe}: phases.py exited with "
                     f"{run.exit_code}: {run.stderr.strip()[-300:]}")
                break
            seconds = json.loads(report.read_text())
            seconds["start"] = run.wall_s - sum(seconds.values())
            for name in PHASES:
                runs[name].append(seconds[name])
                record(ctx, SECTION + "/phases", f"{name}_s", seconds[name], "s",
                       problem=test.problem, recipe=test.recipe, size=test.size,
                       solver="fast", repeat=rep)
        if not runs["start"]:
            continue
        medians = {name: median(values) for name, values in runs.items()}
        for name, value in medians.items():
            record(ctx, SECTION + "/phases", f"{name}_s_median", value, "s",
                   problem=test.problem, recipe=test.recipe, size=test.size, solver="fast")
        cells = [f"{medians[name] * 1000:.0f}" for name in PHASES]
        say(_row((test.problem, test.recipe, *cells, f"{sum(medians.values()) * 1000:.0f}",
                  f"{summary['fast_s'] * 1000:.0f}", "met" if summary["goal_met"] else "MISS"),
                 widths))
        results.append({"problem": test.problem, "recipe": test.recipe, **medians})
    return results


def _row(values, widths) -> str:
    return "  ".join(v.ljust(w) if i < 2 else v.rjust(w)
                     for i, (v, w) in enumerate(zip(values, widths))).rstrip()
