"""The nightly and the report take a contest (issue 42 item 1): `contests` in the nightly's
config or `pipeline nightly --contest NAME` runs every problem of a contest `pipeline ingest`
recorded (one that did not register fails the night, named with why), and `pipeline report
--contest NAME` reports the newest run of each of its problems. Real `pipeline` processes on
contests of tiny packages in tmp_path."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from packagekit import tiny_kattis, write_tree

REPO = Path(__file__).resolve().parents[2]


def pipeline(data: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline", "--data-dir", str(data), *args],
                          cwd=REPO, capture_output=True, text=True, timeout=900)


def cup(folder: Path, broken: bool = False) -> Path:
    """A contest of two tiny packages (and, `broken`, a third whose problem.yaml is not
    YAML)."""
    tiny_kattis(folder / "sum")
    tiny_kattis(folder / "add", {"problem.yaml": "name: Add\n"})
    listed = "- id: sum\n  label: A\n- id: add\n  label: B\n"
    if broken:
        write_tree(folder, {"bad/problem.yaml": "name: Bad\nlimits: [1\n"})
        listed += "- id: bad\n  label: C\n"
    return write_tree(folder, {"contest.yaml": "id: cup\nname: The Cup\n",
                               "problems.yaml": listed})


def test_the_nightly_runs_a_contest_named_in_its_config_or_on_the_command_line(tmp_path):
    data = tmp_path / "data"
    pipeline(data, "ingest", str(cup(tmp_path / "cup")))
    config = tmp_path / "nightly.toml"
    config.write_text('seed = 1\ncontests = ["The Cup"]\n')  # its title names it too
    night = pipeline(data, "nightly", "--config", str(config), "--jobs", "1")
    assert night.returncode == 0, night.stdout + night.stderr
    ran = [line.split()[0] for line in night.stdout.splitlines()
           if line.startswith("  ") and " cases, " in line]
    assert ran == ["sum", "add"]  # problems.yaml's order, and nothing else
    assert "sum: run " in night.stdout and "add: run " in night.stdout
    # the tiny packages have no input validator: a package bug each, not a failure
    assert night.stdout.count("    package bug: input validators: the package has none: "
                              "nothing checks its inputs") == 2

    config.write_text('seed = 1\nproblems = ["sum"]\n')
    again = pipeline(data, "nightly", "--config", str(config), "--jobs", "1", "--contest", "cup")
    assert again.returncode == 0, again.stdout + again.stderr
    assert [line.split()[0] for line in again.stdout.splitlines()
            if line.startswith("  ") and " cases, " in line] == ["sum", "add"]

    unknown = pipeline(data, "nightly", "--config", str(config), "--contest", "nope")
    assert unknown.returncode == 2
    assert "unknown contest 'nope'; contests recorded in" in unknown.stderr
    assert "cup (The Cup)" in unknown.stderr and "Traceback" not in unknown.stderr


def test_a_contest_problem_that_did_not_register_fails_the_night(tmp_path):
    data = tmp_path / "data"
    pipeline(data, "ingest", str(cup(tmp_path / "cup", broken=True)))
    config = tmp_path / "nightly.toml"
    config.write_text('seed = 1\ncontests = ["cup"]\n')
    night = pipeline(data, "nightly", "--config", str(config), "--jobs", "1")
    assert night.returncode == 1, night.stdout + night.stderr
    assert "  ! not judged: contest cup: C bad: not registered: problem.yaml:3" in night.stdout
    assert "nightly: FAILED" in night.stdout


def test_the_report_of_a_contest_holds_each_of_its_problems_newest_run(tmp_path):
    data = tmp_path / "data"
    pipeline(data, "ingest", str(cup(tmp_path / "cup")))
    tiny_kattis(tmp_path / "other")
    pipeline(data, "ingest", str(tmp_path / "other"))
    none = pipeline(data, "report", "--contest", "cup")
    assert none.returncode == 2 and "contest cup: none of its problems has a finished run: " \
        "run `pipeline run --contest cup` first" in none.stderr
    assert pipeline(data, "run", "--problem", "other").returncode == 0
    assert pipeline(data, "run", "--problem", "sum").returncode == 0
    out = tmp_path / "cup.html"
    partial = pipeline(data, "report", "--contest", "cup", "--out", str(out))
    assert partial.returncode == 0, partial.stderr
    assert "note: B add: no finished run (`pipeline run --contest cup` makes one)" \
        in partial.stderr
    assert pipeline(data, "run", "--contest", "cup").returncode == 0
    done = pipeline(data, "report", "--contest", "cup", "--out", str(out))
    assert done.returncode == 0, done.stderr
    html = out.read_text()
    assert 'data-problem="sum"' in html and 'data-problem="add"' in html
    assert 'data-problem="other"' not in html  # registered, but no problem of the contest
    both = pipeline(data, "report", "--contest", "cup", "--run", "x")
    assert both.returncode == 2 and "leave out --run" in both.stderr
