"""Section `stress`: `stress` cases/s on tiny recipes, and the known-wrong stages found.

1. Throughput: for every problem, `stress` in this process (real worker processes, as a run
   has) with S = `fast` against the problem's reference order on the `tiny` recipe, for
   `budget_s`; then the same against the last reference before `fast` in that order (the
   middle reference, cheaper than the oracle), which shows the machinery beside the oracle's
   own cost. Printed: cases judged per second over the whole search and after its first round
   (which pays for starting the workers: imports, native code), cases tried (generated) per
   second (the tiny recipes repeat themselves; a repeated input is not judged again), and the
   CPU time per judged case of this process and of the workers, with the rate two idle cores
   would then allow. Goal (against the reference order): at least 5,000 cases judged per
   second after the first round.
2. Known-wrong stages: every stage with role `known-wrong` of the chosen problems is
   stressed from the default recipes (every recipe but the max ones) into an empty data
   folder for `wrong_budget_s`: found or not, the time to find it, its shrunk size and length
   against the counterexample the problem records (the smallest known). Goal: when found,
   no larger than that counterexample.
"""

from __future__ import annotations

import io
import resource
import tempfile
from pathlib import Path

from benchmarks.common import BenchContext, fail, goal, record, say
from pipeline.problems import get_problem
from pipeline.progress import Status
from pipeline.stress.stress import StressRequest, stress

SECTION = "stress"
RATE_GOAL = 5000.0


