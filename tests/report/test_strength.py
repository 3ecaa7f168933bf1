"""`pipeline strength`: which case kills which wrong program, and the fewest cases that still
kill every one; checked by running again on only those cases.

The runs are real: a fixture package's submissions (built and judged by its own rules) and a
built-in problem's known-wrong stage, through the real `pipeline` command.
"""

from __future__ import annotations

import itertools
import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

from pipeline.report.strength import EXACT_MAX_PROGRAMS, smallest_cover

PIPELINE = Path(sys.executable).with_name("pipeline")
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "packages"


def pipeline(data: Path, *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run([str(PIPELINE), "--data-dir", str(data), *args], capture_output=True,
                          text=True, timeout=600)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def strength_of(data: Path, problem: str) -> dict:
    done = pipeline(data, "strength", "--problem", problem, "--format", "json")
    assert done.returncode == 0, done.stderr
    [line] = done.stdout.splitlines()
    return json.loads(line)


def killed(report: dict) -> set[str]:
    return {p["solver"] for p in report["programs"] if p["killed_by"]}


def test_the_smallest_set_is_exact_on_small_instances() -> None:
    """Against trying every subset: the cover is a cover, and no smaller one exists."""
    chooser = random.Random(24)
    for _ in range(200):
        programs = chooser.randint(1, 6)
        masks = [chooser.randrange(1 << programs) for _ in range(chooser.randint(1, 8))]
        universe = 0
        for mask in masks:
            universe |= mask
        chosen, method = smallest_cover(masks, universe)
        assert method == "exact"
        union = 0
        for index in chosen:
            union |= masks[index]
        assert union == universe
        fewest = next(size for size in range(len(masks) + 1)
                      if any(_union(masks, subset) == universe
                             for subset in itertools.combinations(range(len(masks)), size)))
        assert len(chosen) == fewest


def test_beyond_the_exact_limit_the_greedy_cover_says_so_and_covers() -> None:
    programs = EXACT_MAX_PROGRAMS + 4
    chooser = random.Random(5)
    masks = [chooser.randrange(1, 1 << programs) for _ in range(60)] + \
        [1 << bit for bit in range(programs)]
    universe = (1 << programs) - 1
    chosen, method = smallest_cover(masks, universe)
    assert method.startswith("greedy (at most H(")
    assert _union(masks, chosen) == universe


def _union(masks, indexes) -> int:
    union = 0
    for index in indexes:
        union |= masks[index]
    return union


def test_a_package_smallest_set_still_kills_every_wrong_submission(tmp_path: Path) -> None:
    """hypotenuse: each wrong submission is killed by the cases its expectation names; the
    package cut down to the smallest set kills every one of them again."""
    data = tmp_path / "data"
    package = tmp_path / "hypotenuse"
    shutil.copytree(FIXTURES / "hypotenuse", package)
    assert pipeline(data, "ingest", str(package)).returncode == 0
    assert pipeline(data, "run", "--problem", "hypotenuse").returncode == 0
    report = strength_of(data, "hypotenuse")
    wrong = {p["solver"]: p for p in report["programs"]}
    assert set(wrong) == {"rejected/overflow.c", "run_time_error/abort_odd.cpp",
                          "time_limit_exceeded/spin_big.c", "wrong_answer/few_digits.py"}
    assert wrong["time_limit_exceeded/spin_big.c"]["kill_verdicts"] == ["TLE"]
    assert report["method"] == "exact" and not report["survivors"]
    chosen = {c["source"] for c in report["per_case"] if c["case_id"] in report["smallest_set"]}
    assert 0 < len(chosen) < report["cases"]

    stored = pipeline(data, "query", "SELECT count(*) AS n FROM strength WHERE in_smallest_set",
                      "--format", "csv")
    assert stored.stdout.split() == ["n", str(len(chosen))]

    cut = tmp_path / "cut" / "hypotenuse"
    shutil.copytree(package, cut)
    for test in (cut / "data").rglob("*.in"):
        if f"hypotenuse/{test.relative_to(cut).as_posix()}" not in chosen:
            test.unlink()
            test.with_suffix(".ans").unlink(missing_ok=True)
    again = tmp_path / "again"
    assert pipeline(again, "ingest", str(cut)).returncode == 0
    pipeline(again, "run", "--problem", "hypotenuse")
    assert killed(strength_of(again, "hypotenuse")) == killed(report) == set(wrong)


def test_a_built_in_problem_known_wrong_stage_is_killed_by_its_smallest_set(
        tmp_path: Path) -> None:
    """cf103119g's editorial is registered as known to be wrong: the smallest set of a tiny
    corpus kills it, and a data folder holding only that set kills it again."""
    data = tmp_path / "data"
    raw = tmp_path / "raw" / "cf103119g"
    assert pipeline(data, "generate", "cf103119g", "--recipe", "tiny", "--count", "60",
                    "--seed", "3", "--out", str(raw)).returncode == 0
    assert pipeline(data, "ingest", str(tmp_path / "raw")).returncode in (0, 1)
    assert pipeline(data, "run", "--problem", "cf103119g", "--solver", "editorial",
                    "--solver", "fast").returncode == 0
    report = strength_of(data, "cf103119g")
    assert [p["solver"] for p in report["programs"]] == ["editorial"]
    assert killed(report) == {"editorial"}, "a tiny corpus of 60 cases kills the editorial"
    assert len(report["smallest_set"]) == 1
    bounds = {row["name"]: row for row in report["coverage"]}
    assert bounds["n"]["lowest"] >= 1 and bounds["n"]["at_high"] == 0, "tiny cases only"
    page = tmp_path / "report.html"
    assert pipeline(data, "report", "--out", str(page)).returncode == 0
    html = page.read_text()
    strength = html.split('<h2 id="strength">', 1)[1].split("<h2 ", 1)[0]
    assert 'data-problem="cf103119g"' in strength and "<td>editorial</td>" in strength
    assert f"of {report['cases']} cases" in strength
    assert "no case at its high end" in strength

    [case] = [c for c in report["per_case"] if c["case_id"] in report["smallest_set"]]
    only = tmp_path / "only" / "cf103119g"
    only.mkdir(parents=True)
    source = tmp_path / "raw" / case["source"]
    shutil.copy(source, only / "kill.in")
    if source.with_suffix(".out").exists():
        shutil.copy(source.with_suffix(".out"), only / "kill.out")
    again = tmp_path / "again"
    assert pipeline(again, "ingest", str(tmp_path / "only")).returncode in (0, 1)
    pipeline(again, "run", "--problem", "cf103119g", "--solver", "editorial", "--solver",
             "fast")
    assert killed(strength_of(again, "cf103119g")) == {"editorial"}
