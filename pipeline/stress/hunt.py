"""`pipeline hunt`: search for inputs of a given size on which S is slowest: start from the
slowest of the growth ladder's and the recipes' cases, climb by timed mutants, keep the slowest
case in group `hunt` (the steps: docs/stress.md, `pipeline hunt`).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from pathlib import Path

from pipeline.errors import UserError
from pipeline.problems import get_problem
from pipeline.problems.identity import case_id_of
from pipeline.problems.model import Case, Problem
from pipeline.programs.program import Program
from pipeline.progress import Status
from pipeline.stress import generic
from pipeline.stress.findings import (
    HUNT_GROUP,
    KeptCase,
    interrupts_deferred,
    keep_case,
    record_finding,
    safe_name,
)
from pipeline.stress.judge import Judge, Trial, measured_ms, open_judge
from pipeline.verdicts import Verdict

GROWTH_STARTS = 8
RECIPE_SAMPLES = 4
MAX_STARTS = 12
KEEP_FRACTION = 0.9   # starting cases: those at least this fraction of the largest's size
PROMISING = 1.05
BETTER = 1.05
MAX_CHAIN = 8


class HuntError(UserError):
    """A hunt that cannot start (no case of the size, no mutation that applies)."""


@dataclass(frozen=True)
class HuntRequest:
    problem: str
    solver: str
    size: int | None = None           # default: the first rung of the growth ladder
    budget_s: float = 120.0
    rounds: int | None = None         # stop after this many rounds (or at the budget)
    seed: int = 1
    jobs: int | None = None
    externals: tuple[Program, ...] = ()
    repeats: int = 3
    command: str = ""
    sandbox: str = "auto"             # external programs: auto, on or off (as `run`)


@dataclass
class HuntSummary:
    problem: str
    solver: str
    size: int
    status: str = "running"          # then: budget, rounds, timeout (S ran out of time),
                                      # interrupted
    starts: int = 0
    start_recipe: str = ""
    baseline_ms: float = 0.0          # the slowest starting case, median of `repeats`
    best_ms: float = 0.0
    best_text: str = ""
    best_size: int = 0
    rounds: int = 0
    mutants: int = 0                  # mutants timed
    improvements: int = 0
    seconds: float = 0.0
    time_to_best_s: float = 0.0
    trial: Trial | None = None        # S and the reference on the slowest case
    kept: KeptCase | None = None
    finding_id: str | None = None

    @property
    def ratio(self) -> float:
        return self.best_ms / self.baseline_ms if self.baseline_ms > 0 else float("inf")


def default_size(problem: Problem) -> int:
    if problem.growth is not None:
        return problem.growth.sizes[0]
    sizes = [problem.size(problem.generate(r.name, 1, k)) for r in problem.recipes
             if r.kind != "max" for k in range(RECIPE_SAMPLES)]
    if not sizes:
        raise HuntError(f"problem {problem.id} has neither a growth ladder nor a recipe to "
                        "start a hunt from")
    return max(sizes)


def _valid(problem: Problem, made: Case | str, size: int,
           group: str = "") -> tuple[Case, str] | None:
    """(parsed case, text) when the case (or text) renders, parses, is at most `size` and
    passes the problem's input validators (as an input of `group`) when it has some."""
    try:
        text = made if isinstance(made, str) else problem.render(made)
        parsed = problem.parse(text)
    except Exception:
        return None
    if problem.size(parsed) > size:
        return None
    if problem.check_input is not None:
        try:
            problem.validate_input(text, group)
        except Exception:
            return None
    return parsed, text


