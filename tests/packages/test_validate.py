"""Input validators: Kattis 42/43 with flags, testlib exit 0, messages kept and cut."""

from __future__ import annotations

from pathlib import Path

from packagekit import FIXTURES

from pipeline.packages import build_package, load_package, validate_case
from pipeline.packages.validate import MESSAGE_KEEP, validate_input
from pipeline.programs.languages import build_program
from pipeline.programs.program import Program


def script(tmp_path: Path, name: str, body: str, convention: str = "kattis"):
    path = tmp_path / name
    path.write_text("import sys\ndata = sys.stdin.read()\nargs = sys.argv[1:]\n" + body)
    program = Program(name=name, role="input_validator", path=path, files=(path,),
                      language="python3", convention=convention)
    return build_program(program, tmp_path / "cache")


def test_kattis_validators_accept_with_42_and_reject_with_their_message(tmp_path):
    strict = script(tmp_path, "v.py", "if data != '1\\n':\n    print('want exactly 1, got '"
                    " + repr(data))\n    sys.exit(43)\nsys.exit(42)\n")
    (tmp_path / "good.in").write_text("1\n")
    (tmp_path / "bad.in").write_text("2\n")
    assert validate_input([strict], tmp_path / "good.in").valid
    result = validate_input([strict], tmp_path / "bad.in")
    assert not result.valid
    rejection, = result.rejections
    assert (rejection.validator, rejection.exit_code, rejection.judge_error) == ("v.py", 43, False)
    assert rejection.message == "want exactly 1, got '2\\n'"


def test_exit_0_is_not_valid_for_kattis_but_is_for_testlib(tmp_path):
    zero = script(tmp_path, "zero.py", "sys.exit(0)\n")
    testlib = script(tmp_path, "t.py", "sys.exit(0 if data.strip() == '1' else 3)\n", "testlib")
    (tmp_path / "a.in").write_text("1\n")
    assert not validate_input([zero], tmp_path / "a.in").valid
    assert validate_input([testlib], tmp_path / "a.in").valid
    (tmp_path / "b.in").write_text("7\n")
    assert validate_input([testlib], tmp_path / "b.in").rejections[0].exit_code == 3


def test_flags_reach_the_validator_as_arguments(tmp_path):
    bounded = script(tmp_path, "b.py", "limit = 10 if 'small' in args else 1000\n"
                     "sys.exit(42 if int(data) <= limit else 43)\n")
    (tmp_path / "x.in").write_text("500\n")
    assert validate_input([bounded], tmp_path / "x.in").valid
    assert not validate_input([bounded], tmp_path / "x.in", lambda name: ("small",)).valid


def test_a_long_message_is_cut_to_about_a_hundred_characters(tmp_path):
    chatty = script(tmp_path, "c.py", "print('bad ' * 500)\nsys.exit(43)\n")
    (tmp_path / "x.in").write_text("1\n")
    message = validate_input([chatty], tmp_path / "x.in").rejections[0].message
    assert len(message) <= MESSAGE_KEEP and message.startswith("bad bad") and \
        message.endswith("...")


