"""Inputs the sections share, made once per bench run: C++ binaries and max-test files.

- `binaries`: our C++ solutions (each problem's `[[solutions]]` in its `problem.toml`)
  built with their configured command (`g++ -O2 -std=c++17`) through
  `pipeline.run.solvers.prepare`, which caches each build under `DATA/build/<source hash>/`, so
  `pipeline run` and later bench runs reuse it. Builds run two at a time.
- `max_tests`: every `max*` recipe of every problem, generated with a fixed seed and rendered
  to `WORK/max/<problem>/<recipe>.in`.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from benchmarks.common import BenchContext, fail, say
from pipeline.problems import Problem, get_problem

MAX_SEED = 1


@dataclass(frozen=True)
class MaxTest:
    problem: str
    recipe: str
    size: int
    path: Path
    input_bytes: int


def max_recipes(problem: Problem, quick: bool = False) -> list[str]:
    """The problem's max recipes (kind `max` or a name starting with `max`); one when quick."""
    names = [r.name for r in problem.recipes if r.kind == "max" or r.name.startswith("max")]
    return names[:1] if quick else names


def binaries(ctx: BenchContext, problems: list[str], data_dir: Path) -> dict[str, tuple[str, ...]]:
    """problem -> argv of its built C++ solution (problems whose build fails are left out)."""
    from pipeline.run.solvers import configured_externals, prepare

    cache: dict[str, tuple[str, ...]] = ctx.cache.setdefault("binaries", {})
    todo = []
    for problem_id in problems:
        if problem_id in cache:
            continue
        configured = configured_externals(get_problem(problem_id))
        solvers = [s for s in configured if s.name == "cpp"] or configured
        if not solvers:
            say(f"  (no external solver configured for {problem_id}: no C++ figures)")
            continue
        todo.append((problem_id, solvers[0]))

    def build(item):
        problem_id, solver = item
        try:
            return problem_id, prepare(solver, data_dir), None
        except Exception as error:  # a broken build is a failure line, not a crashed bench
            return problem_id, None, error

    with ThreadPoolExecutor(max_workers=2) as pool:
        for problem_id, argv, error in pool.map(build, todo):
            if error is not None:
                fail(ctx, f"building the C++ solution of {problem_id}: {error}")
            else:
                cache[problem_id] = argv
    return {p: cache[p] for p in problems if p in cache}


def max_tests(ctx: BenchContext, problems: list[str], quick: bool = False) -> list[MaxTest]:
    """Generate (once per bench run) every max test of `problems` into the work folder."""
    cache: dict[tuple[str, str], MaxTest] = ctx.cache.setdefault("max_tests", {})
    out: list[MaxTest] = []
    for problem_id in problems:
        try:
            problem = get_problem(problem_id)
            recipes = max_recipes(problem, quick)
        except Exception as error:
            fail(ctx, f"{problem_id}: cannot load the problem: {error}")
            continue
        for recipe in recipes:
            key = (problem_id, recipe)
            if key not in cache:
                path = ctx.work_dir / "max" / problem_id / f"{recipe}.in"
                try:
                    case = problem.generate(recipe, MAX_SEED)
                    text = problem.render(case)
                    size = problem.size(case)
                except Exception as error:
                    fail(ctx, f"{problem_id}/{recipe}: generating the max test: {error}")
                    continue
                path.parent.mkdir(parents=True, exist_ok=True)
                data = text.encode("utf-8")
                path.write_bytes(data)
                cache[key] = MaxTest(problem_id, recipe, size, path, len(data))
            out.append(cache[key])
    return out
