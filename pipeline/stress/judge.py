"""Running a solver S and its reference R on cases, and grading S as runs grade it.

S and R are names the run layer knows: a built-in stage, a configured solver (the problem's own
`[[solutions]]`, `configs/solvers.toml`) or an `--external NAME=COMMAND` program; the run
layer's `select_solvers` and `solver_specs` turn them into `SolverSpec`s, so any solver it can
build is one `stress` and `hunt` can use. Without `--against`, R is the problem's reference
order: per case, the first trusted stage of `reference` (S itself left out) whose limits accept
the case, the next one when it still skips.

Jobs go through the same executor as runs (`make_executor`: a local pool of workers that
import the problem once and run batches). S's verdict comes from `pipeline.verdicts.grade`
with R's answer as the expected one; a non-`ok` status of S is its verdict (RE, TLE, MLE, OLE)
whatever R does.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pipeline.errors import UnknownName
from pipeline.problems.base import Case, Problem
from pipeline.run.executors import Executor, make_executor
from pipeline.run.jobs import Job, Outcome, SolverSpec
from pipeline.run.request import RunRequest, Selection, select_solvers
from pipeline.run.solvers import ExternalSolver
from pipeline.verdicts import Verdict, grade

FAILING = frozenset({Verdict.WA, Verdict.RE, Verdict.TLE, Verdict.MLE, Verdict.OLE})
STATUS_VERDICT = {"tle": Verdict.TLE, "mle": Verdict.MLE, "re": Verdict.RE,
                  "ole": Verdict.OLE, "skip": Verdict.SKIP}


@dataclass(frozen=True)
class Trial:
    """One case run through S and R. `verdict` is S's (None when the case cannot be judged:
    no reference accepts it, or the reference failed; `note` says which)."""

    text: str
    size: int
    verdict: Verdict | None
    solver: Outcome
    reference: Outcome | None
    reference_name: str | None
    note: str | None = None

    @property
    def failed(self) -> bool:
        return self.verdict in FAILING

    @property
    def expected(self) -> str | None:
        """R's answer (the expected one), when R answered."""
        if self.reference is not None and self.reference.status == "ok":
            return self.reference.answer
        return None


class JudgeError(ValueError):
    """The solvers asked for cannot be judged against each other (no reference, a name used
    twice, an `--external` program that is neither S nor R)."""


def reference_order(problem: Problem, solver: str) -> tuple[str, ...]:
    """The default R: the trusted stages of the problem's reference order, S left out."""
    names = tuple(name for name in problem.reference
                  if name != solver and problem.stage(name).trusted)
    if not names:
        raise JudgeError(f"problem {problem.id} has no reference stage other than {solver!r}; "
                         "name one with --against")
    return names


