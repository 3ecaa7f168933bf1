"""Which solvers a run uses: built-in stages and external programs (with cached builds).

External solvers come from `--external NAME=COMMAND` or from `configs/solvers.toml`:

    [[solver]]
    name = "cpp"
    problem = "arc087e"
    source = "examples/solutions/arc087e.cpp"          # optional, hashed for the build cache
    build = "g++ -O2 -std=c++17 -o {exe} {source}"      # optional
    run = "{exe}"
    time_limit_s = 2.0                                   # optional

Commands are split like a shell would split them (`shlex.split`) but never run through a shell.
A build runs once per distinct (solver name, build command, source content) and its output is
kept under `DATA/build/<hash>/`, so later runs reuse it.

The program of a command (its first word) is resolved before a run starts (`resolve_program`):
a path is taken from the folder `pipeline` was started in (for `--external`) or from the
repository (for `configs/solvers.toml`), a bare name is looked up on PATH; one that does not
resolve to an executable file stops the run before any case runs.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path

from pipeline.fsutil import atomic_write_text

REPO_ROOT = Path(__file__).resolve().parents[2]
CONFIG_DIR = REPO_ROOT / "configs"


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


def load_problem_config(problem_id: str, config_dir: Path = CONFIG_DIR) -> dict:
    path = config_dir / "problems.toml"
    if not path.exists():
        return {}
    return tomllib.loads(path.read_text(encoding="utf-8")).get(problem_id, {})


DEFAULT_MEMORY_MB = 512


def problem_memory_mb(problem_id: str, config_dir: Path = CONFIG_DIR) -> int:
    """The problem's memory limit in MB (`memory_mb` in its configuration; 512 if not set)."""
    return int(load_problem_config(problem_id, config_dir).get("memory_mb", DEFAULT_MEMORY_MB))


def configured_externals(problem_id: str, config_dir: Path = CONFIG_DIR) -> list[ExternalSolver]:
    path = config_dir / "solvers.toml"
    if not path.exists():
        return []
    entries = tomllib.loads(path.read_text(encoding="utf-8")).get("solver", [])
    return [ExternalSolver(**entry) for entry in entries if entry.get("problem") == problem_id]


def parse_external(text: str, problem_id: str) -> ExternalSolver:
    """`NAME=COMMAND` from the command line."""
    name, sep, command = text.partition("=")
    if not sep or not name or not command.strip():
        raise ValueError(f"--external wants NAME=COMMAND, got {text!r}")
    return ExternalSolver(name=name.strip(), problem=problem_id, run=command.strip(),
                          base_dir=os.getcwd())


def resolve_program(solver: ExternalSolver, argv: tuple[str, ...]) -> tuple[str, ...]:
    """`argv` with its program as an absolute path; ValueError (naming the solver) when the
    program does not resolve to a file this user may execute."""
    if not argv:
        raise ValueError(f"external program {solver.name!r}: the command is empty")
    program = argv[0]
    base = Path(solver.base_dir) if solver.base_dir else REPO_ROOT
    if "/" not in program:
        found = shutil.which(program)
        if found is None:
            raise ValueError(f"external program {solver.name!r}: {program!r} is not on PATH")
        path = os.path.abspath(found)
    else:
        path = os.path.abspath(base / program)
        if not os.path.exists(path):
            raise ValueError(f"external program {solver.name!r}: {path} does not exist"
                             f"{' (taken from ' + str(base) + ')' if program[0] != '/' else ''}")
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise ValueError(f"external program {solver.name!r}: {path} is not an executable file")
    return (path, *argv[1:])


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
