"""What exactly a run ran: each solver's identity, recorded so `--resume` runs the same thing.

A stage is its name; an external program its name, commands, source, the folder `pipeline` ran
in, and a digest of its source and every file its run command names; a package's submission its
name and a digest of its sources. A resume refuses, before writing, when a digest changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
from dataclasses import asdict, dataclass
from pathlib import Path

from pipeline.programs.program import Program


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

    @staticmethod
    def from_json(text: str) -> SolverIdentity:
        return SolverIdentity(**json.loads(text))

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
        if "{" in word:
            continue
        path = Path(word) if os.path.isabs(word) else cwd / word
        if ("/" in word or path.suffix) and path.is_file():
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


def stage_identity(name: str) -> SolverIdentity:
    return SolverIdentity(name=name, kind="stage")


def external_identity(program: Program, cwd: Path | None = None) -> SolverIdentity:
    cwd = Path(cwd or program.base_dir or os.getcwd())
    return SolverIdentity(name=program.name, kind="external", run=program.run,
                          build=program.build,
                          source=str(program.path) if program.path else None, cwd=str(cwd),
                          digest=_digest(_files_of(program, cwd)))


def _submission_digest(problem_id: str, name: str) -> str | None:
    """A digest of the sources of package `problem_id`'s submission `name` (None: none)."""
    from pipeline.problems import get_problem

    # a package's problem has load(); run/ does not name the packages' types (test_layers)
    package = get_problem(problem_id).load()  # type: ignore[attr-defined]
    program = next((p for p in package.submissions if p.name == name), None)
    return None if program is None else _digest(sorted(program.files))


def submission_identity(problem_id: str, name: str) -> SolverIdentity:
    return SolverIdentity(name=name, kind="submission",
                          digest=_submission_digest(problem_id, name))


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
