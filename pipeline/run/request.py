"""What a run is asked to do, which solvers that selects (docs/commands.md, "Which solvers a
run takes"; a package's submissions count as configured programs), and each one's identity,
recorded so `--resume` runs the same thing and refuses, before writing, when a digest changed.
Free of Polars: the workers start before the parent loads anything heavy.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
from dataclasses import asdict, dataclass
from pathlib import Path

from pipeline.errors import UnknownName, UserError
from pipeline.problems import Problem, get_problem
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
    """The stages and external programs the request runs (see the module's docstring)."""
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
    if unknown := [name for name in request.solvers if name not in known]:
        raise UnknownName(f"problem {problem.id} has no solver {unknown[0]!r}; solvers: "
                          f"{', '.join(known)}")
    wanted = set(request.solvers)
    return Selection(tuple(n for n in stage_names if n in wanted),
                     (*(e for e in configured if e.name in wanted), *request.externals),
                     tuple(n for n in package_submissions if n in wanted))


# -- identities: what exactly a run ran ---------------------------------------------------------

@dataclass(frozen=True)
class SolverIdentity:
    name: str
    kind: str                  # "stage", "external" or "submission"
    run: str | None = None
    build: str | None = None
    source: str | None = None
    cwd: str | None = None
    digest: str | None = None

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    def program(self) -> Program:
        """The external program this identity names, as the run declared it."""
        source = Path(self.source) if self.source else None
        return Program(name=self.name, run=self.run or "", build=self.build, path=source,
                       files=(source,) if source else (),
                       base_dir=Path(self.cwd) if self.cwd else None)


def _files_of(program: Program, cwd: Path) -> list[Path]:
    files = [Path(program.path)] if program.path else []
    try:
        words = shlex.split(program.run)
    except ValueError:
        words = []
    for word in words:
        path = cwd / word  # (an absolute `word` is itself)
        if "{" not in word and ("/" in word or path.suffix) and path.is_file():
            files.append(path)
    return files


def _digest(files: list[Path]) -> str:
    digest = hashlib.sha256()
    for path in files:
        digest.update(os.fsencode(path) + b"\0")  # a path is bytes (any, on Linux)
        try:
            digest.update(path.read_bytes())
        except OSError:
            digest.update(b"<unreadable>")
    return digest.hexdigest()[:16]


def external_identity(program: Program) -> SolverIdentity:
    cwd = Path(program.base_dir or os.getcwd())
    return SolverIdentity(name=program.name, kind="external", run=program.run,
                          build=program.build,
                          source=str(program.path) if program.path else None, cwd=str(cwd),
                          digest=_digest(_files_of(program, cwd)))


def _submission_digest(problem_id: str, name: str) -> str | None:
    """A digest of the sources of package `problem_id`'s submission `name` (None: none)."""
    # a package's problem has load(); run/ does not name the packages' types (test_layers)
    package = get_problem(problem_id).load()  # type: ignore[attr-defined]
    program = next((p for p in package.submissions if p.name == name), None)
    return None if program is None else _digest(sorted(program.files))


def changed(identity: SolverIdentity, problem_id: str) -> str | None:
    """Why the program of `identity` is no longer the one the run started with, or None."""
    if identity.kind == "submission":
        now = _submission_digest(problem_id, identity.name)
        if now is None:
            return f"{identity.name}: no longer a submission of {problem_id}"
        return None if now == identity.digest else \
            f"{identity.name}: its source changed since the run started"
    if identity.kind != "external":
        return None
    cwd = Path(identity.cwd or os.getcwd())
    files = _files_of(identity.program(), cwd)
    if _digest(files) != identity.digest:
        names = ", ".join(str(f) for f in files) or identity.run
        return f"{identity.name}: {names} changed since the run started"
    return None


def resumed_selection(problem: Problem, run_row: dict) -> Selection:
    """The solvers of a run being resumed, from its identities; refuses when one changed."""
    recorded = [SolverIdentity(**json.loads(text))
                for text in (run_row.get("solver_identities") or [])]
    if not recorded:  # a run recorded before identities were: stages only
        stage_names = {s.name for s in problem.stages}
        if missing := [n for n in run_row["solvers"] if n not in stage_names]:
            raise UserError(f"run {run_row['run_id']} recorded no program identities; it "
                            f"cannot be resumed with {', '.join(missing)}")
        return Selection(tuple(run_row["solvers"]), ())
    if reasons := [r for r in (changed(i, problem.id) for i in recorded) if r]:
        raise UserError(f"run {run_row['run_id']} cannot be resumed: {'; '.join(reasons)}")
    return Selection(tuple(i.name for i in recorded if i.kind == "stage"),
                     tuple(i.program() for i in recorded if i.kind == "external"),
                     tuple(i.name for i in recorded if i.kind == "submission"))


def identities(selection: Selection, problem_id: str) -> list[str]:
    """Each selected solver's identity, as the run's row records it."""
    return [*(SolverIdentity(n, "stage").to_json() for n in selection.stages),
            *(SolverIdentity(n, "submission", digest=_submission_digest(problem_id, n)).to_json()
              for n in selection.submissions),
            *(external_identity(e).to_json() for e in selection.externals)]
