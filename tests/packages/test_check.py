"""Answer checks: the default output validator's flags, custom validators' exit codes, testlib.

The default-validator table follows problemtools' default_validator.cc case by case; the
validators and checkers below are real programs (Python scripts, and C++ against the vendored
testlib.h), judged by their exit codes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from packagekit import FIXTURES

from pipeline.programs.checkers import (
    default_validate,
    parse_float,
    run_output_validator,
    run_testlib_checker,
)
from pipeline.programs.languages import build_program, detect_language
from pipeline.programs.program import Program

TOL = ("float_tolerance", "1e-6")


@pytest.mark.parametrize("answer, output, flags, verdict", [
    # tokens, whitespace and case by default
    (b"1 2 3\n", b"1 2 3\n", (), "AC"),
    (b"1 2 3\n", b"  1\n\n2\t3   ", (), "AC"),                    # whitespace is only a separator
    (b"Yes\n", b"yES\n", (), "AC"),                                # case-insensitive by default
    (b"1 2 3\n", b"1 2\n", (), "WA"),                              # too few tokens
    (b"1 2\n", b"1 2 3\n", (), "WA"),                              # trailing output
    (b"1\n", b"", (), "WA"),
    (b"", b"\n\n", (), "AC"),
    (b"1.0\n", b"1\n", (), "WA"),                                  # no tolerance: strings
    # case_sensitive
    (b"Yes\n", b"yes\n", ("case_sensitive",), "WA"),
    (b"Yes\n", b"Yes\n", ("case_sensitive",), "AC"),
    # space_change_sensitive
    (b"1 2\n", b"1 2\n", ("space_change_sensitive",), "AC"),
    (b"1 2\n", b"1  2\n", ("space_change_sensitive",), "WA"),
    (b"1 2\n", b"1 2", ("space_change_sensitive",), "WA"),         # missing final newline
    (b"1 2\n", b"1 2\n\n", ("space_change_sensitive",), "WA"),     # extra trailing newline
    (b"1 2\n", b"1\t2\n", ("space_change_sensitive",), "WA"),      # type of whitespace counts
    # float tolerances: absolute OR relative
    (b"1.0\n", b"1.0000005\n", TOL, "AC"),
    (b"1.0\n", b"1.000002\n", TOL, "WA"),
    (b"1000000\n", b"1000000.9\n", TOL, "AC"),                     # relative 1e-6 of 10^6 = 1
    (b"1000000\n", b"1000001.1\n", TOL, "WA"),
    (b"0.5\n", b"0.6\n", ("float_absolute_tolerance", "0.1"), "AC"),
    (b"0.5\n", b"0.61\n", ("float_absolute_tolerance", "0.1"), "WA"),
    (b"100\n", b"109\n", ("float_relative_tolerance", "0.1"), "AC"),
    (b"100\n", b"111\n", ("float_relative_tolerance", "0.1"), "WA"),
    (b"0.0314\n", b"3.14000000e-2\n", TOL, "AC"),                 # any float formatting
    (b"3\n", b"3.0000000001\n", TOL, "AC"),                        # integers compared as floats
    (b"1.5\n", b"abc\n", TOL, "WA"),                               # a float is expected
    (b"1.5\n", b"inf\n", TOL, "WA"),                               # not finite: not a float
    (b"1.5\n", b"nan\n", TOL, "WA"),
    (b"abc 1.5\n", b"ABC 1.5\n", TOL, "AC"),                      # non-floats stay strings
    (b"1\n", b"1e\n", TOL, "AC"),                                  # glibc reads "1e" as 1
    (b"16\n", b"0x10\n", TOL, "AC"),                               # and hex floats
    (b"2\n", b"2.0\n", ("float_tolerance", "0"), "AC"),
    (b"2\n", b"2.0\n", ("float_absolute_tolerance", "0.1", "float_absolute_tolerance", "0"), "AC"),
])
def test_the_default_validator_follows_problemtools(answer, output, flags, verdict):
    assert default_validate(answer, output, flags).verdict == verdict


def test_the_default_validator_says_where_the_answer_went_wrong():
    result = default_validate(b"1\n2\n3\n", b"1\n2\n4\n")
    assert result.verdict == "WA"
    assert result.message.startswith("Wrong answer on line 3 of output (corresponding to line 3 "
                                     "in answer file)")
    assert 'Judge: "3"' in result.message and 'User: "4"' in result.message
    assert "Too large difference" in default_validate(b"1\n", b"2\n", TOL).message


@pytest.mark.parametrize("flags", [("colour",), ("float_tolerance",), ("float_tolerance", "x")])
def test_an_unknown_default_validator_flag_is_a_judge_error(flags):
    result = default_validate(b"1\n", b"1\n", flags)
    assert result.verdict == "JE"


@pytest.mark.parametrize("token, value", [
    (b"1", 1.0), (b"-2.5", -2.5), (b".5", 0.5), (b"5.", 5.0), (b"1e3", 1000.0), (b"1E-3", 0.001),
    (b"+7", 7.0), (b"1e", 1.0), (b"0x1p3", 8.0), (b"1e400", None), (b"abc", None), (b"1.5x", None),
    (b"", None), (b"-", None), (b"inf", None), (b"nan", None),
])
def test_floats_are_what_c_scanf_reads_as_a_whole_token(token, value):
    assert parse_float(token) == value


# -- custom output validators --------------------------------------------------------------------

def validator(tmp_path: Path, body: str) -> Program:
    path = tmp_path / "validators" / f"v{abs(hash(body))}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("import sys\ninput_file, answer_file, feedback = sys.argv[1:4]\n"
                    "args = sys.argv[4:]\nteam = sys.stdin.read()\n" + body)
    return Program(name=path.name, role="output_validator", path=path, files=(path,),
                   language="python3")


def run_validator(tmp_path: Path, body: str, output: str = "42\n", args=()):
    build = build_program(validator(tmp_path, body), tmp_path / "cache")
    assert build.ok, build.message
    for name, text in (("in", "1\n"), ("ans", "42\n"), ("out", output)):
        (tmp_path / name).write_text(text)
    return run_output_validator(build, tmp_path / "in", tmp_path / "ans", tmp_path / "out",
                                tuple(args), workdir=tmp_path)


def test_a_validator_exiting_42_accepts_and_43_rejects_with_its_judgemessage(tmp_path):
    body = ("ok = team.split() == open(answer_file).read().split()\n"
            "open(feedback + 'judgemessage.txt', 'w').write('same' if ok else 'differs')\n"
            "sys.exit(42 if ok else 43)\n")
    accepted = run_validator(tmp_path, body)
    assert (accepted.verdict, accepted.message) == ("AC", "same")
    rejected = run_validator(tmp_path, body, output="41\n")
    assert (rejected.verdict, rejected.message) == ("WA", "differs")


def test_the_validator_gets_input_answer_feedback_dir_and_the_args(tmp_path):
    body = ("ok = open(input_file).read() == '1\\n' and open(answer_file).read() == '42\\n' \\\n"
            "    and feedback.endswith('/') and args == ['float_tolerance', '1e-6']\n"
            "sys.exit(42 if ok else 43)\n")
    assert run_validator(tmp_path, body, args=TOL).verdict == "AC"


@pytest.mark.parametrize("body, reason", [
    ("sys.exit(0)\n", "exited with code 0"),
    ("sys.exit(1)\n", "exited with code 1"),
    ("raise RuntimeError('validator bug')\n", "validator bug"),
    ("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n", "signal 11"),
    ("open(feedback + 'score.txt', 'w').write('5')\nsys.exit(43)\n", "rejected the output but"),
])
def test_any_other_validator_end_is_a_judge_error(tmp_path, body, reason):
    result = run_validator(tmp_path, body)
    assert result.verdict == "JE"
    assert reason in result.message


def test_score_files_are_read_for_scoring(tmp_path):
    scored = run_validator(tmp_path, "open(feedback + 'score.txt', 'w').write('7.5\\n')\n"
                                     "sys.exit(42)\n")
    assert (scored.verdict, scored.score) == ("AC", 7.5)
    multiplied = run_validator(tmp_path, "open(feedback + 'score_multiplier.txt', 'w')"
                                         ".write('0.25')\nsys.exit(42)\n")
    assert (multiplied.verdict, multiplied.score_multiplier) == ("AC", 0.25)
    bad = run_validator(tmp_path, "open(feedback + 'score.txt', 'w').write('lots')\nsys.exit(42)\n")
    assert bad.verdict == "JE" and "score.txt" in bad.message


# -- testlib checkers ----------------------------------------------------------------------------

CHECKER = r"""
#include "testlib.h"
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    std::string mode = inf.readToken();
    long long expected = ans.readLong();
    if (mode == "fail") quitf(_fail, "the answer file is broken");
    long long got = ouf.readLong();
    if (mode == "points") quitp(0.25, "a quarter");
    if (got != expected) quitf(_wa, "expected %lld, found %lld", expected, got);
    quitf(_ok, "found %lld", got);
}
"""


@pytest.fixture(scope="module")
def checker(tmp_path_factory):
    folder = tmp_path_factory.mktemp("checker")
    (folder / "check.cpp").write_text(CHECKER)
    program = Program(name="check.cpp", role="checker", path=folder / "check.cpp",
                      files=(folder / "check.cpp",), language="cpp", convention="testlib",
                      include_files=(FIXTURES / "polysum/files/testlib.h",))
    build = build_program(program, folder / "cache")
    assert build.ok, build.message
    return build


@pytest.mark.parametrize("mode, output, verdict, words", [
    ("plain", "42\n", "AC", "found 42"),                           # exit 0
    ("plain", "41\n", "WA", "expected 42, found 41"),              # exit 1
    ("plain", "forty-two\n", "WA", "presentation error"),          # exit 2: PE is WA
    ("plain", "42 43\n", "WA", "presentation error"),              # extra output: _dirt -> PE
    ("fail", "42\n", "JE", "FAIL"),                                # exit 3
    ("points", "42\n", "AC", "a quarter"),                         # exit 7, points read
])
def test_testlib_exit_codes(tmp_path, checker, mode, output, verdict, words):
    (tmp_path / "in").write_text(f"{mode}\n")
    (tmp_path / "out").write_text(output)
    (tmp_path / "ans").write_text("42\n")
    result = run_testlib_checker(checker, tmp_path / "in", tmp_path / "out", tmp_path / "ans",
                                 workdir=tmp_path)
    assert result.verdict == verdict
    assert words in result.message
    if mode == "points":
        assert result.score == 0.25


def test_a_checker_that_dies_is_a_judge_error(tmp_path):
    path = tmp_path / "dies.py"
    path.write_text("import os, signal\nos.kill(os.getpid(), signal.SIGABRT)\n")
    build = build_program(Program(name="dies.py", role="checker", path=path, files=(path,),
                                  language=detect_language([path]), convention="testlib"),
                          tmp_path / "cache")
    for name in ("in", "out", "ans"):
        (tmp_path / name).write_text("1\n")
    result = run_testlib_checker(build, tmp_path / "in", tmp_path / "out", tmp_path / "ans",
                                 workdir=tmp_path)
    assert result.verdict == "JE" and "signal 6" in result.message
    assert sys.executable  # the checker ran under this interpreter


def test_a_case_stored_without_an_answer_gives_the_validator_an_empty_answer_file(tmp_path,
                                                                                  build_dir):
    """A case judged by a package but stored without an answer (one found outside it): its
    output validator is given an empty answer file, as the default validator compares with an
    empty answer, and never a path naming no file."""
    from dataclasses import replace

    from packagekit import tiny_kattis

    from pipeline.packages import build_package, judge_case, load_package
    from pipeline.packages.judge import default_limits

    folder = tiny_kattis(tmp_path / "tiny", {
        "problem.yaml": "name: Tiny Sum\nvalidation: custom\n",
        "output_validators/given/validate.py": (
            "import sys\nfrom pathlib import Path\n"
            "answer, feedback = Path(sys.argv[2]), Path(sys.argv[3])\n"
            "said = repr(answer.read_text()) if answer.exists() else f'no file {answer}'\n"
            "(feedback / 'judgemessage.txt').write_text(f'answer: {said}')\n"
            "sys.exit(42 if answer.exists() else 43)\n"),
    })
    package = load_package(folder, build_dir)
    builds = build_package(package, build_dir)
    [submission] = builds.submissions.values()
    case = replace(package.case("secret/01"), answer_path=None)
    result = judge_case(package, submission, case, default_limits(package, 5.0),
                        tmp_path / "work", builds)
    assert (result.verdict, result.message) == ("AC", "answer: ''"), result
