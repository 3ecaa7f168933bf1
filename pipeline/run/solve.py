"""`pipeline solve`: the everyday "produce the judge output for these inputs" job.

Imports only the problem module (never polars or pyarrow), so solving one file starts fast.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from pipeline.errors import BeyondLimits, InputError, UnknownName
from pipeline.fsutil import atomic_write_text
from pipeline.problems import Problem, get_problem


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


def solve_command(problem_id: str, inputs: list[Path], solver: str, out_dir: Path | None,
                  stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    """Everything `pipeline solve` does (for the Typer command and the light entry point);
    its exit status."""
    def fail(message: str, code: int) -> int:
        stderr.write(f"error: {message}\n")
        return code

    try:
        problem = get_problem(problem_id)
        problem.stage(solver)
    except UnknownName as error:
        return fail(str(error), 2)
    if out_dir is None:
        if len(inputs) > 1:
            return fail("several inputs need --out-dir", 2)
        name = str(inputs[0]) if inputs else "<stdin>"
        try:
            text = inputs[0].read_text(encoding="utf-8") if inputs else stdin.read()
            stdout.write(problem.solve_text(text, solver))
        except InputError as error:
            return fail(f"{name}:{error}", 1)
        except (BeyondLimits, OSError, UnicodeDecodeError) as error:
            return fail(f"{name}: {error}", 1)
        return 0
    outcomes = solve_files(problem, solver, inputs, out_dir)
    failed = [o for o in outcomes if o.error]
    for outcome in failed:
        stderr.write(f"error: {outcome.error}\n")
    stdout.write(f"{len(outcomes) - len(failed)} solved, {len(failed)} failed -> {out_dir}\n")
    return 1 if failed else 0


def main(argv: list[str], stdin: TextIO | None = None, stdout: TextIO | None = None,
         stderr: TextIO | None = None) -> int:
    """`pipeline solve ...`: its options, declared here once; before or after the files."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="pipeline solve",
        description="Solve judge inputs: stdin to stdout, or each INPUT to OUT_DIR/NAME.out.",
        epilog="examples:\n  pipeline solve PROBLEM < case.in\n"
               "  pipeline solve PROBLEM --out-dir out/ tests/*.in --solver brute",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("problem", metavar="PROBLEM", help="problem id (`pipeline problems`)")
    parser.add_argument("inputs", nargs="*", type=Path, metavar="INPUT",
                        help="judge input files (default: stdin)")
    parser.add_argument("--solver", "-s", default="fast", metavar="STAGE",
                        help="stage to solve with (default: %(default)s)")
    parser.add_argument("--out-dir", "-o", type=Path, default=None, metavar="DIR",
                        help="write DIR/NAME.out for each NAME.in (needed for several inputs)")
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    try:
        args = parser.parse_intermixed_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    return solve_command(args.problem, args.inputs, args.solver, args.out_dir,
                         stdin or sys.stdin, stdout, stderr)
