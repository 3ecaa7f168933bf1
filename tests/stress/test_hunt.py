"""`pipeline hunt` finds slow inputs that random cases of the same size do not produce.

`programs/walk_up.cpp` reads movcoin2 inputs and walks from every node up to node 1: O(sum of
depths), quadratic on a path hanging from node 1, which random trees of the growth ladder
(uniform random labelled trees, depth about sqrt(n)) practically never are. The comparison is
made here, independently of hunt's own timing: CPU time of the program (`os.wait4`), median of
three runs, on the hunted case against the slowest of a dozen random cases of the same size.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess

import pytest
from stresskit import PROGRAMS, cases, findings, run_cli

from pipeline.problems import get_problem

SIZE = 20_000
ROUNDS = 12  # a fixed climb, not a time budget: the same search however busy the machine is


@pytest.fixture(scope="module")
def walk_up(tmp_path_factory) -> str:
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    exe = tmp_path_factory.mktemp("walk") / "walk_up"
    subprocess.run(["g++", "-O2", "-o", str(exe), str(PROGRAMS / "walk_up.cpp")], check=True)
    return str(exe)


def cpu_ms(exe: str, path) -> float:
    """Median CPU time of three runs of `exe < path`, measured by wait4."""
    times = []
    for _ in range(3):
        with open(path, "rb") as stdin:
            process = subprocess.Popen([exe], stdin=stdin, stdout=subprocess.DEVNULL)
            _, status, usage = os.wait4(process.pid, 0)
            process.returncode = os.waitstatus_to_exitcode(status)
        assert process.returncode == 0
        times.append((usage.ru_utime + usage.ru_stime) * 1000)
    return statistics.median(times)


@pytest.mark.slow
def test_hunt_finds_an_input_ten_times_slower_than_random_ones(walk_up, tmp_path):
    data = tmp_path / "data"
    done = run_cli(data, "hunt", "--problem", "movcoin2", "--solver", "walk", "--external",
                   f"walk={walk_up}", "--size", str(SIZE), "--rounds", str(ROUNDS),
                   "--budget", "10m", "--seed", "2")
    assert done.returncode == 0, done.stderr
    assert f"{ROUNDS} rounds done" in done.stdout, done.stdout
    row = findings(data).row(0, named=True)
    assert row["kind"] == "hunt" and row["hunt_size"] <= SIZE and row["original_size"] == SIZE
    hunted = data / "raw" / row["source"]
    assert hunted.parent.name == "hunt"
    stored = cases(data, "movcoin2")
    assert stored.filter(stored["case_id"] == row["case_id"])["group"].to_list() == ["hunt"]
    assert row["solver_ms"] > 0 and row["baseline_ms"] > 0

    problem = get_problem("movcoin2")
    randoms = []
    for seed in range(900_000, 900_012):  # seeds hunt itself never used
        path = tmp_path / f"random-{seed}.in"
        path.write_text(problem.render(problem.growth.make(SIZE, seed)))
        randoms.append(cpu_ms(walk_up, path))
    slowest_random = max(randoms)
    found = cpu_ms(walk_up, hunted)
    assert found >= 10 * slowest_random, (found, slowest_random, done.stdout)
