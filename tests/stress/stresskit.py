"""Helpers for the stress and hunt tests: real `pipeline` processes, real programs, and an
independent check of local minimality (every single shrink step of the kept case, judged here
in-process or with a direct subprocess, not through the executor under test)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import polars as pl

# (the tests import them from here)
from processkit import alive, children_of, descendants_of  # noqa: F401

from pipeline.problems.model import Problem
from pipeline.stress.shrink import passes_for, simplicity

PROGRAMS = Path(__file__).resolve().parent / "programs"
REPO = Path(__file__).resolve().parents[2]


def python_program(name: str) -> str:
    """The `--external` command running `programs/<name>.py` with this interpreter."""
    return f"{sys.executable} {PROGRAMS / (name + '.py')}"


def pipeline_argv(data_dir: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "pipeline", "--data-dir", str(data_dir), *args]


def cli_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}


def run_cli(data_dir: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """`python -m pipeline --data-dir D ARGS...` in a real process."""
    return subprocess.run(pipeline_argv(data_dir, *args), cwd=REPO, env=cli_env(),
                          capture_output=True, text=True, timeout=timeout)


def findings(data_dir: Path) -> pl.DataFrame:
    folder = Path(data_dir) / "tables" / "findings"
    files = sorted(folder.glob("*.parquet")) if folder.is_dir() else []
    return pl.concat([pl.read_parquet(f) for f in files]) if files else pl.DataFrame()


def cases(data_dir: Path, problem_id: str) -> pl.DataFrame:
    return pl.read_parquet(Path(data_dir) / "tables" / "cases" / f"{problem_id}.parquet")


def reference_answer(problem: Problem, case, leave_out: str) -> str:
    """The answer of the first trusted reference stage (other than `leave_out`) accepting it."""
    for name in problem.reference:
        stage = problem.stage(name)
        if name != leave_out and stage.trusted and stage.accepts(case):
            return problem.format_answer(case, stage(case))
    raise AssertionError("no reference stage accepts the case")


def stage_fails(problem: Problem, stage_name: str, case) -> bool:
    """Whether the stage's answer differs from the reference's (in this process)."""
    got = problem.format_answer(case, problem.stage(stage_name)(case))
    return problem.compare(reference_answer(problem, case, stage_name), got) is not None


def program_fails(problem: Problem, command: str, case, text: str) -> bool:
    """Whether the program's answer differs from the reference's (run here directly)."""
    got = subprocess.run(command.split(), input=text, capture_output=True, text=True,
                         timeout=30).stdout
    return problem.compare(reference_answer(problem, case, ""), got) is not None


def single_steps(problem: Problem, text: str, passes=None) -> list[tuple[object, str]]:
    """Every (case, text) one shrink step from `text` (by `passes`, default the problem's)
    that the parser accepts and that is simpler: the candidates a locally minimal case must
    all pass."""
    case = problem.parse(text)
    key = simplicity(problem, case, text)
    found = []
    for shrink_pass in passes if passes is not None else passes_for(problem):
        for candidate in shrink_pass.candidates(case, text):
            try:
                if shrink_pass.structured:
                    candidate = problem.render(candidate)
                parsed = problem.parse(candidate)
            except Exception:
                continue
            if simplicity(problem, parsed, candidate) < key:
                found.append((parsed, candidate))
    return found

