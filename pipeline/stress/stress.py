"""`pipeline stress`: generate cases from recipes, judge S against R, shrink and keep failures.
Cases come in a fixed sequence and failures are shrunk in its order, so one seed gives the same
findings whatever the workers (docs/stress.md).
"""

from __future__ import annotations

import fnmatch
import itertools
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from pipeline.errors import InputError, UnknownName, UserError
from pipeline.problems import get_problem
from pipeline.problems.identity import case_id_of
from pipeline.problems.model import Case, Problem, Recipe
from pipeline.programs.program import Program
from pipeline.progress import Status
from pipeline.stress.findings import (
    STRESS_GROUP,
    KeptCase,
    interrupts_deferred,
    keep_case,
    record_finding,
    safe_name,
)
from pipeline.stress.judge import Judge, Trial, open_judge
from pipeline.stress.shrink import Shrunk, shrink

KIND_WEIGHT = {"tiny": 16, "edge": 4, "family": 1, "max": 1}
MAX_ROUND = 4096
REPEATS_PER_ROUND = 4
ROUND_TARGET_S = 0.25
INVALID_GIVE_UP = 64   # rejected inputs, none accepted yet: the recipes make no valid input


class StressError(UserError):
    """A session that cannot go on: a recipe raised, there is none, or none makes a valid input."""


@dataclass(frozen=True)
class StressRequest:
    problem: str
    solver: str
    against: str | None = None
    recipes: tuple[str, ...] = ()       # names or shell patterns; empty: every recipe but max
    budget_s: float = 60.0              # the session's time (a shrink under way may finish)
    stop_after: int = 1                 # kept findings
    seed: int = 1
    jobs: int | None = None
    externals: tuple[Program, ...] = ()
    shrink_budget_s: float = 120.0      # per failure
    command: str = ""
    executor: str = "local"             # or "dask" (with `scheduler`, else a local cluster)
    scheduler: str | None = None
    generators: tuple[str, ...] = ()    # generator commands made recipes ("gen 10 {seed}")
    group: str | None = None            # a package's test group every case is held to
    sandbox: str = "auto"               # external programs: auto, on or off (as `run`)


@dataclass(frozen=True)
class Found:
    """One failure: where it came from, what shrinking made of it, where it was kept."""

    index: int           # in the session's case sequence
    recipe: str
    recipe_index: int    # k of `problem.generate(recipe, seed, k)`
    original: Trial
    shrunk: Shrunk
    found_s: float
    kept: KeptCase | None      # None when it shrank to a case already kept
    finding_id: str | None


@dataclass
class StressSummary:
    problem: str
    solver: str
    reference: str
    recipes: tuple[str, ...]
    status: str = "running"    # then: stopped (enough findings), budget, interrupted
    generated: int = 0
    judged: int = 0
    repeated: int = 0          # inputs generated again (not judged again)
    invalid: int = 0           # inputs the problem's input validators rejected (not judged)
    invalid_example: str = ""  # the first rejection: the recipe and the validator's message
    unjudged: int = 0          # no reference could answer, or the judge failed (JE)
    unjudged_example: str = ""  # why the first of them was not judged
    search_s: float = 0.0      # generating and judging, shrinking not counted
    rounds: int = 0
    first_round_s: float = 0.0   # includes the workers' start-up (imports, warm-up)
    first_round_cases: int = 0
    failures: list[Found] = field(default_factory=list)

    @property
    def kept(self) -> list[Found]:
        return [f for f in self.failures if f.kept is not None]

    @property
    def rate(self) -> float:
        """Cases judged per second of search."""
        return self.judged / self.search_s if self.search_s > 0 else 0.0

    @property
    def steady_rate(self) -> float:
        """The same after the first round (which pays for starting the workers)."""
        seconds = self.search_s - self.first_round_s
        return (self.judged - self.first_round_cases) / seconds if seconds > 0 else self.rate


def choose_recipes(problem: Problem, patterns: tuple[str, ...]) -> list[Recipe]:
    """The recipes named (shell patterns allowed), in the problem's order; by default every
    recipe but the `max` ones."""
    if not patterns:
        return [r for r in problem.recipes if r.kind != "max"]
    names = [r.name for r in problem.recipes]
    chosen: set[str] = set()
    for pattern in patterns:
        matched = fnmatch.filter(names, pattern)
        if not matched:
            raise UnknownName(f"problem {problem.id} has no recipe {pattern!r}; recipes: "
                              f"{', '.join(names)}")
        chosen.update(matched)
    return [r for r in problem.recipes if r.name in chosen]


