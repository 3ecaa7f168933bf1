"""`pipeline compare RUN --solver A --against B`: two programs of one run side by side, through
the real command (`python -m pipeline` in a process of its own)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def pipeline(data: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline", "--data-dir", str(data), *args],
                          cwd=REPO, capture_output=True, text=True, timeout=120)


def test_two_programs_of_one_run_side_by_side(bench):
    bench.standard_cases()
    bench.standard_run("r1", 0, wrong={"fast": 2})  # fast answers case 2 (size 5) wrongly
    done = pipeline(bench.data, "compare", "r1", "--solver", "editorial", "--against", "fast")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "compare arc087e run r1: editorial against fast, side by side"
    assert lines[1].startswith("  10 cases run by both (0 only by editorial, 0 only by fast); "
                               "10 timed by both, geometric mean editorial/fast ")
    # the verdict matrix: fast's verdicts down, editorial's across
    matrix = lines[lines.index("  verdicts (fast down, editorial across):") + 1:][:3]
    assert [row.split() for row in matrix] == [["fast\\editorial", "AC"], ["AC", "9"],
                                            ["WA", "1"]]
    assert "  1 case where the verdicts or answers differ, smallest first:" in lines
    [differing] = [line for line in lines if line.strip().split()[1:3] == ["5", "WA"]]
    assert differing.split()[1:] == ["5", "WA", "0.0", "AC", "0.0"]
    # editorial is O(n^1.5), fast O(n): by CPU time (0.9 x wall here) editorial is slower by
    # over 1.5x and 20 ms from size 4000 up (at 1000: 28.5 ms against 9 ms)
    assert ("  2 cases where editorial is slower than fast by over 1.5x and +20 ms, worst "
            "first:") in lines
    slower = [line.split("(size ")[1].split(")")[0] for line in lines
              if line.startswith("    case ") and "(size " in line]
    assert slower == ["10000", "4000"]


def test_side_by_side_needs_both_programs_and_one_run(bench):
    bench.standard_cases()
    bench.standard_run("r1", 0)
    alone = pipeline(bench.data, "compare", "--solver", "fast")
    assert alone.returncode == 2
    assert alone.stderr.strip() == ("error: --solver A and --against B go together: name "
                                    "both programs")
    missing = pipeline(bench.data, "compare", "--solver", "fast", "--against", "nosuch")
    assert missing.returncode == 2
    assert "run r1 has no results of 'nosuch' (it ran brute, editorial, fast)" in missing.stderr
    two = pipeline(bench.data, "compare", "r1", "r1", "--solver", "fast", "--against", "brute")
    assert two.returncode == 2 and "give one RUN, not two" in two.stderr
    # no run given: the newest finished run
    newest = pipeline(bench.data, "compare", "--solver", "fast", "--against", "brute")
    assert newest.returncode == 0 and newest.stdout.startswith("compare arc087e run r1: fast "
                                                               "against brute")
