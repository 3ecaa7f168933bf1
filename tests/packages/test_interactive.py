"""Interactive judging: real submissions and a real validator connected by pipes."""

from __future__ import annotations

import secrets
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from packagekit import FIXTURES
from processkit import starved

from pipeline.packages import build_package, interactive, judge_case, load_package
from pipeline.packages.expectations import verdict_at
from pipeline.packages.judge import default_limits
from pipeline.programs.languages import build_program, detect_language
from pipeline.programs.program import Program


@pytest.fixture(scope="module")
def guess(build_dir):
    package = load_package(FIXTURES / "guess", build_dir)
    return package, build_package(package, build_dir)


def submission(tmp_path: Path, body: str, build_dir: Path):
    path = tmp_path / "sub.py"
    path.write_text(body)
    return build_program(Program(name="sub.py", role="submission", path=path, files=(path,),
                                 language=detect_language([path])), build_dir)


def judge(guess, build, case: str, tmp_path: Path, time_s: float = 1.0):
    package, builds = guess
    return judge_case(package, build, package.case(case), default_limits(package, time_s, time_s),
                      tmp_path, builds)


def test_a_binary_search_is_accepted_with_the_validators_message(guess, tmp_path):
    package, builds = guess
    for name in ("accepted/binary.cpp", "accepted/binary.py"):
        result = judge(guess, builds.submissions[name], "secret/04-huge", tmp_path)
        assert result.verdict == "AC", result.message
        assert result.message.startswith("found 123456789 in")


def test_too_many_guesses_is_wrong_answer_decided_by_the_validator(guess, tmp_path):
    package, builds = guess
    result = judge(guess, builds.submissions["wrong_answer/linear.py"], "secret/02-mid", tmp_path)
    assert result.verdict == "WA" and result.message == "more than 30 guesses"
    assert result.validator_first_wa


def test_a_submission_starved_of_a_core_is_never_tle(guess, tmp_path, build_dir):
    """A binary search that first spends 0.4 s of CPU under a 0.5 s limit, given a few ms of
    a core a second: the pair's wall clock passes its cap while the submission computes, its
    CPU time under the limit. Never TLE: not judged (JE, machine too busy) when the starving
    outlasts the launchers' backstop, else judged AC as it deserves (how long the scheduler
    starves it is not the test's to decide)."""
    name = f"starved_{secrets.token_hex(8)}.py"
    path = tmp_path / name
    path.write_text("import time\nend = time.process_time() + 0.4\n"
                    "while time.process_time() < end:\n    pass\n" + (
                        FIXTURES / "guess" / "submissions" / "accepted" / "binary.py"
                    ).read_text())
    build = build_program(Program(name=name, role="submission", path=path, files=(path,),
                                  language=detect_language([path])), build_dir)
    with starved(name):
        result = judge(guess, build, "secret/04-huge", tmp_path / "work", time_s=0.5)
    assert result.verdict in ("JE", "AC") and not result.timed_out, result
    if result.verdict == "JE":
        assert result.message.startswith("not judged: machine too busy"), result
    assert result.cpu_s < 0.5


def test_a_submission_that_stops_talking_is_tle(guess, tmp_path):
    package, builds = guess
    started = time.monotonic()
    result = judge(guess, builds.submissions["time_limit_exceeded/stops_talking.py"],
                   "secret/04-huge", tmp_path, time_s=0.5)
    assert result.verdict == "TLE" and result.timed_out
    assert result.cpu_s < 0.5   # it was waiting, not computing
    assert time.monotonic() - started < 5
    assert "stopped answering" in result.message


def test_a_pair_waiting_for_each_other_is_stopped_long_before_its_time_is_up(guess, tmp_path):
    """stops_talking.py waits for a reply it never asked for while the validator waits for its
    guess: neither can ever go on, so the pair is stopped as soon as that is seen (not after
    its 20 s), and the submission is TLE as it would have been then, at any limit."""
    package, builds = guess
    started = time.monotonic()
    result = judge(guess, builds.submissions["time_limit_exceeded/stops_talking.py"],
                   "secret/04-huge", tmp_path, time_s=20.0)
    assert time.monotonic() - started < 10
    assert result.verdict == "TLE" and result.timed_out and result.wall_s < 10
    assert "both waiting for the other to write" in result.message
    assert verdict_at(result, 100.0) == "TLE"


