"""Section `growth`: how each stage's solve time grows with the problem's size.

Per problem the ladder of sizes and the function building a case of each size come from the
problem itself (`[growth]` in its `problem.toml`, `growth_case` in its code), shaped like its
max tests.

Every stage is timed on the solve alone (parsing excluded: each case is rendered and parsed
once beforehand, so that a stage gets the case as `pipeline run` hands it over, packed for
native code where its problem's parser keeps that form), after one untimed warm-up call on
the smallest case (native code loaded), with the garbage
collector off while timing. A point is the median of at least 3 runs (up to 15 while they add
up to under 0.3 s; a single run once one takes over a second). A stage's ladder ends at the
first size it refuses (its limits grow with size), once a point takes more than `cap_s`, or
when the next point is predicted to take more than twice that. The exponent k of
`time ~ n^k` is the least-squares slope of log time against log size over the points that
take at least 0.5 ms (the four largest points when fewer than four do). For `fast` the claim
in `stage.complexity` is turned into a model (n, n log n, n log^2 n, n^2) whose own exponent
over the same sizes is printed beside it; the goal is the measured k within 0.3 of it.
"""

from __future__ import annotations

import gc
import math
import re
import time
from collections.abc import Callable

from benchmarks.common import BenchContext, fail, fit_exponent, goal, median, record, say
from pipeline.problems import get_problem

SECTION = "growth"
MIN_FIT_TIME_S = 5e-4
MIN_FIT_POINTS = 4
EXPONENT_TOLERANCE = 0.3


# -- complexity claims -------------------------------------------------------------------------

def claim_model(claim: str) -> tuple[str, Callable[[float], float]] | None:
    """A size model for a complexity claim in one size variable, or None if unclear.

    `O(N log^2 N)` -> n log^2 n; anything with `log` or `sort` -> n log n; a squared size
    -> n^2; a plain sum of linear terms (`O(N)`, `O(n + m + 2048 * queries)`,
    `O(total length ...)`) -> n.
    """
    match = re.search(r"O\((.*)\)", claim)
    if not match:
        return None
    body = match.group(1).lower()
    if "log^2" in body or "log²" in body:
        return "n log^2 n", lambda n: n * math.log(n) ** 2
    if "log" in body or "sort" in body:
        return "n log n", lambda n: n * math.log(n)
    if re.search(r"\b(n|p|l)\s*\^\s*2", body):
        return "n^2", lambda n: n * n
    if re.fullmatch(r"[a-z0-9_ +*.,()]*", body) and "^" not in body:
        return "n", lambda n: n
    return None


# -- measuring ---------------------------------------------------------------------------------

def _time_solve(solve: Callable, case, repeats: int, min_total_s: float = 0.3,
                max_repeats: int = 15) -> list[float]:
    """At least `repeats` timed calls (more, up to `max_repeats`, while they add up to less
    than `min_total_s`, so sub-millisecond points get a stable median on a busy machine);
    a single call when the first one takes over a second. The garbage collector is run once
    before and kept off during the calls (as `timeit` does)."""
    times: list[float] = []
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        while len(times) < max_repeats:
            started = time.perf_counter()
            solve(case)
            times.append(time.perf_counter() - started)
            if times[0] > 1.0 or (len(times) >= repeats and sum(times) >= min_total_s):
                break
    finally:
        if was_enabled:
            gc.enable()
    return times


def run_growth(ctx: BenchContext, problems: list[str], sizes: dict[str, list[int]] | None = None,
               repeats: int = 3, cap_s: float = 2.0, seed: int = 1) -> dict[str, dict[str, float]]:
    """Time every stage of every problem over its ladder; print and return the exponents."""
    say(f"solve time only (parse excluded), median of >= {repeats} runs; k = slope of log time "
        f"vs log size over points >= {MIN_FIT_TIME_S * 1000:g} ms (else the largest "
        f"{MIN_FIT_POINTS}); a ladder stops past {cap_s:g} s a point")
    exponents: dict[str, dict[str, float]] = {}
    for problem_id in problems:
        ladder = get_problem(problem_id).growth
        if ladder is None:
            say(f"{problem_id}: no growth ladder in its problem.toml; skipped")
            continue
        points = list(sizes.get(problem_id, ladder.sizes)) if sizes else list(ladder.sizes)
        try:
            exponents[problem_id] = _grow_problem(ctx, problem_id, points, repeats, cap_s,
                                                  seed)
        except Exception as error:  # a broken module must not sink the other problems
            fail(ctx, f"growth of {problem_id}: {type(error).__name__}: {error}")
    return exponents


