"""Where the time of `pipeline solve P --solver fast` goes: run as a child process by the
max-tests section (`python phases.py PROBLEM STAGE REPORT.json < input > output`).

It does what `pipeline solve` does, in the same order, and writes the seconds of each phase
to REPORT.json: `import` (what the `pipeline` script imports before reading: the solve
command's module with its argument parser, the registry and the problem's package), `read`
(stdin as text),
`parse` (the problem's validating parser, loading its native code on first use), `solve` (the
stage), `print` (formatting the answer and writing it). The parent adds `start`: the child's
wall time from fork to exit minus these phases (interpreter start-up and shutdown).
"""

from __future__ import annotations

import json
import sys
import time


def main(argv: list[str]) -> int:
    problem_id, stage_name, report = argv
    clock = time.perf_counter
    marks = [clock()]
    import argparse  # noqa: F401 (as `pipeline solve` parses its arguments)

    import pipeline.entry  # noqa: F401
    import pipeline.run.solve  # noqa: F401
    from pipeline.problems import get_problem

    problem = get_problem(problem_id)
    stage = problem.stage(stage_name)
    marks.append(clock())
    text = sys.stdin.read()
    marks.append(clock())
    case = problem.parse(text)
    marks.append(clock())
    answer = stage(case)
    marks.append(clock())
    sys.stdout.write(problem.format_answer(case, answer))
    sys.stdout.flush()
    marks.append(clock())
    names = ("import", "read", "parse", "solve", "print")
    seconds = {name: marks[i + 1] - marks[i] for i, name in enumerate(names)}
    with open(report, "w", encoding="utf-8") as handle:
        json.dump(seconds, handle)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
