"""What a run is asked to do, and which solvers that selects (free of Polars: the workers start
before the parent loads anything heavy).

- no `--solver`, no `--external`: every stage, configured solver and package submission;
- `--external` programs, no `--solver`: those and every configured solver, no stage;
- `--solver NAME` (repeatable): the named ones, plus every `--external` program.
An `--external` name that is already a stage or a configured solver is an error.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.errors import UnknownName, UserError
from pipeline.problems import Problem
from pipeline.programs.program import Program
from pipeline.run.solvers import configured_externals, submissions


@dataclass(frozen=True)
class RunRequest:
    problem: str
    solvers: tuple[str, ...] = ()             # names to keep; empty = every solver
    externals: tuple[Program, ...] = ()
    group: str | None = None
    jobs: int | None = None
    timeout_s: float | None = None
    memory_mb: int | None = None              # external programs; None: the problem's; 0: none
    stack_mb: int | None = None               # external programs; None: the memory limit; 0: none
    sandbox: str = "auto"                     # external programs: auto, on or off
    repeat: int = 1
    resume: str | None = None
    command: str = ""
    case_ids: tuple[str, ...] = ()            # only these cases (empty = every case)
    wait: bool = True                         # wait for the data folder's lock (else fail)
    fail_fast: bool = False                   # a solver's cases after its first failure are
                                              # not run (SKIP): its verdict is settled


@dataclass(frozen=True)
class Selection:
    stages: tuple[str, ...]
    externals: tuple[Program, ...]
    submissions: tuple[str, ...] = ()   # a problem package's submissions

    @property
    def names(self) -> tuple[str, ...]:
        return self.stages + self.submissions + tuple(e.name for e in self.externals)


def select_solvers(problem: Problem, request: RunRequest) -> Selection:
    """The stages and external programs the request runs (see the module docstring)."""
    stage_names = [s.name for s in problem.stages]
    configured = configured_externals(problem)
    package_submissions = submissions(problem)
    taken = {name: f"a stage of {problem.id}" for name in stage_names}
    taken.update({name: f"a submission of {problem.id}" for name in package_submissions})
    for external in configured:
        taken.setdefault(external.name, f"a configured solver of {problem.id}")
    seen: set[str] = set()
    for external in request.externals:
        if external.name in taken:
            raise UserError(f"--external {external.name}=...: {external.name!r} is already "
                            f"{taken[external.name]}; give your program another name")
        if external.name in seen:
            raise UserError(f"--external {external.name!r} is given twice")
        seen.add(external.name)
    if not request.solvers:
        stages = () if request.externals else tuple(stage_names)
        return Selection(stages, (*configured, *request.externals), tuple(package_submissions))
    known = [*stage_names, *package_submissions, *(e.name for e in configured),
             *(e.name for e in request.externals)]
    unknown = [name for name in request.solvers if name not in known]
    if unknown:
        raise UnknownName(f"problem {problem.id} has no solver {unknown[0]!r}; solvers: "
                          f"{', '.join(known)}")
    wanted = set(request.solvers)
    return Selection(tuple(n for n in stage_names if n in wanted),
                     (*(e for e in configured if e.name in wanted), *request.externals),
                     tuple(n for n in package_submissions if n in wanted))