def starting_cases(problem: Problem, size: int, seed: int) -> list[tuple[str, Case, str]]:
    """(where from, case, text) of the starting cases (see the module)."""
    pool: list[tuple[str, Case, str]] = []
    if problem.growth is not None:
        for k in range(GROWTH_STARTS):
            if found := _valid(problem, problem.growth.make(size, seed * 1000 + k), size):
                pool.append(("growth", *found))
    for recipe in problem.recipes:
        if recipe.kind == "max" and problem.growth is not None:
            continue
        for k in range(1 if recipe.kind == "max" else RECIPE_SAMPLES):
            found = _valid(problem, problem.generate(recipe.name, seed, k), size, recipe.group)
            if found:
                pool.append((recipe.name, *found))
    if not pool:
        raise HuntError(f"no recipe of {problem.id} makes a case of size at most {size}")
    largest = max(problem.size(case) for _, case, _ in pool)
    kept = [item for item in pool if problem.size(item[1]) >= KEEP_FRACTION * largest]
    unique = list({text: (origin, case, text) for origin, case, text in kept}.values())
    return unique[:MAX_STARTS]


def _mutant(problem: Problem, case: Case, text: str, rng: random.Random) -> Case | str | None:
    """1 to MAX_CHAIN random mutations in a row (a case, or a text for generic ones)."""
    chain = 1 + min(MAX_CHAIN - 1, int(rng.expovariate(0.7)))
    mutations = problem.mutations or [mutation for _, mutation in generic.MUTATIONS]
    current: Case | str = case if problem.mutations else text
    for _ in range(chain):
        if (changed := rng.choice(mutations)(current, rng)) is not None:
            current = changed
    unchanged = current is case if problem.mutations else current == text
    return None if unchanged else current


def hunt(data_dir: Path, request: HuntRequest, status: Status | None = None) -> HuntSummary:
    problem = get_problem(request.problem)
    size = request.size or default_size(problem)
    status = status or Status()
    starts = starting_cases(problem, size, request.seed)
    judge = open_judge(problem, request.solver, None, request.externals, Path(data_dir),
                       request.jobs, need_reference=False, sandbox=request.sandbox)
    summary = HuntSummary(problem.id, request.solver, size, starts=len(starts))
    try:
        _climb(Path(data_dir), problem, request, judge, starts, summary, status)
    except KeyboardInterrupt:
        summary.status = "interrupted"
    finally:
        try:
            if summary.best_text:
                with interrupts_deferred():
                    _keep(Path(data_dir), problem, request, judge, summary)
        except KeyboardInterrupt:
            summary.status = "interrupted"
        finally:
            status.close()
            judge.close()
    return summary


def _climb(data_dir: Path, problem: Problem, request: HuntRequest, judge: Judge,
           starts: list[tuple[str, Case, str]], summary: HuntSummary, status: Status) -> None:
    timeout_s = judge.solver.timeout_s
    started = time.monotonic()
    deadline = started + request.budget_s
    timed = judge.time([text for _, _, text in starts], request.repeats)
    medians = [measured_ms(outcomes, timeout_s) for outcomes in timed]
    slowest = max(range(len(starts)), key=lambda i: medians[i])
    summary.start_recipe, best_case, best_text = starts[slowest]
    best_outcomes, best_ms = timed[slowest], medians[slowest]
    summary.baseline_ms = summary.best_ms = best_ms
    summary.best_text, summary.best_size = best_text, problem.size(best_case)
    summary.time_to_best_s = time.monotonic() - started
    status.say(f"hunt {problem.id} {request.solver} at size {summary.size}: {len(starts)} "
               f"starting cases, slowest {best_ms:.1f} ms ({summary.start_recipe})")
    group = next((r.group for r in problem.recipes if r.name == summary.start_recipe), "")
    rng = random.Random(f"hunt/{problem.id}/{request.seed}")
    seen = {hash(text) for _, _, text in starts}
    width = max(2, 2 * judge.workers)
    while time.monotonic() < deadline:
        if summary.rounds == request.rounds:
            summary.status = "rounds"
            return
        if any(o.verdict is Verdict.TLE for o in best_outcomes) or best_ms >= timeout_s * 1000:
            summary.status = "timeout"
            return
        summary.rounds += 1
        mutants: list[tuple[Case, str]] = []
        for _ in range(50 * width):
            if len(mutants) >= width:
                break
            made = _mutant(problem, best_case, best_text, rng)
            found = None if made is None else _valid(problem, made, summary.size, group)
            if found is None or hash(found[1]) in seen:
                continue
            seen.add(hash(found[1]))
            mutants.append(found)
        if not mutants:
            if summary.rounds == 1:
                raise HuntError(f"no mutation of {problem.id} applies to its starting case")
            continue
        first = judge.time([best_text] + [text for _, text in mutants], 1)
        summary.mutants += len(mutants)
        now_ms = measured_ms(first[0], timeout_s)
        times = [measured_ms(outcomes, timeout_s) for outcomes in first[1:]]
        promising = sorted((i for i, t in enumerate(times)
                            if t > PROMISING * max(now_ms, 1e-3)), key=lambda i: -times[i])[:2]
        if promising:
            again = judge.time([best_text] + [mutants[i][1] for i in promising], request.repeats)
            current = measured_ms(again[0], timeout_s)
            confirmed = [(measured_ms(outcomes, timeout_s), i)
                         for outcomes, i in zip(again[1:], promising)]
            top_ms, top = max(confirmed)
            if top_ms > BETTER * current:
                best_case, best_text = mutants[top]
                best_ms, best_outcomes = top_ms, again[1 + promising.index(top)]
                summary.improvements += 1
                summary.best_text, summary.best_ms = best_text, best_ms
                summary.best_size = problem.size(best_case)
                summary.time_to_best_s = time.monotonic() - started
        summary.seconds = time.monotonic() - started
        status.show(f"hunt {problem.id} {request.solver} at size {summary.size}: "
                    f"{summary.mutants} mutants, {summary.improvements} improvements, slowest "
                    f"{best_ms:.1f} ms = {summary.ratio:.1f}x the slowest start "
                    f"({summary.seconds:.0f}/{request.budget_s:g} s)")
    summary.status = "budget"


