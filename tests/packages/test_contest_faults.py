"""Faults of contests and live packages: two contests with a problem folder of the same name
are both kept (the second registers as `<contest>-<folder>`, never replacing the first); a
change to a contest-level file a package is judged by (problems.yaml's time limit, a shared
folder of headers it links to) registers the package again at the next run; `stress` and
`hunt` register a changed package again as `run` does. Real `pipeline` processes on contests
in tmp_path."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from packagekit import tiny_kattis, write_tree

REPO = Path(__file__).resolve().parents[2]


def pipeline(data: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline", "--data-dir", str(data), *args],
                          cwd=REPO, capture_output=True, text=True, timeout=600)


def contest(folder: Path, name: str, limit: float = 2) -> Path:
    tiny_kattis(folder / "sum", {"problem.yaml": f"name: Sum of {name}\n"})
    return write_tree(folder, {"contest.yaml": f"id: {name}\nname: {name.upper()}\n",
                               "problems.yaml": f"- id: sum\n  label: A\n  time_limit: {limit}\n"})


def test_two_contests_with_a_problem_folder_of_the_same_name_are_both_kept(tmp_path):
    data = tmp_path / "data"
    first, second = contest(tmp_path / "c1", "c1"), contest(tmp_path / "c2", "c2")
    assert pipeline(data, "ingest", str(first)).returncode == 0
    done = pipeline(data, "ingest", str(second))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "  A sum: registered as c2-sum (a problem of another contest is sum): 3 inputs " \
        "found" in done.stdout
    assert "replaces the package registered from" not in done.stdout
    again = pipeline(data, "ingest", str(first))  # each keeps its name
    assert "  A sum: registered: 3 inputs found" in again.stdout, again.stdout
    listed = pipeline(data, "problems").stdout
    assert "  A sum  Sum of c1  " in listed and "  A c2-sum  Sum of c2  " in listed
    for name, problem in (("c1", "sum"), ("c2", "c2-sum")):
        ran = pipeline(data, "run", "--contest", name)
        assert ran.returncode == 0, ran.stdout + ran.stderr
        assert re.search(rf"^  A {problem}\s+accepted/sum.py\s+accepted\s+AC\s", ran.stdout,
                         re.M), ran.stdout


def test_a_change_to_problems_yaml_or_a_linked_shared_folder_registers_the_package_again(
        tmp_path):
    data, cup = tmp_path / "data", contest(tmp_path / "cup", "cup")
    write_tree(cup, {"shared/check.py": "import sys\nsys.exit(42)\n"})
    (cup / "sum" / "input_format_validators").mkdir()
    os.symlink("../../shared", cup / "sum" / "input_format_validators" / "check")
    assert pipeline(data, "ingest", str(cup)).returncode == 0
    quiet = pipeline(data, "run", "--problem", "sum")
    assert "registered again" not in quiet.stderr and "time limit 2 s" in quiet.stdout

    write_tree(cup, {"problems.yaml": "- id: sum\n  label: A\n  time_limit: 3\n"})
    ran = pipeline(data, "run", "--problem", "sum")
    assert "changed since it was registered (time limit: 2 s -> 3 s): registered again" \
        in ran.stderr, ran.stderr
    assert "time limit 3 s: the contest's time limit of 3 s" in ran.stdout

    # the validator in the shared folder the package links to now rejects every input
    write_tree(cup, {"shared/check.py": "import sys\nsys.exit(43)\n"})
    ran = pipeline(data, "run", "--problem", "sum")
    assert "changed since it was registered" in ran.stderr and "registered again" in ran.stderr


def test_stress_and_hunt_register_a_changed_package_again_as_run_does(tmp_path):
    data, cup = tmp_path / "data", contest(tmp_path / "cup", "cup")
    assert pipeline(data, "ingest", str(cup)).returncode == 0
    for number, command in enumerate(("stress", "hunt")):
        write_tree(cup, {"sum/data/secret/03.in": f"{number} 7\n",
                         "sum/data/secret/03.ans": f"{number + 7}\n"})
        done = pipeline(data, command, "--problem", "sum", "--solver", "accepted/sum.py",
                        "--budget", "2s")
        assert "note: sum: the package at " in done.stderr, done.stderr
        assert "changed since it was registered" in done.stderr and "registered again" \
            in done.stderr
        assert "Traceback" not in done.stderr