def test_a_validator_that_sleeps_before_it_replies_is_not_taken_for_a_stuck_pair(
        copy_fixture, tmp_path, build_dir):
    """Both sides look idle while the validator sleeps before its first replies (the
    submission waits to read, the validator sleeps, not reading): the pair goes on and the
    binary search is accepted."""
    root = copy_fixture("guess")
    validator = root / "output_validator" / "interact.py"
    validator.write_text(validator.read_text().replace(
        '    print("higher" if guess < x else "lower", flush=True)',
        '    if guesses <= 3:\n        __import__("time").sleep(0.4)\n'
        '    print("higher" if guess < x else "lower", flush=True)'))
    package = load_package(root, build_dir)
    builds = build_package(package, build_dir, submissions=["accepted/binary.py"])
    result = judge_case(package, builds.submissions["accepted/binary.py"],
                        package.case("secret/04-huge"), default_limits(package, 5.0, 5.0),
                        tmp_path, builds)
    assert result.verdict == "AC", result.message
    assert result.wall_s > 1.0  # it did wait for the sleeping validator


def test_a_crashing_submission_is_a_runtime_error(guess, tmp_path):
    package, builds = guess
    result = judge(guess, builds.submissions["run_time_error/crash_after_first.c"],
                   "secret/01-low", tmp_path)
    assert result.verdict == "RE" and "signal 6" in result.message


def test_a_submission_spinning_without_output_is_tle(guess, tmp_path, build_dir):
    spinner = submission(tmp_path, "input()\nwhile True:\n    pass\n", build_dir)
    result = judge(guess, spinner, "secret/01-low", tmp_path, time_s=0.5)
    assert result.verdict == "TLE" and result.cpu_s > 0.2


def test_a_broken_validator_is_a_judge_error_not_the_submissions_fault(copy_fixture, tmp_path,
                                                                        build_dir):
    root = copy_fixture("guess")
    (root / "output_validator/interact.py").write_text("import sys\nprint(5, flush=True)\n"
                                                       "sys.exit(0)\n")
    package = load_package(root, build_dir)
    builds = build_package(package, build_dir, submissions=["accepted/binary.py"])
    result = judge_case(package, builds.submissions["accepted/binary.py"],
                        package.case("sample/1"), default_limits(package, 1.0, 1.0), tmp_path,
                        builds)
    assert result.verdict == "JE"
    assert "exited with code 0" in result.message


def test_the_submission_gets_the_cases_args(guess, tmp_path, build_dir):
    package, builds = guess
    echo = submission(tmp_path, "import sys\nn = int(input())\nlo, hi = 1, n\n"
                      "target = int(sys.argv[1])\nprint(target, flush=True)\n", build_dir)
    case = replace(package.case("secret/01-low"), args=("1",))
    result = judge_case(package, echo, case, default_limits(package, 1.0, 1.0), tmp_path, builds)
    assert result.verdict == "AC", result.message
    assert sys.executable in echo.argv


def test_a_crash_is_a_runtime_error_whichever_launcher_reports_first(guess, tmp_path,
                                                                      monkeypatch):
    """A launcher reports only once its case's namespace is torn down, so on a loaded machine
    the validator's launcher may report before the submission's though the submission ended
    first. Which side ended first was taken from which reported first: a submission that
    crashed (its end made the validator read end-of-file and reject) was WA, not RE. Here the
    validator's report always comes first; `_ended_first` decides."""
    monkeypatch.setattr(interactive, "_first_to_end",
                        lambda validator, submission, wall_s, cpu_s: "validator")
    package, builds = guess
    result = judge(guess, builds.submissions["run_time_error/crash_after_first.c"],
                   "secret/01-low", tmp_path)
    assert result.verdict == "RE" and "signal 6" in result.message, result
    for name, verdict in (("accepted/binary.py", "AC"), ("wrong_answer/linear.py", "WA")):
        judged = judge(guess, builds.submissions[name], "secret/02-mid", tmp_path / name)
        assert judged.verdict == verdict, judged
