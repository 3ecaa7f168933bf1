"""External solvers of a run and their cached builds.

External solvers come from `--external NAME=COMMAND`, from the problem's own `[[solutions]]`
(its `problem.toml`) and from the user's `configs/solvers.toml`:

    [[solver]]
    name = "mine"
    problem = "<problem id>"
    source = "path/to/mine.cpp"                         # optional, hashed for the build cache
    build = "g++ -O2 -std=c++17 -o {exe} {source}"      # optional
    run = "{exe}"
    time_limit_s = 2.0                                   # optional

Commands are split like a shell would split them (`shlex.split`) but never run through a shell.
A build runs once per distinct (solver name, build command, source content) and its output is
kept under `DATA/build/<hash>/`, so later runs reuse it.
"""

from __future__ import annotations

import hashlib
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

from pipeline.config import CONFIG_DIR, REPO_ROOT, read_configured_solvers
from pipeline.fsutil import atomic_write_text
from pipeline.problems import Problem
from pipeline.problems.base import Solution


@dataclass(frozen=True)
class ExternalSolver:
    name: str
    problem: str
    run: str
    build: str | None = None
    source: str | None = None
    time_limit_s: float | None = None


class BuildError(RuntimeError):
    pass


def _external(problem_id: str, solution: Solution) -> ExternalSolver:
    return ExternalSolver(name=solution.name, problem=problem_id, run=solution.run,
                          build=solution.build,
                          source=str(solution.source) if solution.source else None,
                          time_limit_s=solution.time_limit_s)


def configured_externals(problem: Problem, config_dir: Path = CONFIG_DIR) -> list[ExternalSolver]:
    """The problem's own solutions, then the user's configured solvers of the problem."""
    return [_external(problem.id, s) for s in problem.solutions] + [
        _external(problem.id, entry.solution)
        for entry in read_configured_solvers(config_dir / "solvers.toml")
        if entry.problem == problem.id]


def parse_external(text: str, problem_id: str) -> ExternalSolver:
    """`NAME=COMMAND` from the command line."""
    name, sep, command = text.partition("=")
    if not sep or not name or not command.strip():
        raise ValueError(f"--external wants NAME=COMMAND, got {text!r}")
    return ExternalSolver(name=name.strip(), problem=problem_id, run=command.strip())


def prepare(solver: ExternalSolver, data_dir: Path, base_dir: Path = REPO_ROOT) -> tuple[str, ...]:
    """The argv to run `solver`, building it first (once per source hash) if it has a build."""
    if solver.build is None:
        return tuple(shlex.split(solver.run))
    source = base_dir / solver.source if solver.source else None
    # The program is built as `<folder>/<name>`, so the name is part of what is cached.
    digest = hashlib.sha256(f"{solver.name}\0{solver.build}".encode())
    if source is not None:
        digest.update(source.read_bytes())
    folder = (data_dir / "build" / digest.hexdigest()[:16]).resolve()
    exe = folder / solver.name
    fields = {"exe": str(exe), "source": str(source) if source else ""}
    if not (folder / "ok").exists():
        folder.mkdir(parents=True, exist_ok=True)
        argv = [part.format(**fields) for part in shlex.split(solver.build)]
        result = subprocess.run(argv, cwd=base_dir, capture_output=True, text=True)
        if result.returncode != 0:
            raise BuildError(f"building {solver.name} failed ({' '.join(argv)}):\n"
                             f"{result.stderr[-2000:]}")
        atomic_write_text(folder / "ok", " ".join(argv) + "\n")
    return tuple(part.format(**fields) for part in shlex.split(solver.run))
