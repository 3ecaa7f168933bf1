"""Judging an answer by the problem's `[checker]` (testlib or Kattis convention, built once per
process), else by its own `compare`; a failing checker is JE, never the solver's fault.
"""

from __future__ import annotations

import functools
from pathlib import Path

from pipeline.fsutil import scratch_folder
from pipeline.problems.model import Checker, Problem
from pipeline.verdicts import Verdict, grade

CHECK_TIME_S = 30.0
CHECK_MEMORY_MB = 2048

@functools.cache
def _build(checker: Checker):
    from pipeline.programs.languages import build_program, worker_build_dir

    return build_program(checker.program, worker_build_dir())


def check_answer(problem: Problem, input_text: str, expected: str | None,
                 got: str) -> tuple[Verdict, str | None]:
    """The verdict of answer `got` on `input_text` and what is wrong with it (None: nothing)."""
    checker = problem.checker
    if checker is None or expected is None or got is None:
        return grade(got, expected, problem.compare)
    from pipeline.programs.checkers import run_output_validator, run_testlib_checker

    build = _build(checker)
    with scratch_folder(prefix="gamebench-check-") as scratch:
        folder = Path(scratch)
        paths = {name: folder / name for name in ("input", "answer", "output")}
        for name, text in (("input", input_text), ("answer", expected), ("output", got)):
            paths[name].write_text(text, encoding="utf-8")
        if checker.convention == "testlib":
            result = run_testlib_checker(build, paths["input"], paths["output"], paths["answer"],
                                         time_s=CHECK_TIME_S, memory_mb=CHECK_MEMORY_MB,
                                         workdir=folder)
        else:
            result = run_output_validator(build, paths["input"], paths["answer"],
                                          paths["output"], checker.args, time_s=CHECK_TIME_S,
                                          memory_mb=CHECK_MEMORY_MB, workdir=folder)
    if result.verdict is Verdict.AC:
        return Verdict.AC, None
    if result.verdict is Verdict.WA:
        return Verdict.WA, result.message or "the checker rejected the answer"
    return Verdict.JE, f"checker {checker.program.name}: {result.message}"