@dataclass(frozen=True)
class Schedule:
    """The session's case sequence: index -> (recipe, k)."""

    recipes: tuple[Recipe, ...]

    def at(self, index: int) -> tuple[Recipe, int]:
        weights = [KIND_WEIGHT[r.kind] for r in self.recipes]
        cycle, offset = divmod(index, sum(weights))
        for recipe, weight in zip(self.recipes, weights):
            if offset < weight:
                return recipe, cycle * weight + offset
            offset -= weight
        raise AssertionError("unreachable")


def with_generators(problem: Problem, commands: tuple[str, ...],
                    data_dir: Path) -> tuple[Problem, list[Recipe]]:
    """The problem with a recipe added for each generator command, and those recipes; a
    command that names no program, or one that does not build, raises `GeneratorError` now."""
    from pipeline.problems import generator_recipe

    made: dict[str, Recipe] = {}
    for command in commands:
        recipe = generator_recipe(problem, command, data_dir)
        made.setdefault(recipe.name, recipe)
    known = {r.name: r for r in problem.recipes}
    added = tuple(r for name, r in made.items() if name not in known)
    chosen = [known.get(name, recipe) for name, recipe in made.items()]
    return replace(problem, recipes=(*problem.recipes, *added)), chosen


def session_recipes(problem: Problem, request: StressRequest,
                    data_dir: Path) -> tuple[Problem, list[Recipe]]:
    """The problem (with the `--generator` recipes) and the recipes the session uses, in
    `request.group` when it names one."""
    if request.group is not None:
        groups = problem.test_groups
        if not groups:
            raise StressError(f"--group is for problem packages; {problem.id} is not one")
        if request.group not in groups:
            raise StressError(f"package {problem.id} has no test group {request.group!r}; "
                              f"groups: {', '.join(groups)}")
    if request.generators:  # their recipes, unless --recipe chooses (among them too)
        problem, recipes = with_generators(problem, request.generators, data_dir)
    if request.recipes or not request.generators:
        recipes = choose_recipes(problem, request.recipes)
    if not recipes:
        raise StressError(f"problem {problem.id} has no recipe to generate cases from; give "
                          'a generator with --generator "PROGRAM ARGS {seed}"')
    if request.group is not None:
        recipes = [replace(r, group=request.group) for r in recipes]
        problem = replace(problem, recipes=tuple(
            next((c for c in recipes if c.name == r.name), r) for r in problem.recipes))
    return problem, recipes


def stress(data_dir: Path, request: StressRequest, status: Status | None = None) -> StressSummary:
    """Run the stress session; the findings are kept as they are made (see the module)."""
    problem, recipes = session_recipes(get_problem(request.problem), request, Path(data_dir))
    status = status or Status()
    judge = open_judge(problem, request.solver, request.against, request.externals,
                       Path(data_dir), request.jobs, executor_kind=request.executor,
                       scheduler=request.scheduler, sandbox=request.sandbox)
    summary = StressSummary(problem.id, request.solver, judge.reference_label,
                            tuple(r.name for r in recipes))
    try:
        _search(Path(data_dir), problem, request, judge, Schedule(tuple(recipes)), summary,
                status)
    except KeyboardInterrupt:
        summary.status = "interrupted"
    finally:
        status.close()
        judge.close()
    return summary


def _generate(problem: Problem, schedule: Schedule, seed: int,
              index: int) -> tuple[Recipe, int, Case | None, str]:
    """Case `index` of the session: (recipe, k, case, text); the case is None when the
    problem rejects the input (its parser or input validators), and the text then says why."""
    recipe, k = schedule.at(index)
    try:
        case = problem.generate(recipe.name, seed, k)
        return recipe, k, case, problem.render(case)
    except InputError as error:
        return recipe, k, None, str(error)
    except Exception as error:
        raise StressError(f"recipe {recipe.name} (seed {seed}, case {k}) of {problem.id} "
                          f"raised {type(error).__name__}: {error}") from None


def _rejection(problem: Problem, recipe: Recipe, text: str) -> str | None:
    """Why the problem's input validators reject a generated input (None: they accept it, or
    the problem has none)."""
    if problem.check_input is None:
        return None
    try:
        problem.validate_input(text, recipe.group)
    except InputError as error:
        return str(error)
    return None


