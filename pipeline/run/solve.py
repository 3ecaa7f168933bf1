"""`pipeline solve`: the everyday "produce the judge output for these inputs" job.

Imports only the problem module (never polars or pyarrow), so solving one file starts fast.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pipeline.errors import BeyondLimits, InputError
from pipeline.fsutil import atomic_write_text
from pipeline.problems import Problem


@dataclass(frozen=True)
class SolveOutcome:
    """What happened to one input file: `output` is set on success, `error` otherwise."""

    source: Path
    output: Path | None
    error: str | None


def output_name(source: Path) -> str:
    """`01.in` -> `01.out`; a name without `.in` gets `.out` appended."""
    name = source.name
    return (name[:-3] if name.endswith(".in") else name) + ".out"


def solve_text(problem: Problem, stage: str, text: str) -> str:
    """Parse, solve and format one judge input (errors propagate to the caller)."""
    return problem.solve_text(text, stage)


def solve_files(problem: Problem, stage: str, inputs: list[Path],
                out_dir: Path) -> list[SolveOutcome]:
    """Solve every input, writing `out_dir/NAME.out`; a bad file never stops the others."""
    problem.stage(stage)  # fail early on an unknown stage name
    outcomes = []
    for source in inputs:
        try:
            text = source.read_text(encoding="utf-8")
            answer = problem.solve_text(text, stage)
        except InputError as error:
            outcomes.append(SolveOutcome(source, None, f"{source}:{error}"))
            continue
        except (BeyondLimits, OSError, UnicodeDecodeError) as error:
            outcomes.append(SolveOutcome(source, None, f"{source}: {error}"))
            continue
        target = out_dir / output_name(source)
        atomic_write_text(target, answer)
        outcomes.append(SolveOutcome(source, target, None))
    return outcomes