def _cpu_s(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def _middle_reference(problem) -> str | None:
    """The last trusted stage of the reference order before `fast`, if not the first one."""
    names = [n for n in problem.reference if n != "fast" and problem.stage(n).trusted]
    return names[-1] if len(names) > 1 else None


def run_throughput(ctx: BenchContext, problems: list[str], budget_s: float) -> list[dict]:
    say(f"`stress` on the tiny recipe, fast against the reference order (and against the "
        f"middle reference), {budget_s:g} s each, in-process with 2 workers")
    say(f"  {'problem':<16} {'against':<16} {'cases/s':>9} {'after 1st':>9} {'tried/s':>9} "
        f"{'parent us':>9} {'workers us':>10} {'2-core bound':>12}")
    results = []
    for problem_id in problems:
        problem = get_problem(problem_id)
        if "fast" not in {s.name for s in problem.stages}:
            continue
        middle = _middle_reference(problem)
        for against in [None] + ([middle] if middle else []):
            results.append(_throughput(ctx, problem_id, against, budget_s))
    return results


def _throughput(ctx: BenchContext, problem_id: str, against: str | None,
                budget_s: float) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-stress-", dir=ctx.work_dir) as data:
        parent, children = _cpu_s(resource.RUSAGE_SELF), _cpu_s(resource.RUSAGE_CHILDREN)
        summary = stress(Path(data), StressRequest(problem_id, "fast", against=against,
                                                   recipes=("tiny",), budget_s=budget_s,
                                                   jobs=2),
                         Status(io.StringIO()))
        parent = _cpu_s(resource.RUSAGE_SELF) - parent
        children = _cpu_s(resource.RUSAGE_CHILDREN) - children
    if summary.failures:
        fail(ctx, f"stress: {problem_id} fast failed against {summary.reference} on "
             f"{len(summary.failures)} tiny cases")
    judged = max(1, summary.judged)
    parent_us, workers_us = parent / judged * 1e6, children / judged * 1e6
    bound = 2e6 / (parent_us + workers_us)
    tried = summary.generated / summary.search_s if summary.search_s else 0.0
    reference = against or "reference order"
    keys = dict(problem=problem_id, recipe="tiny", solver=f"fast vs {reference}")
    record(ctx, SECTION, "cases_per_s", summary.rate, "cases/s", **keys)
    record(ctx, SECTION, "cases_per_s_after_first_round", summary.steady_rate, "cases/s",
           **keys)
    record(ctx, SECTION, "tried_per_s", tried, "cases/s", **keys)
    record(ctx, SECTION, "parent_cpu_us_per_case", parent_us, "us", **keys)
    record(ctx, SECTION, "workers_cpu_us_per_case", workers_us, "us", **keys)
    note = ""
    if against is None:
        mark = goal(ctx, SECTION, summary.steady_rate >= RATE_GOAL,
                    f"stress {problem_id} fast vs {summary.reference}: "
                    f"{summary.steady_rate:,.0f} cases/s after the first round (goal >= "
                    f"{RATE_GOAL:,.0f})", **keys)
        note = f"  (goal >= {RATE_GOAL:,.0f}: {mark})"
    say(f"  {problem_id:<16} {reference:<16} {summary.rate:>9,.0f} {summary.steady_rate:>9,.0f} "
        f"{tried:>9,.0f} {parent_us:>9.0f} {workers_us:>10.0f} {bound:>12,.0f}{note}")
    return {"problem": problem_id, "against": against, "rate": summary.rate,
            "steady_rate": summary.steady_rate, "tried_rate": tried}


def run_known_wrong(ctx: BenchContext, problems: list[str], budget_s: float) -> list[dict]:
    say(f"known-wrong stages, `stress` from the default recipes into an empty data folder, "
        f"budget {budget_s:g} s")
    results = []
    for problem_id in problems:
        problem = get_problem(problem_id)
        for stage in problem.stages:
            if stage.role != "known-wrong":
                continue
            example = stage.counterexample()
            example_size, example_text = problem.size(example), problem.render(example)
            with tempfile.TemporaryDirectory(prefix="bench-wrong-", dir=ctx.work_dir) as data:
                summary = stress(Path(data), StressRequest(problem_id, stage.name,
                                                           budget_s=budget_s, jobs=2),
                                 Status(io.StringIO()))
            keys = dict(problem=problem_id, solver=stage.name)
            record(ctx, SECTION, "known_size", example_size, "size", **keys)
            if not summary.kept:
                record(ctx, SECTION, "found", 0.0, "bool", **keys)
                say(f"  {problem_id} {stage.name}: not found in {summary.judged:,} cases, "
                    f"{summary.search_s:.0f} s (smallest known: size {example_size})")
                results.append({"problem": problem_id, "stage": stage.name, "found": False})
                continue
            found = summary.kept[0]
            final = found.shrunk.trial
            record(ctx, SECTION, "found", 1.0, "bool", **keys)
            record(ctx, SECTION, "time_to_find_s", found.found_s, "s", **keys)
            record(ctx, SECTION, "time_to_shrink_s", found.shrunk.seconds, "s", **keys)
            record(ctx, SECTION, "original_size", found.original.size, "size", **keys)
            record(ctx, SECTION, "shrunk_size", final.size, "size", **keys)
            record(ctx, SECTION, "shrunk_bytes", len(final.text), "bytes", **keys)
            met = (final.size, len(final.text)) <= (example_size, len(example_text))
            mark = goal(ctx, SECTION + "/known-wrong", met,
                        f"{problem_id} {stage.name}: shrunk to size {final.size} "
                        f"({len(final.text)} bytes), smallest known size {example_size} "
                        f"({len(example_text)} bytes)", **keys)
            say(f"  {problem_id} {stage.name}: found after {found.found_s:.1f} s "
                f"({found.recipe} #{found.recipe_index}, size {found.original.size}), shrunk "
                f"in {found.shrunk.seconds:.1f} s to size {final.size} ({len(final.text)} "
                f"bytes; smallest known: size {example_size}, {len(example_text)} bytes: "
                f"{mark}): {' / '.join(final.text.strip().splitlines())[:60]}")
            results.append({"problem": problem_id, "stage": stage.name, "found": True,
                            "found_s": found.found_s, "size": final.size})
    return results
