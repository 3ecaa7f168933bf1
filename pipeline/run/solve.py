"""`pipeline solve`: the everyday "produce the judge output for these inputs" job.

Imports only the problem module (never polars or pyarrow), so solving one file starts fast.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from pipeline.errors import BeyondLimits, InputError, UnknownName
from pipeline.fsutil import atomic_write_text
from pipeline.problems import Problem, get_problem


def output_name(source: Path) -> str:
    """`01.in` -> `01.out`; a name without `.in` gets `.out` appended."""
    return source.name.removesuffix(".in") + ".out"


def _solved(problem: Problem, stage: str, source: Path | None,
            stdin: TextIO) -> tuple[str, str | None]:
    """The answer to `source` (None: stdin), or ("", what is wrong with it)."""
    name = str(source) if source is not None else "<stdin>"
    try:
        text = source.read_text(encoding="utf-8") if source is not None else stdin.read()
        return problem.solve_text(text, stage), None
    except InputError as error:
        return "", f"{name}:{error}"
    except (BeyondLimits, OSError, UnicodeDecodeError) as error:
        return "", f"{name}: {error}"


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
        answer, wrong = _solved(problem, solver, inputs[0] if inputs else None, stdin)
        if wrong is not None:
            return fail(wrong, 1)
        stdout.write(answer)
        return 0
    failed: list[str] = []  # a bad file never stops the others
    for source in inputs:
        answer, wrong = _solved(problem, solver, source, stdin)
        if wrong is None:
            atomic_write_text(out_dir / output_name(source), answer)
        else:
            failed.append(wrong)
    for wrong in failed:
        stderr.write(f"error: {wrong}\n")
    stdout.write(f"{len(inputs) - len(failed)} solved, {len(failed)} failed -> {out_dir}\n")
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
    try:
        args = parser.parse_intermixed_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    return solve_command(args.problem, args.inputs, args.solver, args.out_dir,
                         stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr)