def _search(data_dir: Path, problem: Problem, request: StressRequest, judge: Judge,
            schedule: Schedule, summary: StressSummary, status: Status) -> None:
    started = time.monotonic()
    seen: set[int] = set()   # hashes of the inputs judged
    label = f"stress {problem.id} {request.solver} vs {summary.reference}"
    indexes = itertools.count()  # of the case sequence
    round_size = 2 * judge.workers  # grows while rounds are quick
    upcoming: list[tuple[int, Recipe, int, Case, str]] = []
    rejected: set[int] = set()  # hashes of the generated inputs its validators rejected

    def reject(recipe: Recipe, k: int, why: str) -> None:
        summary.invalid += 1
        if not summary.invalid_example:
            summary.invalid_example = f"{recipe.name} #{k}: {why}"
        accepted = summary.generated - summary.invalid - summary.repeated
        if not accepted and summary.invalid >= INVALID_GIVE_UP:
            raise StressError(f"the first {summary.invalid} inputs generated for {problem.id} "
                              f"were all rejected; the first: {summary.invalid_example}")

    def prepare_one() -> None:
        """Generate the next case of the sequence into `upcoming` (unless already judged, or
        rejected by the problem)."""
        i = next(indexes)
        recipe, k, case, text = _generate(problem, schedule, request.seed, i)
        summary.generated += 1
        if case is None:
            reject(recipe, k, text)
            return
        digest = hash(text)
        if digest in rejected:
            reject(recipe, k, "")
            return
        if digest in seen:
            summary.repeated += 1
            return
        if (why := _rejection(problem, recipe, text)) is not None:
            rejected.add(digest)
            reject(recipe, k, why)
            return
        seen.add(digest)
        upcoming.append((i, recipe, k, case, text))

    def prepare_while_judging() -> None:
        if len(upcoming) < round_size:
            prepare_one()

    deadline = started + request.budget_s
    while True:
        if time.monotonic() >= deadline:
            summary.status = "budget"
            return
        round_started = time.monotonic()
        # Small recipes repeat themselves: a round takes what a few times its size of cases
        # gives (it may be empty once every input of the recipes has been judged).
        for _ in range(REPEATS_PER_ROUND * round_size):
            if len(upcoming) >= round_size:
                break
            prepare_one()
        items, upcoming[:] = list(upcoming), []
        trials = judge.check([(case, text) for _, _, _, case, text in items],
                             idle=prepare_while_judging,
                             groups=[recipe.group or None for _, recipe, _, _, _ in items])
        judged_before = summary.judged
        summary.judged += len(items)
        for trial in trials:
            if trial.verdict is None:
                summary.unjudged += 1
                summary.unjudged_example = summary.unjudged_example or trial.note or ""
        elapsed = time.monotonic() - round_started
        summary.search_s += elapsed
        if summary.rounds == 0:
            summary.first_round_s, summary.first_round_cases = elapsed, len(items)
        summary.rounds += 1
        if elapsed < ROUND_TARGET_S:
            round_size = min(MAX_ROUND, round_size * 2)
        elif elapsed > 4 * ROUND_TARGET_S and round_size > 1:
            round_size //= 2
        status.show(f"{label}: {summary.judged:,} cases judged ({summary.rate:,.0f}/s; "
                    f"{summary.generated / summary.search_s:,.0f}/s tried, repeats included), "
                    f"{len(summary.failures)} failures, {len(summary.kept)} kept, "
                    f"{time.monotonic() - started:.0f}/{request.budget_s:g} s")
        for position, ((i, recipe, k, case, _text), trial) in enumerate(zip(items, trials)):
            if not trial.failed:
                continue
            if time.monotonic() >= deadline:
                summary.status = "budget"
                return
            found_s = time.monotonic() - started
            number = len(summary.failures) + 1
            assert trial.verdict is not None  # a failed trial has its verdict
            status.say(f"failure {number}: case {i} ({recipe.name} #{k}, seed {request.seed}): "
                       f"{request.solver} {trial.verdict.value} against "
                       f"{trial.reference_name or 'no reference'}, size {trial.size}; "
                       "shrinking")

            def on_step(before: int, after: int, number: int = number) -> None:
                status.show(f"{label}: shrinking failure {number}: size {before} -> {after}")

            shrunk = shrink(problem, judge, case, trial,
                            deadline=time.monotonic() + request.shrink_budget_s,
                            on_step=on_step, group=recipe.group)
            with interrupts_deferred():
                how = ("locally minimal" if shrunk.locally_minimal
                       else f"stopped: {shrunk.stopped}")
                status.say(f"  shrunk to size {shrunk.trial.size} ({len(shrunk.trial.text)} "
                           f"bytes) in {shrunk.steps} steps (the last after "
                           f"{shrunk.last_step_s:.1f} s), {shrunk.candidates} candidates, "
                           f"{shrunk.seconds:.1f} s ({how})")
                found = Found(i, recipe.name, k, trial, shrunk, found_s, None, None)
                if any(shrunk.trial.text == f.shrunk.trial.text for f in summary.kept):
                    status.say("  the same case as an earlier finding: not kept again")
                else:
                    found = _keep(data_dir, problem, request, found,
                                  judged_before + position + 1)
                    assert found.kept is not None  # _keep keeps it
                    status.say(f"  kept as {found.kept.path} (group "
                               f"{kept_group(problem, recipe)})")
                    for note in found.kept.problems:
                        status.say(f"  ingest: {note}")
                summary.failures.append(found)
            if shrunk.stopped == "interrupted":
                raise KeyboardInterrupt
            if len(summary.kept) >= request.stop_after:
                summary.status = "stopped"
                return


