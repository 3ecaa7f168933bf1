"""Running a solver S and its reference R on cases, and grading S as runs grade it.

Without `--against`, R is per case the first trusted `reference` stage whose limits accept it,
or a package's first `main`, else accepted, submission. S's verdict comes from
`pipeline.run.checker` with R's answer as the expected one. A JE is no verdict of S; a
submission that did not build or could not start stops the session (`JudgeError`).
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pipeline.errors import UnknownName, UserError
from pipeline.problems.model import Case, Problem
from pipeline.programs.jobs import Job, Outcome, SolverSpec
from pipeline.programs.program import Program
from pipeline.run.checker import check_answer
from pipeline.run.choice import make_executor
from pipeline.run.executors import Executor
from pipeline.run.request import RunRequest, select_solvers
from pipeline.run.startup import error_line, hint, is_start_failure
from pipeline.verdicts import Verdict

FAILING = frozenset({Verdict.WA, Verdict.RE, Verdict.TLE, Verdict.MLE, Verdict.OLE})
# A package's verdicts that say the program could not be run at all.
NOT_RUN = frozenset({Verdict.CE, Verdict.SKIP})
# A package's verdicts that are S's whatever R answered.
RUN_FAILURES = frozenset({Verdict.TLE, Verdict.MLE, Verdict.RE, Verdict.OLE})


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
        if self.reference is not None and self.reference.verdict is None:
            return self.reference.answer
        return None


class JudgeError(UserError):
    """The solvers asked for cannot be judged against each other (no reference, a name used
    twice, an `--external` program that is neither S nor R)."""


class StartError(JudgeError):
    """A program of the session could not start (see `pipeline.run.startup`)."""


def reference_order(problem: Problem, solver: str) -> tuple[str, ...]:
    """The default R: the trusted stages of the problem's reference order, S left out; for a
    problem package, its first `main` submission, else its first accepted one."""
    names = problem.reference_solutions(solver)
    if not names:
        what = ("main or accepted submission" if problem.package_judge is not None
                else "reference stage")
        raise JudgeError(f"problem {problem.id} has no {what} other than {solver!r}; name one "
                         "with --against")
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
        return next((position for position, spec in enumerate(self.references[start:], start)
                     if spec.kind != "stage" or self._stages[spec.stage].accepts(case)), None)

    def __post_init__(self) -> None:
        self._stages = {s.name: s for s in self.problem.stages}
        self._interactive = self.problem.interactive

    def check(self, items: Sequence[tuple[Case, str]],
              idle: Callable[[], None] | None = None,
              groups: Sequence[str | None] | None = None) -> list[Trial]:
        """Run S and R on every (case, text); one `Trial` per item, in order. `idle` is called
        after each outcome arrives; `groups`: each item's test group (a package's)."""
        groups = list(groups) if groups is not None else [None] * len(items)
        after_reference = self.solver.kind == "submission"  # S is judged against R's answer
        keys = itertools.count()
        where: dict[int, tuple[int, int]] = {}   # job key -> (item, reference position or -1)

        def job(index: int, position: int) -> Job:
            key = next(keys)
            where[key] = (index, position)
            spec = self.solver if position < 0 else self.references[position]
            return Job(key, spec, f"case-{index}", items[index][1], group=groups[index])

        jobs: list[Job] = []
        for index, (case, _) in enumerate(items):
            if not after_reference:
                jobs.append(job(index, -1))
            if (position := self._next_reference(case, 0)) is not None:
                jobs.append(job(index, position))
        solver_outcomes: dict[int, Outcome] = {}
        reference_outcomes: dict[int, tuple[str, Outcome]] = {}
        while jobs:
            again: list[Job] = []
            for done, outcome in self.executor.run(jobs):
                if idle is not None:
                    idle()
                index, position = where[done.key]
                if position < 0:
                    solver_outcomes[index] = outcome
                    continue
                following = (self._next_reference(items[index][0], position + 1)
                             if outcome.verdict is Verdict.SKIP else None)
                if following is not None:
                    again.append(job(index, following))
                else:
                    reference_outcomes[index] = (done.solver.name, outcome)
            jobs = again
        if after_reference:
            jobs = [Job(index, self.solver, f"case-{index}", text,
                        answer=self._answer_file(reference_outcomes.get(index)),
                        group=groups[index])
                    for index, (_, text) in enumerate(items)]
            for done, outcome in self.executor.run(jobs):
                if idle is not None:
                    idle()
                solver_outcomes[done.key] = outcome
        return [self._grade(case, text, solver_outcomes[index], reference_outcomes.get(index))
                for index, (case, text) in enumerate(items)]

    def _answer_file(self, reference: tuple[str, Outcome] | None) -> str | None:
        """What S's package judges it against: R's answer when R answered (an interactive
        package's submissions write none: an empty answer file)."""
        if reference is not None and reference[1].verdict is None \
                and reference[1].answer is not None:
            return reference[1].answer
        return "" if self._interactive else None

    def _grade(self, case: Case, text: str, solver: Outcome,
               reference: tuple[str, Outcome] | None) -> Trial:
        size = self.problem.size(case)
        name, outcome = reference if reference is not None else (None, None)
        _refuse_unbuilt(self.solver.name, solver)
        _refuse_unstarted(self.solver, solver)
        if reference is not None:
            _refuse_unbuilt(*reference)
            _refuse_unstarted(next(s for s in self.references if s.name == reference[0]),
                              reference[1])
        judgement = solver.judgement  # S's package judged it, against R's answer
        verdict = solver.verdict if judgement is None else judgement.verdict
        if verdict is not None and (judgement is None or verdict in RUN_FAILURES):
            return Trial(text, size, verdict, solver, outcome, name)  # whatever R answered
        note = None
        if outcome is None and not (judgement is not None and self._interactive):
            note = "no reference accepts the case"
        elif outcome is not None and outcome.verdict is not None:
            note = f"reference {name}: {outcome.verdict} {outcome.error or ''}".strip()
        elif judgement is None:
            assert outcome is not None and solver.answer is not None  # both ran to their end
            verdict, _ = check_answer(self.problem, text, outcome.answer, solver.answer)
        elif outcome is not None and outcome.answer is None and not self._interactive:
            note = f"reference {name} wrote no answer"
        elif verdict is Verdict.JE:
            note = f"judge error: {judgement.message or 'no message'}"
        return Trial(text, size, None if note else verdict, solver, outcome, name, note)

    def time(self, texts: Sequence[str], repeats: int) -> list[list[Outcome]]:
        """S alone on every text, `repeats` times each (interleaved); the outcomes per text."""
        jobs = [Job(r * len(texts) + i, self.solver, f"case-{i}", text, r)
                for r in range(repeats) for i, text in enumerate(texts)]
        found: list[list[Outcome]] = [[] for _ in texts]
        for job, outcome in self.executor.run(jobs):
            _refuse_unstarted(self.solver, outcome)
            found[job.key % len(texts)].append(outcome)
        return found

    def close(self) -> None:
        self.executor.close()


def _refuse_unbuilt(name: str, outcome: Outcome) -> None:
    """`JudgeError` when a package submission could not be run at all (CE, SKIP)."""
    if outcome.judgement is not None and outcome.judgement.verdict in NOT_RUN:
        raise JudgeError(f"submission {name} cannot be run ({outcome.judgement.verdict}): "
                         f"{(outcome.judgement.message or '').strip()[:300]}")


def _refuse_unstarted(spec: SolverSpec, outcome: Outcome) -> None:
    """`JudgeError` when `spec`'s program could not start on a case (no verdict of it)."""
    verdict = outcome.verdict
    if verdict is None or not is_start_failure(verdict.value, outcome.exit_code, outcome.error):
        return
    line = error_line(outcome.error)
    raise StartError(f"{spec.name} could not start: {line} (hint: {hint(line, spec.sandbox)}); "
                     "that is no verdict of it, so no finding is kept")


def measured_ms(outcomes: Sequence[Outcome], timeout_s: float) -> float:
    """The median time of S's runs: CPU time where measured, else wall time; a run killed for
    time counts as the timeout, one that crashed or was skipped as 0 (it is not slow)."""
    times = [timeout_s * 1000 if o.verdict is Verdict.TLE else 0.0 if o.verdict is not None
             else (o.cpu_ms if o.cpu_ms is not None else o.wall_ms) or 0.0 for o in outcomes]
    return statistics.median(times) if times else 0.0


def open_judge(problem: Problem, solver: str, against: str | None,
               externals: tuple[Program, ...], data_dir: Path,
               jobs: int | None = None, need_reference: bool = True,
               executor_kind: str = "local", scheduler: str | None = None,
               sandbox: str = "auto") -> Judge:
    """Build S's and R's specs the way a run builds its solvers (sandboxed as `sandbox` says,
    never seeing the data folder) and start the executor."""
    from pipeline.programs import contained

    contained.set_sandbox(sandbox)  # (`on` where it cannot work: refused before anything runs)
    contained.hide(data_dir)
    if against == solver:
        raise JudgeError(f"--against {against!r} is the solver itself")
    try:
        references = (against,) if against is not None else reference_order(problem, solver)
    except JudgeError:
        if need_reference:
            raise
        references = ()
    names = (solver, *references)
    try:
        selection = select_solvers(problem, RunRequest(problem=problem.id, solvers=names,
                                                       externals=externals))
    except UnknownName as error:
        raise JudgeError(str(error)) from None
    if unused := [e.name for e in selection.externals if e.name not in names]:
        raise JudgeError(f"--external {unused[0]} is neither the solver nor the reference")
    executor = make_executor(executor_kind, scheduler, jobs, problem, selection)
    try:
        from pipeline.run.runner import solver_specs

        request = RunRequest(problem=problem.id, solvers=names, externals=externals,
                             sandbox=sandbox)
        specs = {spec.name: spec for spec in solver_specs(
            problem, selection, request, data_dir, None,
            getattr(executor, "builds_on_workers", False))}
        specs.update((spec.name, spec) for spec in _package_specs(problem, selection.submissions,
                                                                  data_dir, executor))
    except BaseException:
        executor.close()
        raise
    return Judge(problem, specs[solver], tuple(specs[name] for name in references), executor,
                 getattr(executor, "size", 1))


def _package_specs(problem: Problem, names: tuple[str, ...], data_dir: Path,
                   executor: Executor) -> list[SolverSpec]:
    """The specs of the package submissions among S and R, each built here first, so that one
    that does not compile stops the session before it starts."""
    if not names:
        return []
    from pipeline.run.runner import load_cases

    judge = problem.package_judge
    if judge is None:
        raise JudgeError(f"problem {problem.id} has no submissions")
    if (why := judge.not_runnable(names)) is not None:
        raise JudgeError(why)
    return judge.judging(names, None, lambda: load_cases(data_dir, problem.id, None),
                         executor).specs
