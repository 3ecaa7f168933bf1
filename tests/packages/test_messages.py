"""Messages (issue 42 item 5): a package an ingest refused is named as refused, with why, when
a later command asks for it; a program's error keeps its head (the exception) and its last
lines (the assertion); the files at a package's root that the format does not read are counted
in one note. Real `pipeline` processes on packages in tmp_path. (A score shown as a score:
tests/packages/test_expectations.py and test_package_runs.py.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from packagekit import tiny_kattis, write_tree

REPO = Path(__file__).resolve().parents[2]


def pipeline(data: Path, *args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline", "--data-dir", str(data), *args],
                          cwd=cwd, capture_output=True, text=True, timeout=600)


def test_a_refused_package_is_named_as_refused_with_why_until_it_registers(tmp_path):
    data, root = tmp_path / "data", tmp_path / "bad"
    tiny_kattis(root, {"problem.yaml": "name: Bad\nlimits: [1\n"})
    assert pipeline(data, "ingest", str(root)).returncode == 1
    for command in (["run", "--problem", "bad"], ["stress", "--problem", "bad",
                                                   "--solver", "x"]):
        asked = pipeline(data, *command)
        assert asked.returncode == 2, asked.stderr
        assert f"error: problem 'bad' was refused when {root} was ingested (" in asked.stderr
        assert "problem.yaml:3: rule yaml-syntax: not valid YAML" in asked.stderr
        assert f"fix it and `pipeline ingest {root}` again" in asked.stderr
        assert "known problems" not in asked.stderr and "Traceback" not in asked.stderr
    write_tree(root, {"problem.yaml": "name: Bad\n"})  # fixed
    assert pipeline(data, "ingest", str(root)).returncode == 0
    assert not (data / "refused.json").exists()  # forgotten once it registers
    assert pipeline(data, "run", "--problem", "bad").returncode == 0
    unknown = pipeline(data, "run", "--problem", "never")
    assert unknown.returncode == 2 and "unknown problem 'never'" in unknown.stderr


def test_a_refused_problem_of_a_contest_is_recorded_as_refused(tmp_path):
    data, contest = tmp_path / "data", tmp_path / "cup"
    tiny_kattis(contest / "good")
    tiny_kattis(contest / "bad", {"problem.yaml": "name: Bad\nlimits: [1\n"})
    write_tree(contest, {"problems.yaml": "- id: good\n- id: bad\n"})
    pipeline(data, "ingest", str(contest))
    refused = json.loads((data / "refused.json").read_text())
    assert set(refused) == {"bad"} and refused["bad"]["source"] == str(contest / "bad")
    asked = pipeline(data, "run", "--problem", "bad")
    assert asked.returncode == 2 and "problem 'bad' was refused when" in asked.stderr


def test_a_package_submission_s_error_keeps_its_exception_and_its_last_lines(tmp_path):
    data, root = tmp_path / "data", tmp_path / "p"
    tiny_kattis(root, {
        # the exception first, then 200 lines of stack
        "submissions/run_time_error/javaish.py":
            "import sys\nsys.stderr.write('Exception in thread \"main\" java.lang."
            "IllegalStateException: the heap is empty\\n')\nfor i in range(200):\n"
            "    sys.stderr.write(f'\\tat Heap.pop(Heap.java:{i})\\n')\nsys.exit(1)\n",
        # 300 lines of chatter, then the assertion
        "submissions/run_time_error/chatty.py":
            "import sys\nfor i in range(300):\n    sys.stderr.write(f'debug step {i}\\n')\n"
            "assert 1 + 1 == 3, 'arithmetic is broken'\n"})
    pipeline(data, "ingest", str(root))
    done = pipeline(data, "run", "--problem", "p")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = {line.split()[0]: line for line in done.stdout.splitlines()
             if line.startswith("  run_time_error/")}
    assert lines["run_time_error/javaish.py"].endswith(
        'error: exit code 1: Exception in thread "main" java.lang.IllegalStateException: the '
        "heap is empty")
    assert lines["run_time_error/chatty.py"].endswith(
        "error: exit code 1: AssertionError: arithmetic is broken")
    stored = pipeline(data, "query", "SELECT solver, error FROM results WHERE verdict = 'RE'",
                      "--format", "json")
    errors = {row["solver"]: row["error"] for row in map(json.loads, stored.stdout.splitlines())}
    java = errors["run_time_error/javaish.py"]
    assert java.startswith('exit code 1: Exception in thread "main" java.lang.Illegal')
    assert java.endswith("\tat Heap.pop(Heap.java:199)") and "Heap.java:100)" not in java
    chatty = errors["run_time_error/chatty.py"]
    assert chatty.startswith("exit code 1: debug step 0\n")
    assert chatty.endswith("AssertionError: arithmetic is broken")
    assert "debug step 150\n" not in chatty


def test_files_at_the_root_the_format_does_not_read_are_counted_in_one_note(tmp_path):
    data, root = tmp_path / "data", tmp_path / "p"
    tiny_kattis(root, {"domjudge-problem.ini": "name='p'\ntimelimit='2'\n",
                       "notes.txt": "to do\n", "input_validator/check.py": "exit(42)\n",
                       ".gitignore": "*.o\n"})
    done = pipeline(data, "ingest", str(root))
    assert done.returncode == 0, done.stderr
    notes = [line for line in done.stdout.splitlines() if "at the package's root" in line]
    assert notes == ["p: note: ignored 3 file(s) or folder(s) at the package's root that the "
                     "package format does not read: domjudge-problem.ini (DOMjudge's own "
                     "settings: not read), input_validator/ (did you mean input_validators/?), "
                     "notes.txt (p)"]