def _keep(data_dir: Path, problem: Problem, request: HuntRequest, judge: Judge,
          summary: HuntSummary) -> None:
    case = problem.parse(summary.best_text)
    if summary.status != "interrupted":
        summary.best_ms = measured_ms(judge.time([summary.best_text], request.repeats)[0],
                                      judge.solver.timeout_s)
        summary.trial = judge.check([(case, summary.best_text)])[0]
    expected = summary.trial.expected if summary.trial is not None else None
    name = (f"{safe_name(request.solver)}-n{summary.best_size}-"
            f"{case_id_of(summary.best_text)[:12]}")
    summary.kept = keep_case(data_dir, problem, HUNT_GROUP, name, summary.best_text, expected)
    summary.finding_id = record_finding(
        data_dir, "hunt", problem, request.solver, request.command, summary.kept,
        summary.trial, original_size=summary.size, hunt_size=summary.best_size,
        input_bytes=len(summary.best_text.encode()), recipe=summary.start_recipe,
        seed=request.seed, cases_tried=summary.mutants + summary.starts,
        time_to_find_s=summary.time_to_best_s, solver_ms=summary.best_ms,
        baseline_ms=summary.baseline_ms)


def format_summary(summary: HuntSummary) -> str:
    ending = {"budget": "budget spent", "rounds": f"{summary.rounds} rounds done",
              "timeout": f"{summary.solver} ran out of time",
              "interrupted": "interrupted (the slowest case so far is kept)"}.get(
        summary.status, summary.status)
    lines = [f"hunt {summary.problem}: {summary.solver} at size {summary.size}, "
             f"{summary.starts} starting cases, {summary.rounds} rounds, {summary.mutants} "
             f"mutants timed, {summary.improvements} improvements; {ending}",
             f"  slowest start ({summary.start_recipe}): {summary.baseline_ms:.1f} ms; slowest "
             f"found: {summary.best_ms:.1f} ms = {summary.ratio:.1f}x, size {summary.best_size}, "
             f"reached after {summary.time_to_best_s:.1f} s"]
    if summary.trial is not None and summary.trial.verdict is not None:
        lines.append(f"  {summary.solver} on it: {summary.trial.verdict.value} against "
                     f"{summary.trial.reference_name or 'no reference'}")
    if summary.kept is not None:
        lines.append(f"  kept as {summary.kept.path} (group {HUNT_GROUP})")
    return "\n".join(lines)
