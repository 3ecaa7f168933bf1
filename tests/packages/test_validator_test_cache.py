"""What a package's validators make of its invalid data is checked once and cached by content:
`pipeline ingest` holds them to `data/invalid_*` and `valid_output` (as `bt generate`
validates them) and stores each kind's agreement in the build area; a run whose key matches
reads it and runs no validator; a changed validator or invalid case is checked again; a damaged
cache file is a miss; an agreement over a validator that could not run is never stored.

Real `pipeline` processes on a small 2025-09 package written here, whose Python input validator
appends each input it is given to a log file named in its source (outside its folder: the
package's programs run unsandboxed here, as `test_generators_yaml` runs its logging generators),
so the log says which validations ran.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from packagekit import write_tree

from pipeline.packages.invalid import CACHE_FOLDER, read_agreement

REPO = Path(__file__).resolve().parents[2]
NEGATIVE, THREE = "-1 5\n", "1 2 3\n"      # the invalid inputs of the package
# The input validator: logs the input it is given (repr, one a line), dies of SIGKILL on a
# negative input while the flag file is there (a validator that cannot run), and accepts two
# numbers 1..999 on one line.
VALIDATOR = """import os, re, signal, sys
text = sys.stdin.read()
with open(LOG, "a") as log:
    log.write(repr(text) + "\\n")
if text.startswith("-") and os.path.exists(FLAG):
    os.kill(os.getpid(), signal.SIGKILL)