def test_a_crashing_validator_is_not_a_verdict_on_the_input(tmp_path):
    crash = script(tmp_path, "crash.py",
                   "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    (tmp_path / "x.in").write_text("1\n")
    rejection = validate_input([crash], tmp_path / "x.in").rejections[0]
    assert rejection.judge_error and "signal 9" in rejection.message


def test_every_fixture_input_passes_its_packages_validators(build_dir):
    for name in ("circlearea", "hypotenuse", "bigsum", "polysum", "guess"):
        package = load_package(FIXTURES / name, build_dir)
        builds = build_package(package, build_dir, submissions=[])
        assert builds.input_validators
        for case in package.cases:
            result = validate_case(package, builds, case)
            assert result.valid, f"{name} {case.name}: {result.message}"


def test_a_bad_input_is_rejected_by_the_fixtures_validators(copy_fixture, build_dir):
    for name, bad in (("bigsum", "2\n1 2000\n"), ("polysum", "2\n1  2\n"),
                      ("hypotenuse", "0 5\n")):
        root = copy_fixture(name)
        target = root / ("tests/01" if name == "polysum" else
                         "data/secret/group1/1-tiny.in" if name == "bigsum" else
                         "data/secret/01-unit.in")
        target.write_text(bad)
        package = load_package(root, build_dir)
        builds = build_package(package, build_dir, submissions=[])
        case = package.cases[0] if name == "polysum" else next(
            c for c in package.cases if c.input_path == target)
        result = validate_case(package, builds, case)
        assert not result.valid, name
        assert result.rejections[0].message
    assert "line 2" in result.rejections[0].message or "out of" in result.rejections[0].message


def test_an_answer_validator_is_given_the_input_first_but_a_checktestdata_one_the_answer_alone(
        tmp_path):
    """BAPCtools runs `validator input [args] < answer`, and a checktestdata or viva one on
    the answer alone (a path given to viva is one more file to check): the check of an answer
    at ingest and the check of the validators against invalid_answers both do so."""
    from pipeline.packages.validate import (
        answer_validator_input,
        run_answer_validator,
        validate_answer,
    )

    given, answer = tmp_path / "case.in", tmp_path / "case.ans"
    given.write_text("3\n")
    answer.write_text("6\n")
    # it accepts an answer twice the input it is given as its first argument
    double = script(tmp_path, "double.py", "n = int(open(args[0]).read()) if args else None\n"
                    "sys.exit(42 if n is not None and int(data) == 2 * n else 43)\n")
    source = tmp_path / "answer.ctd"
    source.write_text("INT(0, 100)\nNEWLINE\n")
    ctd = build_program(Program(name="answer.ctd", role="answer_validator", path=source,
                                files=(source,), language="checktestdata"), tmp_path / "cache")
    for validator in (double, ctd):
        assert validate_answer([validator], given, answer).valid, validator.program.name
        assert run_answer_validator(validator, given, answer) is None, validator.program.name
    assert answer_validator_input(double, given) == (str(given),)
    assert answer_validator_input(ctd, given) == ()
    pattern = tmp_path / "answer.viva"
    pattern.write_text("<[n] = INT(0, 100)>\n")
    viva = build_program(Program(name="answer.viva", role="answer_validator", path=pattern,
                                 files=(pattern,), language="viva"), tmp_path / "cache")
    assert answer_validator_input(viva, given) == ()  # (built or not: no viva here)


def test_any_exit_but_42_rejects_an_answer_at_ingest_but_held_to_invalid_answers_only_43_does(
        tmp_path):
    """One runner, two rules: at ingest any exit but 42 rejects the answer; held to
    invalid_answers (`strict`) 43 rejects and any other exit is the validator's own failure."""
    from pipeline.packages.validate import run_answer_validator, validate_answer

    given, answer = tmp_path / "case.in", tmp_path / "case.ans"
    given.write_text("3\n")
    answer.write_text("6\n")
    zero = script(tmp_path, "zero.py", "print('fine')\nsys.exit(0)\n")
    rejection, = validate_answer([zero], given, answer).rejections
    assert str(rejection) == "answer validator zero.py rejected the answer (exit code 0): fine"
    held = run_answer_validator(zero, given, answer)
    assert held is not None and str(held) == (
        "answer validator zero.py could not judge the answer (exit code 0): the validator exited"
        " with code 0: fine (42 or 43 expected)")
    refuse = script(tmp_path, "refuse.py", "print('too big')\nsys.exit(43)\n")
    for found in (validate_answer([refuse], given, answer).rejections[0],
                  run_answer_validator(refuse, given, answer)):
        assert found is not None and str(found) == (
            "answer validator refuse.py rejected the answer (exit code 43): too big")