def _keep(data_dir: Path, problem: Problem, request: StressRequest, found: Found,
          cases_tried: int) -> Found:
    original, shrunk, recipe = found.original, found.shrunk, found.recipe
    final = shrunk.trial
    name = f"{safe_name(request.solver)}-{case_id_of(final.text)[:12]}"
    kept = keep_case(data_dir, problem, kept_group(problem, problem.recipe(recipe)), name,
                     final.text, final.expected)
    assert final.verdict is not None and original.verdict is not None  # both failed
    finding_id = record_finding(
        data_dir, "stress", problem, request.solver, request.command, kept, final,
        original_verdict=original.verdict.value, original_answer=original.solver.answer,
        original_expected=original.expected, original_size=original.size,
        shrunk_size=final.size, original_bytes=len(original.text.encode()),
        input_bytes=len(final.text.encode()), recipe=recipe, seed=request.seed,
        case_index=found.recipe_index, cases_tried=cases_tried, time_to_find_s=found.found_s,
        time_to_shrink_s=shrunk.seconds, shrink_steps=shrunk.steps,
        shrink_candidates=shrunk.candidates, locally_minimal=shrunk.locally_minimal,
        shrink_stopped=shrunk.stopped, solver_ms=final.solver.cpu_ms)
    return replace(found, kept=kept, finding_id=finding_id)


def kept_group(problem: Problem, recipe: Recipe) -> str:
    """Where a finding is kept: group `found`; a package's under its recipe's group
    (`found/secret/group2`), which its validators and judging then apply to the case."""
    if problem.test_groups and recipe.group:
        return f"{STRESS_GROUP}/{recipe.group}"
    return STRESS_GROUP


def format_summary(summary: StressSummary) -> str:
    ending = {"stopped": "stopped after enough findings", "budget": "budget spent",
              "interrupted": "interrupted (findings so far are kept)"}.get(summary.status,
                                                                         summary.status)
    lines = [f"stress {summary.problem}: {summary.solver} against {summary.reference}, recipes "
             f"{', '.join(summary.recipes)}",
             f"  {summary.judged:,} cases judged in {summary.search_s:.1f} s "
             f"({summary.rate:,.0f} cases/s; {summary.repeated:,} repeated inputs skipped, "
             f"{summary.unjudged:,} not judged); {ending}"]
    if summary.unjudged:
        lines.append(f"  not judged (no reference answer, or a judge error): "
                     f"{summary.unjudged:,}; the first: {_short(summary.unjudged_example)}")
    if summary.invalid:
        lines.append(f"  {summary.invalid:,} generated inputs rejected by the problem (not "
                     f"judged); the first: {_short(summary.invalid_example)}")
    lines.append(f"  {len(summary.failures)} failures, {len(summary.kept)} kept")
    for number, found in enumerate(summary.kept, start=1):
        final = found.shrunk.trial
        assert final.verdict is not None and found.kept is not None  # a kept failure
        how = ("locally minimal" if found.shrunk.locally_minimal
               else f"not shown minimal: {found.shrunk.stopped}")
        lines.append(f"finding {number}: {final.verdict.value}, recipe {found.recipe} #"
                     f"{found.recipe_index}, found after {found.found_s:.1f} s; size "
                     f"{found.original.size} -> {final.size} in {found.shrunk.seconds:.1f} s "
                     f"(the last step after {found.shrunk.last_step_s:.1f} s; {how})")
        lines.append(f"  kept as {found.kept.path}")
        shown = final.text if len(final.text) <= 2000 else final.text[:2000] + "...\n"
        lines.extend("    | " + line for line in shown.rstrip("\n").split("\n"))
        if final.expected is not None:
            lines.append(f"  expected ({final.reference_name}): {_short(final.expected)}")
        if final.solver.answer is not None:
            lines.append(f"  got ({summary.solver}): {_short(final.solver.answer)}")
        if final.solver.error:
            lines.append(f"  error: {_short(final.solver.error)}")
    if again := len(summary.failures) - len(summary.kept):
        lines.append(f"{again} more failures shrank to cases already kept")
    return "\n".join(lines)


def _short(text: str, limit: int = 200) -> str:
    flat = " / ".join(text.strip().split("\n"))
    return flat if len(flat) <= limit else flat[:limit] + "..."