sys.exit(42 if re.fullmatch(r"[1-9][0-9]{0,2} [1-9][0-9]{0,2}\\n", text) else 43)
"""
ROWS = ["input validators            reject invalid_input   2 of 2 right  yes",
        "output validator (default)  reject invalid_output  1 of 1 right  yes",
        "output validator (default)  accept valid_output    1 of 1 right  yes"]


def package(tmp_path: Path, files: dict[str, str] | None = None) -> Path:
    """The package `tinysum` under `tmp_path`, its validator logging to `tmp_path/runs.log`."""
    source = (f"LOG = {str(tmp_path / 'runs.log')!r}\nFLAG = {str(tmp_path / 'broken')!r}\n"
              + VALIDATOR)
    return write_tree(tmp_path / "tinysum", {
        "problem.yaml": "problem_format_version: 2025-09\nname: Tiny Sum\n"
                        "uuid: 0b6f7f42-5d0e-4d7e-9a41-1f1f6a3c2b10\nlimits:\n  time_limit: 1.0\n",
        "data/sample/1.in": "1 2\n", "data/sample/1.ans": "3\n",
        "data/secret/01.in": "2 3\n", "data/secret/01.ans": "5\n",
        "submissions/accepted/sum.py": "print(sum(map(int, input().split())))\n",
        "input_validators/validate.py": source,
        "data/invalid_input/negative.in": NEGATIVE,
        "data/invalid_input/three.in": THREE,
        "data/invalid_output/off.in": "1 2\n", "data/invalid_output/off.ans": "3\n",
        "data/invalid_output/off.out": "4\n",
        "data/valid_output/spaced.in": "1 2\n", "data/valid_output/spaced.ans": "3\n",
        "data/valid_output/spaced.out": "  3\n",
        **(files or {})})


def pipeline(data: Path, *args: str) -> subprocess.CompletedProcess:
    # unsandboxed: the validator logs outside its folder (a run's --sandbox off says the same)
    env = dict(os.environ, PIPELINE_SANDBOX="off")
    return subprocess.run([sys.executable, "-m", "pipeline", "--data-dir", str(data), *args],
                          cwd=REPO, capture_output=True, text=True, timeout=300, env=env)


def run(data: Path) -> subprocess.CompletedProcess:
    return pipeline(data, "run", "--problem", "tinysum", "--sandbox", "off")


def ingested(tmp_path: Path, files: dict[str, str] | None = None) -> Path:
    data = tmp_path / "data"
    done = pipeline(data, "ingest", str(package(tmp_path, files)))
    assert done.returncode == 0, done.stdout + done.stderr
    return data


def validated(tmp_path: Path) -> list[str]:
    """Every input the validator was given, in order."""
    log = tmp_path / "runs.log"
    return [eval(line) for line in log.read_text().splitlines()] if log.exists() else []


def invalid_runs(tmp_path: Path) -> list[str]:
    return sorted(text for text in validated(tmp_path) if text in (NEGATIVE, THREE))


def cache_files(data: Path) -> list[Path]:
    return sorted((data / "build" / "packages" / CACHE_FOLDER).glob("*.json"))


def validator_rows(stdout: str) -> list[str]:
    """The rows of the run's expectations table that hold the validators (and the lines
    under it that say why one disagrees)."""
    return [line.strip() for line in stdout.splitlines()
            if line.strip().startswith(("input validators", "output validator"))]


def registered_file(data: Path, path: str) -> Path:
    return data / "problems" / "tinysum" / "package" / path


def test_after_ingest_a_run_reads_the_agreements_and_runs_no_validator(tmp_path):
    data = ingested(tmp_path)
    assert invalid_runs(tmp_path) == [NEGATIVE, THREE]  # ingest held the validator to them
    stored = cache_files(data)
    assert len(stored) == 3  # one a kind: invalid_input, invalid_output, valid_output
    written = {path: path.stat().st_mtime_ns for path in stored}
    before = validated(tmp_path)
    cached = run(data)
    assert cached.returncode == 0, cached.stdout + cached.stderr
    assert validated(tmp_path) == before  # the validator never ran
    assert validator_rows(cached.stdout) == ROWS
    assert {path: path.stat().st_mtime_ns for path in cache_files(data)} == written
    again = pipeline(data, "ingest", str(tmp_path / "tinysum"))  # nor does ingesting again
    assert again.returncode == 0 and "package unchanged" in again.stdout
    assert validated(tmp_path) == before
    # without the cache the run checks them beside itself, finds the same, and stores it
    for path in stored:
        path.unlink()
    fresh = run(data)
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr
    assert invalid_runs(tmp_path) == [NEGATIVE, NEGATIVE, THREE, THREE]
    assert validator_rows(fresh.stdout) == validator_rows(cached.stdout)
    assert cache_files(data) == stored
    later = run(data)  # reads what the run before stored
    assert invalid_runs(tmp_path) == [NEGATIVE, NEGATIVE, THREE, THREE]
    assert validator_rows(later.stdout) == ROWS


def test_a_changed_validator_or_invalid_case_is_checked_again(tmp_path):
    data = ingested(tmp_path)
    validator = registered_file(data, "input_validators/validate.py")
    original = validator.read_text()
    # a validator changed to accept everything (still logging) now disagrees
    validator.write_text(original.replace(
        'sys.exit(42 if re.fullmatch', 'sys.exit(42 if True or re.fullmatch'))
    changed = run(data)
    assert changed.returncode == 1, changed.stdout + changed.stderr
    assert invalid_runs(tmp_path) == [NEGATIVE, NEGATIVE, THREE, THREE]
    rows = validator_rows(changed.stdout)
    assert rows[0] == "input validators            reject invalid_input   0 of 2 right  NO"
    assert ("input validators: reject invalid_input: 2 case(s) of invalid_input: every input "
            "validator accepted it (cases: invalid_input/negative, invalid_input/three)") in rows
    # the validator as it was: its agreement is the one ingest stored, read again
    validator.write_text(original)
    back = run(data)
    assert back.returncode == 0 and validator_rows(back.stdout) == ROWS
    assert invalid_runs(tmp_path) == [NEGATIVE, NEGATIVE, THREE, THREE]
    # an invalid case changed to a valid input: checked again, and caught
    registered_file(data, "data/invalid_input/three.in").write_text("7 8\n")
    case_changed = run(data)
    assert case_changed.returncode == 1
    assert validated(tmp_path)[-2:] in (["7 8\n", NEGATIVE], [NEGATIVE, "7 8\n"])
    rows = validator_rows(case_changed.stdout)
    assert rows[0] == "input validators            reject invalid_input   1 of 2 right  NO"
    assert ("input validators: reject invalid_input: 1 case(s) of invalid_input: every input "
            "validator accepted it (cases: invalid_input/three)") in rows


def test_ingest_notes_invalid_data_the_validators_let_through(tmp_path):
    data = tmp_path / "data"
    done = pipeline(data, "ingest", str(package(tmp_path, {
        "data/invalid_input/seven.in": "7 8\n"})))
    assert done.returncode == 0, done.stdout + done.stderr
    assert ("tinysum: note: input validators: reject invalid_input: 2 of 3 right: wrong on "
            "invalid_input/seven (tinysum)") in done.stdout.splitlines()
    assert "2 added" in done.stdout  # the cases are stored all the same
    before = validated(tmp_path)
    held = run(data)
    assert held.returncode == 1 and validated(tmp_path) == before
    assert ("input validators            reject invalid_input   2 of 3 right  NO"
            in validator_rows(held.stdout))


def test_a_damaged_cache_file_is_a_miss_not_an_error(tmp_path):
    data = ingested(tmp_path)
    stored = cache_files(data)
    first = stored[0].read_text()
    damage = [first[: len(first) // 2],  # cut short
              first,  # another key's entry under this one's name
              json.dumps({"format": 1, "key": stored[2].stem,  # not an agreement
                          "agreement": {"submission": 7, "disagreements": None}})]
    for garbage in (damage, [b"\x00\xff{not json"] * 3):
        for path, bad in zip(stored, garbage):
            path.write_bytes(bad if isinstance(bad, bytes) else bad.encode())
        before = len(validated(tmp_path))
        done = run(data)
        assert done.returncode == 0, done.stdout + done.stderr
        assert validator_rows(done.stdout) == ROWS
        assert sorted(validated(tmp_path)[before:]) == [NEGATIVE, THREE]  # checked again
        assert cache_files(data) == stored
        assert all(read_agreement(path) is not None for path in stored)  # and stored again


def test_an_agreement_over_a_validator_that_could_not_run_is_not_stored(tmp_path):
    (tmp_path / "broken").write_text("")  # the validator dies on the negative input
    data = ingested(tmp_path)
    kinds = {read_agreement(path).expected for path in cache_files(data)}
    assert kinds == {"reject invalid_output", "accept valid_output"}
    broken = run(data)
    assert "input validators            reject invalid_input   1 of 2 right  judge-error" in (
        validator_rows(broken.stdout)), broken.stdout
    # not held either way: the run says so and fails, as a disagreement fails it
    assert broken.returncode == 1 and "1 submission(s) or validator(s) could not be held" in (
        broken.stderr), broken.stderr
    (tmp_path / "broken").unlink()  # it runs now: checked again, and stored
    before = len(validated(tmp_path))
    fixed = run(data)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert validator_rows(fixed.stdout) == ROWS
    assert sorted(validated(tmp_path)[before:]) == [NEGATIVE, THREE]
    assert len(cache_files(data)) == 3


def test_a_cache_that_cannot_be_written_costs_nothing_but_the_check(tmp_path):
    data = tmp_path / "data"
    blocked = data / "build" / "packages" / CACHE_FOLDER
    blocked.parent.mkdir(parents=True)
    blocked.write_text("a file where the cache's folder goes\n")
    done = pipeline(data, "ingest", str(package(tmp_path)))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "note:" not in done.stdout and "2 added" in done.stdout
    held = run(data)
    assert held.returncode == 0, held.stdout + held.stderr
    assert validator_rows(held.stdout) == ROWS
    assert invalid_runs(tmp_path) == [NEGATIVE, NEGATIVE, THREE, THREE]  # checked each time
