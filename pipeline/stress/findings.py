"""Keeping what `stress` and `hunt` find: judge files under `DATA/raw/<problem>/<group>/`,
ingested at once as an ingest of `DATA/raw` would, and a `findings` row. Ctrl-C while a case
is kept waits until all three are written.
"""

from __future__ import annotations

import os
import re
import secrets
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.fsutil import atomic_write_text, scratch_folder
from pipeline.problems.identity import case_id_of
from pipeline.problems.model import Problem

if TYPE_CHECKING:
    from pipeline.stress.judge import Trial

STRESS_GROUP = "found"
HUNT_GROUP = "hunt"


@dataclass(frozen=True)
class KeptCase:
    path: Path        # the `.in` file
    source: str       # its `source` in the cases table (relative to DATA/raw)
    case_id: str
    expected: bool    # a `.out` was written
    problems: tuple[str, ...]  # ingest problems (rejects, conflicts), empty when none


@contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Hold Ctrl-C until the block is done, then raise it (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if received:
        raise KeyboardInterrupt


def safe_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._") or "solver"


def keep_case(data_dir: Path, problem: Problem, group: str, name: str, text: str,
              expected: str | None) -> KeptCase:
    """Write NAME.in (+ NAME.out) under DATA/raw/<problem>/<group>/ and ingest them."""
    folder = Path(data_dir) / "raw" / problem.id / group
    input_path = folder / f"{name}.in"
    output_path = folder / f"{name}.out"
    atomic_write_text(input_path, text)
    if expected is not None:
        atomic_write_text(output_path, expected)
    else:
        output_path.unlink(missing_ok=True)
    paths = [input_path] + ([output_path] if expected is not None else [])
    problems = _ingest_as_raw(data_dir, problem.id, group, paths)
    return KeptCase(input_path, f"{problem.id}/{group}/{input_path.name}", case_id_of(text),
                    expected is not None, problems)


def _ingest_as_raw(data_dir: Path, problem_id: str, group: str,
                   paths: list[Path]) -> tuple[str, ...]:
    """Ingest just these files, labelled as an ingest of DATA/raw would label them: a scratch
    root holds `<problem>/<group>/NAME` links to them."""
    from pipeline.corpus.ingest import ingest

    with scratch_folder(prefix="gamebench-keep-") as scratch:
        folder = Path(scratch) / problem_id / group
        folder.mkdir(parents=True)
        for path in paths:
            os.symlink(path.resolve(), folder / path.name)
        summary = ingest(Path(data_dir), [Path(scratch)])
    found = summary.problems.get(problem_id)
    if found is None:
        return ("the ingest found no case",)
    return tuple(f"{r['source']}: line {r['line']}: {r['message']} [{r['rule']}]"
                 for r in found.rejects)


def record_finding(data_dir: Path, kind: str, problem: Problem, solver: str, command: str,
                   kept: KeptCase, trial: Trial | None, **fields: object) -> str:
    """Write the `findings` row of a kept case: what every kind records (S's trial on it
    against R, the command, this host) and its own `fields`; returns the finding's id."""
    from pipeline.run.runner import host_info
    from pipeline.tables.files import now

    host = host_info()
    finding_id = datetime.now(UTC).strftime("%Y%m%dT%H%M%S") + "-" + secrets.token_hex(3)
    judged = {} if trial is None else {
        "reference": trial.reference_name, "answer": trial.solver.answer,
        "expected": trial.expected, "error": trial.solver.error,
        "verdict": None if trial.verdict is None else trial.verdict.value}
    write_finding(data_dir, {
        "finding_id": finding_id, "kind": kind, "problem": problem.id, "solver": solver,
        "case_id": kept.case_id, "source": kept.source, **judged, **fields, "found_at": now(),
        "command": command, "host": host.get("host"), "git_rev": host.get("git_rev")})
    return finding_id


def write_finding(data_dir: Path, row: dict) -> Path:
    """The row as `tables/findings/<finding_id>.parquet` (atomically)."""
    from pipeline.tables.files import frame_of, table_dir, write_parquet_atomic
    from pipeline.tables.schemas import FINDINGS

    path = table_dir(data_dir, "findings") / f"{row['finding_id']}.parquet"
    write_parquet_atomic(path, frame_of([row], FINDINGS))
    return path


def read_findings(data_dir: Path):
    """Every findings row (a Polars frame, oldest first)."""
    from pipeline.tables.files import scan

    return scan(data_dir, "findings").collect().sort("found_at")