def _grow_problem(ctx: BenchContext, problem_id: str, sizes: list[int], repeats: int,
                  cap_s: float, seed: int) -> dict[str, float]:
    problem = get_problem(problem_id)
    ladder = problem.growth
    say(f"{problem.id}: {ladder.description}; sizes {_short(sizes[0])}..{_short(sizes[-1])} "
        f"({problem.size_measure})")
    cases = []
    for n in sizes:
        case = ladder.make(n, seed)
        cases.append((problem.size(case), problem.parse(problem.render(case))))
    exponents: dict[str, float] = {}
    for stage in problem.stages:
        measured: list[tuple[int, float]] = []
        note = ""
        for n, case in cases:
            try:
                reason = stage.refuses(case)
            except Exception as error:  # a crashing `refuses` would crash `pipeline run` too
                fail(ctx, f"{problem.id} {stage.name}: refuses() raised on the {_short(n)} "
                     f"ladder case: {type(error).__name__}: {str(error)[:200]}")
                note = f"; refuses() raised at {_short(n)}"
                break
            if reason is not None:  # limits grow with size: larger points are refused too
                note = f"; refuses from {_short(n)}"
                break
            if measured:
                last_n, last_t = measured[-1]
                k = 2.0 if len(measured) < 2 else max(1.0, fit_exponent(
                    [m[0] for m in measured[-2:]], [m[1] for m in measured[-2:]]))
                if last_t * (n / last_n) ** k > 2 * cap_s:
                    note = f"; stopped before {_short(n)} (predicted > {2 * cap_s:g} s)"
                    break
            else:
                stage.solve(case)  # warm-up: native code, module-level tables
            times = _time_solve(stage.solve, case, repeats)
            point = median(times)
            measured.append((n, point))
            for rep, value in enumerate(times):
                record(ctx, SECTION, "solve_s", value, "s", problem=problem.id,
                       solver=stage.name, size=n, repeat=rep)
            record(ctx, SECTION, "solve_s_median", point, "s", problem=problem.id,
                   solver=stage.name, size=n)
            if point > cap_s:
                note = f"; stopped after {_short(n)} ({point:.1f} s)"
                break
        if not measured:
            say(f"  {stage.name + ':':<20} no point measured{note}   claim {stage.complexity}")
            continue
        exponents[stage.name] = _report_stage(ctx, problem.id, stage, measured, note)
    return exponents


def _report_stage(ctx: BenchContext, problem_id: str, stage, measured: list[tuple[int, float]],
                  note: str) -> float:
    fit_points = [(n, t) for n, t in measured if t >= MIN_FIT_TIME_S]
    if len(fit_points) < MIN_FIT_POINTS:
        fit_points = measured[-MIN_FIT_POINTS:]
    k = fit_exponent([n for n, _ in fit_points], [t for _, t in fit_points])
    record(ctx, SECTION, "exponent", k, "k", problem=problem_id, solver=stage.name,
           size=measured[-1][0] if measured else None)
    span = (f"{len(fit_points)} pts {_short(fit_points[0][0])}..{_short(fit_points[-1][0])}, "
            f"{_ms(fit_points[0][1])}..{_ms(fit_points[-1][1])}") if fit_points else "no points"
    k_text = f"n^{k:.2f}" if not math.isnan(k) else "n^?   "
    line = f"  {stage.name + ':':<20} {k_text:<8} ({span}{note})  " \
           f"claim {stage.complexity}"
    if stage.name == "fast":
        model = claim_model(stage.complexity)
        if model is not None and len(fit_points) >= 2:
            name, func = model
            model_k = fit_exponent([n for n, _ in fit_points], [func(n) for n, _ in fit_points])
            record(ctx, SECTION, "claim_exponent", model_k, "k", problem=problem_id,
                   solver=stage.name)
            near = not math.isnan(k) and abs(k - model_k) <= EXPONENT_TOLERANCE
            mark = goal(ctx, SECTION, near, f"{problem_id} fast grows as n^{k:.2f}, claim "
                        f"{stage.complexity} is n^{model_k:.2f} over these sizes",
                        problem=problem_id, solver="fast")
            line += f" = {name} ~ n^{model_k:.2f} here: {'near' if near else 'OFF'} ({mark})"
    say(line)
    return k


def _short(n: int) -> str:
    """1000 -> 1e3, 300000 -> 3e5; other numbers with thousands separators."""
    exponent = len(str(n)) - 1
    lead = n / 10**exponent
    if n >= 1000 and lead == int(lead):
        return f"{int(lead)}e{exponent}"
    return f"{n:,}"


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms" if seconds < 1 else f"{seconds:.2f} s"