@dataclass
class Judge:
    """S, the references tried in order, and the executor that runs them."""

    problem: Problem
    solver: SolverSpec
    references: tuple[SolverSpec, ...]
    executor: Executor
    workers: int

    @property
    def reference_label(self) -> str:
        names = [spec.name for spec in self.references]
        return names[0] if len(names) == 1 else f"reference order ({', '.join(names)})"

    def _next_reference(self, case: Case, start: int) -> int | None:
        """The position of the first reference from `start` on that may answer `case` (a
        built-in stage whose limits accept it, or any other solver)."""
        for position in range(start, len(self.references)):
            spec = self.references[position]
            if spec.kind != "stage" or self._stages[spec.stage].accepts(case):
                return position
        return None

    def __post_init__(self) -> None:
        self._stages = {s.name: s for s in self.problem.stages}

    def check(self, items: Sequence[tuple[Case, str]],
              idle: Callable[[], None] | None = None) -> list[Trial]:
        """Run S and R on every (case, text); one `Trial` per item, in order. `idle` is
        called after each outcome arrives (the caller prepares its next cases meanwhile)."""
        keys = itertools.count()
        where: dict[int, tuple[int, int]] = {}   # job key -> (item, reference position or -1)
        jobs: list[Job] = []
        for index, (case, text) in enumerate(items):
            key = next(keys)
            where[key] = (index, -1)
            jobs.append(Job(key, self.solver, f"case-{index}", text))
            position = self._next_reference(case, 0)
            if position is not None:
                key = next(keys)
                where[key] = (index, position)
                jobs.append(Job(key, self.references[position], f"case-{index}", text))
        solver_outcomes: dict[int, Outcome] = {}
        reference_outcomes: dict[int, tuple[str, Outcome]] = {}
        while jobs:
            again: list[Job] = []
            for job, outcome in self.executor.run(jobs):
                if idle is not None:
                    idle()
                index, position = where[job.key]
                if position < 0:
                    solver_outcomes[index] = outcome
                    continue
                following = (self._next_reference(items[index][0], position + 1)
                             if outcome.status == "skip" else None)
                if following is not None:
                    key = next(keys)
                    where[key] = (index, following)
                    again.append(Job(key, self.references[following], job.case_id, job.input))
                else:
                    reference_outcomes[index] = (job.solver.name, outcome)
            jobs = again
        return [self._grade(case, text, solver_outcomes[index], reference_outcomes.get(index))
                for index, (case, text) in enumerate(items)]

    def _grade(self, case: Case, text: str, solver: Outcome,
               reference: tuple[str, Outcome] | None) -> Trial:
        size = self.problem.size(case)
        name, outcome = reference if reference is not None else (None, None)
        if solver.status != "ok":
            return Trial(text, size, STATUS_VERDICT[solver.status], solver, outcome, name)
        if outcome is None:
            return Trial(text, size, None, solver, None, None,
                         note="no reference accepts the case")
        if outcome.status != "ok":
            return Trial(text, size, None, solver, outcome, name,
                         note=f"reference {name}: {outcome.status} {outcome.error or ''}".strip())
        verdict, _ = grade(solver.answer, outcome.answer, self.problem.compare)
        return Trial(text, size, verdict, solver, outcome, name)

    def time(self, texts: Sequence[str], repeats: int) -> list[list[Outcome]]:
        """S alone on every text, `repeats` times each (interleaved); the outcomes per text."""
        jobs = [Job(r * len(texts) + i, self.solver, f"case-{i}", text, r)
                for r in range(repeats) for i, text in enumerate(texts)]
        found: list[list[Outcome]] = [[] for _ in texts]
        for job, outcome in self.executor.run(jobs):
            found[job.key % len(texts)].append(outcome)
        return found

    def close(self) -> None:
        self.executor.close()


def measured_ms(outcomes: Sequence[Outcome], timeout_s: float) -> float:
    """The median time of S's runs: CPU time where measured, else wall time; a run killed for
    time counts as the timeout, one that crashed or was skipped as 0 (it is not slow)."""
    times = []
    for outcome in outcomes:
        if outcome.status == "tle":
            times.append(timeout_s * 1000)
        elif outcome.status == "ok":
            value = outcome.cpu_ms if outcome.cpu_ms is not None else outcome.wall_ms
            times.append(value or 0.0)
        else:
            times.append(0.0)
    return statistics.median(times) if times else 0.0


def open_judge(problem: Problem, solver: str, against: str | None,
               externals: tuple[ExternalSolver, ...], data_dir: Path,
               jobs: int | None = None, need_reference: bool = True,
               executor_kind: str = "local", scheduler: str | None = None) -> Judge:
    """Build S's and R's specs the way a run builds its solvers (external programs built
    once, cached under DATA/build/) and start the executor (its workers import the stages)."""
    if against is not None:
        references: tuple[str, ...] = (against,)
    else:
        try:
            references = reference_order(problem, solver)
        except JudgeError:
            if need_reference:
                raise
            references = ()
    if against is not None and against == solver:
        raise JudgeError(f"--against {against!r} is the solver itself")
    names = (solver, *references)
    try:
        full = select_solvers(problem, RunRequest(problem=problem.id, solvers=names,
                                                  externals=externals))
    except UnknownName as error:
        raise JudgeError(str(error)) from None
    unused = [e.name for e in full.externals if e.name not in names]
    if unused:
        raise JudgeError(f"--external {unused[0]} is neither the solver nor the reference")
    selection = Selection(full.stages, full.externals)
    executor = make_executor(executor_kind, scheduler, jobs, problem, selection)
    try:
        from pipeline.run.runner import solver_specs

        request = RunRequest(problem=problem.id, solvers=names, externals=externals)
        specs = {spec.name: spec for spec in solver_specs(
            problem, selection, request, data_dir, None,
            getattr(executor, "builds_on_workers", False))}
    except BaseException:
        executor.close()
        raise
    return Judge(problem, specs[solver], tuple(specs[name] for name in references), executor,
                 getattr(executor, "size", 1))
