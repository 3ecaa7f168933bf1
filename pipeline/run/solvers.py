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

A run on a cluster does not build here: the solver travels as a `BuildRecipe` (the commands and
the source's bytes, `build_recipe`) and each worker machine builds it with `build_here` into its
own cache (`PIPELINE_BUILD_DIR`, default `~/.cache/gamebench/build/<hash>/`), with the source
written beside the program and the build run in that folder. Builds of one hash are serialised
by a lock file, so worker processes sharing a machine build it once.

The program of a command (its first word) is resolved before a run starts (`resolve_program`):
a path is taken from the folder `pipeline` was started in (for `--external`) or from the
repository (for `configs/solvers.toml`), a bare name is looked up on PATH; one that does not
resolve to an executable file stops the run before any case runs.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from pipeline.config import CONFIG_DIR, REPO_ROOT, read_configured_solvers
from pipeline.errors import UserError
from pipeline.fsutil import atomic_write, atomic_write_text
from pipeline.problems import Problem
from pipeline.problems.base import Solution
from pipeline.run.jobs import BuildRecipe

BUILD_DIR_VARIABLE = "PIPELINE_BUILD_DIR"


@dataclass(frozen=True)
class ExternalSolver:
    name: str
    problem: str
    run: str
    build: str | None = None
    source: str | None = None
    time_limit_s: float | None = None
    base_dir: str | None = None  # where a relative program path starts (None: the repository)


class BuildError(RuntimeError):
    pass


def _external(problem_id: str, solution: Solution) -> ExternalSolver:
    return ExternalSolver(name=solution.name, problem=problem_id, run=solution.run,
                          build=solution.build,
                          source=str(solution.source) if solution.source else None,
                          time_limit_s=solution.time_limit_s)


def configured_externals(problem: Problem, config_dir: Path = CONFIG_DIR) -> list[ExternalSolver]:
    """The problem's own solutions, then the user's configured solvers of the problem (a
    package's submissions are not external programs: see `submissions`)."""
    return [_external(problem.id, s) for s in problem.solutions if s.submission is None] + [
        _external(problem.id, entry.solution)
        for entry in read_configured_solvers(config_dir / "solvers.toml")
        if entry.problem == problem.id]


def submissions(problem: Problem) -> list[str]:
    """The names of a problem package's submissions (none for a built-in problem)."""
    return [s.name for s in problem.solutions if s.submission is not None]


def parse_external(text: str, problem_id: str) -> ExternalSolver:
    """`NAME=COMMAND` from the command line."""
    name, sep, command = text.partition("=")
    if not sep or not name or not command.strip():
        raise UserError(f"--external wants NAME=COMMAND, got {text!r}")
    return ExternalSolver(name=name.strip(), problem=problem_id, run=command.strip(),
                          base_dir=os.getcwd())


def resolve_program(solver: ExternalSolver, argv: tuple[str, ...]) -> tuple[str, ...]:
    """`argv` with its program as an absolute path; ValueError (naming the solver) when the
    program does not resolve to a file this user may execute."""
    if not argv:
        raise UserError(f"external program {solver.name!r}: the command is empty")
    program = argv[0]
    base = Path(solver.base_dir) if solver.base_dir else REPO_ROOT
    if "/" not in program:
        found = shutil.which(program)
        if found is None:
            raise UserError(f"external program {solver.name!r}: {program!r} is not on PATH")
        path = os.path.abspath(found)
    else:
        path = os.path.abspath(base / program)
        if not os.path.exists(path):
            raise UserError(f"external program {solver.name!r}: {path} does not exist"
                            f"{' (taken from ' + str(base) + ')' if program[0] != '/' else ''}")
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise UserError(f"external program {solver.name!r}: {path} is not an executable file")
    return (path, *(_file_argument(word, base) for word in argv[1:]))


def _file_argument(word: str, base: Path) -> str:
    """An argument that names a file beside the command (`sol.py` in `python3 sol.py`: a `/`
    or a suffix, and the file exists; the words the run's identity digests) as an absolute
    path, since the program runs in an empty folder of its own; any other word as it is."""
    if word.startswith("-") or "{" in word or not ("/" in word or Path(word).suffix):
        return word
    path = base / word
    return os.path.abspath(path) if path.is_file() else word


def build_recipe(solver: ExternalSolver, base_dir: Path = REPO_ROOT) -> BuildRecipe | None:
    """What a machine needs to build `solver` (None when it has no build step)."""
    if solver.build is None:
        return None
    source = None
    if solver.source:
        path = base_dir / solver.source
        try:
            source = path.read_bytes()
        except OSError as error:
            raise BuildError(f"cannot read the source of {solver.name}: {path}: "
                             f"{error.strerror or error}") from None
    # The program is built as `<folder>/<name>`, so the name is part of what is cached.
    digest = hashlib.sha256(f"{solver.name}\0{solver.build}".encode())
    if source is not None:
        digest.update(source)
    return BuildRecipe(name=solver.name, build=solver.build, run=solver.run,
                       key=digest.hexdigest()[:16],
                       source_name=Path(solver.source).name if solver.source else None,
                       source=source)


def prepare(solver: ExternalSolver, data_dir: Path, base_dir: Path = REPO_ROOT) -> tuple[str, ...]:
    """The argv to run `solver`, building it first (once per source hash) if it has a build."""
    recipe = build_recipe(solver, base_dir)
    if recipe is None:
        return tuple(shlex.split(solver.run))
    source = base_dir / solver.source if solver.source else None
    return _build(recipe, (data_dir / "build" / recipe.key).resolve(), base_dir, source)


def worker_build_dir() -> Path:
    """Where `build_here` keeps builds: `PIPELINE_BUILD_DIR`, else the user's cache folder."""
    configured = os.environ.get(BUILD_DIR_VARIABLE)
    if configured:
        return Path(configured)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "gamebench" / "build"


def build_here(recipe: BuildRecipe, cache_dir: Path | None = None) -> tuple[str, ...]:
    """The argv of `recipe`'s program on this machine, built into `cache_dir` (default
    `worker_build_dir()`) unless a build of the same hash is already there."""
    folder = ((cache_dir or worker_build_dir()) / recipe.key).resolve()
    source = folder / "source" / recipe.source_name if recipe.source_name else None
    return _build(recipe, folder, folder, source, recipe.source)


def _build(recipe: BuildRecipe, folder: Path, cwd: Path, source: Path | None,
           source_bytes: bytes | None = None) -> tuple[str, ...]:
    """Build into `folder` (once: `folder/ok` marks a finished build) and return the run argv.

    `source_bytes`, when given, are written to `source` first. A lock file beside the folder
    makes a second process wait for the first one's build instead of building alongside it."""
    exe = folder / recipe.name
    fields = {"exe": str(exe), "source": str(source) if source else ""}
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f"{folder.name}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / "ok").exists():
            folder.mkdir(parents=True, exist_ok=True)
            if source is not None and source_bytes is not None:
                source.parent.mkdir(parents=True, exist_ok=True)
                atomic_write(source, lambda tmp: Path(tmp).write_bytes(source_bytes))
            argv = [part.format(**fields) for part in shlex.split(recipe.build)]
            try:
                result = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
            except OSError as error:
                raise BuildError(f"building {recipe.name} failed ({' '.join(argv)}): "
                                 f"{error.strerror or error}") from None
            if result.returncode != 0:
                raise BuildError(f"building {recipe.name} failed ({' '.join(argv)}):\n"
                                 f"{result.stderr[-2000:]}")
            atomic_write_text(folder / "ok", " ".join(argv) + "\n")
    return tuple(part.format(**fields) for part in shlex.split(recipe.run))
