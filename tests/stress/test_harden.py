"""`pipeline harden`: a wrong program that passes every shipped test gets a test that kills it,
added to the problem's own tests, and the next run holds it to its expectation.

Real `pipeline` processes: the fixture package `hardsum`, whose `wrong_answer/int32.c` sums in
32 bits and so passes every shipped test (all sums are small); and the built-in insq15g with
only its samples, which its known-wrong stage `independent-people` passes.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from stresskit import PROGRAMS, REPO, cli_env, pipeline_argv, run_cli

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "packages"
GENERATOR = f"{PROGRAMS / 'bounded_numbers.py'} 4 1000000000 {{seed}}"
# A shrink cut short by its budget keeps what it reached, a case that still kills: the tests
# hold the added case to that, not to its size.
SEARCH = ("--budget", "60s", "--shrink-budget", "2s", "--jobs", "2")


def test_a_wrong_submission_that_passes_every_test_is_killed_by_the_test_harden_adds(
        tmp_path: Path) -> None:
    package = tmp_path / "hardsum"
    shutil.copytree(FIXTURES / "hardsum", package)
    shipped = sorted(p.name for p in (package / "data" / "secret").iterdir())
    data = tmp_path / "data"
    assert run_cli(data, "ingest", str(package)).returncode == 0

    before = run_cli(data, "run", "--problem", "hardsum")
    assert before.returncode == 1, "int32.c passes every shipped test: it disagrees"
    assert "wrong_answer/int32.c  wrong_answer  AC   NO" in before.stdout

    done = run_cli(data, "harden", "--problem", "hardsum", "--generator", GENERATOR, *SEARCH)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "wrong_answer/int32.c: killed by the new test" in done.stdout
    added = sorted(set(p.name for p in (package / "data" / "secret").iterdir()) - set(shipped))
    assert len(added) == 2 and added[0].endswith(".ans") and added[1].endswith(".in")
    test = package / "data" / "secret" / added[1]
    assert test.with_suffix(".ans").read_text().strip() == str(
        sum(int(v) for v in test.read_text().split()[1:])), "the answer is the reference's"
    assert abs(int(test.with_suffix(".ans").read_text())) >= 2**31, "it leaves the int range"
    # The package's own input validator accepts it (42), run here directly.
    validator = subprocess.run([sys.executable, str(package / "input_validators" / "validate.py")],
                               stdin=test.open("rb"), capture_output=True)
    assert validator.returncode == 42, validator.stdout
    # Beside the shipped cases (data/secret holds cases, not groups: the spec's layout).
    assert not [p for p in (package / "data" / "secret").iterdir() if p.is_dir()]

    after = run_cli(data, "run", "--problem", "hardsum")
    assert after.returncode == 0, after.stdout + after.stderr
    assert "wrong_answer/int32.c  wrong_answer  WA   yes" in after.stdout
    # A fresh data folder registering the hardened package agrees too.
    fresh = tmp_path / "fresh"
    assert run_cli(fresh, "ingest", str(package)).returncode == 0
    assert run_cli(fresh, "run", "--problem", "hardsum").returncode == 0


def _insq15g_samples_only(tmp_path: Path) -> Path:
    raw = tmp_path / "raw" / "insq15g"
    raw.mkdir(parents=True)
    for sample in (REPO / "pipeline" / "problems" / "insq15g" / "samples").iterdir():
        shutil.copy(sample, raw / sample.name)
    data = tmp_path / "data"
    assert run_cli(data, "ingest", str(tmp_path / "raw")).returncode == 0
    assert run_cli(data, "run", "--problem", "insq15g", "--solver", "independent-people",
                   "--solver", "fast").returncode == 0
    strength = run_cli(data, "strength", "--problem", "insq15g")
    assert "independent-people" in strength.stdout and "SURVIVES" in strength.stdout
    return data


def test_a_built_in_known_wrong_stage_gets_a_hardened_case(tmp_path: Path) -> None:
    data = _insq15g_samples_only(tmp_path)
    done = run_cli(data, "harden", "--problem", "insq15g", *SEARCH)
    assert done.returncode == 0, done.stdout + done.stderr
    [test] = (data / "raw" / "insq15g" / "hardened").glob("*.in")
    assert test.with_suffix(".out").is_file()
    assert run_cli(data, "run", "--problem", "insq15g", "--solver", "independent-people",
                   "--solver", "fast").returncode == 0
    strength = run_cli(data, "strength", "--problem", "insq15g")
    assert "SURVIVES" not in strength.stdout, strength.stdout
    again = run_cli(data, "harden", "--problem", "insq15g", *SEARCH)
    assert again.returncode == 0 and "already killed" in again.stdout + again.stderr


def test_ctrl_c_keeps_the_tests_already_added(tmp_path: Path) -> None:
    """The first wrong program gets its test; Ctrl-C during the second (`fast`, which is right,
    so its search never ends on its own) leaves the first test in place and exits 130."""
    data = _insq15g_samples_only(tmp_path)
    process = subprocess.Popen(
        pipeline_argv(data, "harden", "--problem", "insq15g", "--solver", "independent-people",
                      "--solver", "fast", "--budget", "120s", "--shrink-budget", "20s"),
        cwd=REPO, env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(process.stderr), daemon=True)
    reader.start()
    deadline = time.monotonic() + 120
    while not any("kills fast" in line for line in lines):
        assert process.poll() is None, "".join(lines)
        assert time.monotonic() < deadline, "the first test was not added in time"
        time.sleep(0.05)
    time.sleep(1.0)
    process.send_signal(signal.SIGINT)
    out, _ = process.communicate(timeout=60)
    reader.join(timeout=10)
    assert process.returncode == 130, out + "".join(lines)
    assert "Traceback" not in out + "".join(lines)
    assert "independent-people: killed by the new test" in out
    assert "fast: interrupted" in out
    assert len(list((data / "raw" / "insq15g" / "hardened").glob("*.in"))) == 1
