"""checktestdata (`.ctd`) input validators: the language as DOMjudge's checktestdata defines it
(its grammar and its libchecktestdata.cc decide where the `checktestdata` package differs),
judged with problemtools' semantics (42 valid, 43 invalid, a message naming the line and
character of the input and the line of the program), run contained like every other validator.

The language's own test suite and examples (DOMjudge/checktestdata), problemtools' and
BAPCtools' `different` packages are read from their fetched repositories when present.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from packagekit import fetched

from pipeline.packages import build_package, load_package, validate_case
from pipeline.packages.validate import validate_input
from pipeline.programs.checktestdata import ACCEPT, PROGRAM_ERROR, REJECT, check, parse
from pipeline.programs.languages import CHECKTESTDATA, build_program
from pipeline.programs.program import Program
from pipeline.verdicts import Verdict


def accepts(program: str, data: str, **options) -> bool:
    outcome = check(program, data.encode("latin-1"), **options)
    assert not outcome.program_error, outcome.message
    return outcome.accepted


def failure(program: str, data: str) -> str:
    outcome = check(program, data.encode("latin-1"), program_name="p.ctd")
    assert not outcome.accepted
    return outcome.message.splitlines()[0]


# -- the language --------------------------------------------------------------------------------

@pytest.mark.parametrize("program, good, bad", [
    ("INT(1, 10) NEWLINE", ["1\n", "10\n"], ["0\n", "11\n", "01\n", "1", "1 \n", "+1\n", ""]),
    ("INT(-5, 5)", ["-5", "0"], ["-0", "-", "- 1", "-05"]),
    ("INT(0, 10^18 * 10^18)", ["1000000000000000000000000000000000000"],
     ["1000000000000000000000000000000000001"]),
    ("SPACE INT(1,2) SPACE", [" 1 "], ["1", "  1 ", "\t1 "]),
    ("FLOAT(-1, 1)", ["0", "-1", "0.5", "1e0", "-1.0E-3", "0.999"],
     ["1.0001", "00.5", ".5", "5.", "1e", "1e05", "+0.5"]),
    ("FLOAT(0, 100, x, FIXED)", ["12.5"], ["1e1"]),
    ("FLOAT(0, 100, x, SCIENTIFIC)", ["1.25e1"], ["12.5"]),
    ("FLOATP(0, 10, 2, 3)", ["1.25", "1.250"], ["1.2", "1.2500", "1"]),
    ("FLOATP(0, 1000, 1, 1, x, SCIENTIFIC)", ["1.5e2"], ["15.0e1", "0.5e1"]),
    ('STRING("ab\\tc") NEWLINE', ["ab\tc\n"], ["ab c\n", "ab\t"]),
    ('REGEX("[A-Z][a-z]*") SPACE REGEX("[[:digit:]]+")', ["Hello 42"], ["hello 42", "Hello x"]),
    ('REGEX("a.c")', ["a\nc"], ["ac"]),  # '.' matches a newline in checktestdata
    ("INT(1,3,n) NEWLINE REP(n, SPACE) INT(0,9) END NEWLINE", ["3\n1 2 3\n"],
     ["3\n1 2\n", "3\n1 2 3 \n", "2\n1  2\n"]),
    ("REPI(i, 3, SPACE) INT(i, i) END ASSERT(i == 3)", ["0 1 2"], ["0 2 1", "012"]),
    ("WHILE(!ISEOF) INT(0,9) NEWLINE END", ["", "1\n2\n"], ["1\n2"]),
    ("WHILEI(i, !MATCH(\"\\n\"), SPACE) INT(0,9) END NEWLINE ASSERT(i == 3)", ["1 2 3\n"],
     ["1 2\n"]),
    ("INT(0,1,b) IF(b == 1) SPACE INT(5,5) ELSE SPACE INT(7,7) END", ["1 5", "0 7"],
     ["1 7", "0 5"]),
    ("INT(1,9,a) SPACE INT(1,9,b) ASSERT(a < b && (a + b) % 2 == 0 || a == 9)",
     ["1 3", "9 1"], ["1 2", "3 1"]),
    ("INT(1,9,a) ASSERT(!a == 1 || a == 2)", ["3"], ["1", "2"]),  # ! takes all that follows
    ("INT(0,1,a) ASSERT(a == 1 || a == 0 && a == 0)", ["0"], ["1"]),  # && and || bind alike
    ("INT(0,1,a) ASSERT(a == 0 && a == 0 || a == 1)", ["0", "1"], []),
    ("FLOAT(0,1) SPACE FLOATP(0,1,1,1)", ["1 0.5", "0.5 1.0"], ["1 1", "0.5 1e0"]),  # at EOF
    ("FLOAT(-1,1,x) SPACE FLOATP(0,1,1,1,y) ASSERT(x == 0 && y == 0)", ["-0.0 -0.0", "-0 0.0"],
     ["-0.0 -0", "-1e-9 -0.0", "1e99999999999999999999 0.0"]),
    ('REGEX("[^[:space:][:punct:]]+")', ["abc", "x9"], ["a-b", "a b", "[x]"]),
    ("REPI(i,3,SPACE) INT(0,9,x[i]) END ASSERT(UNIQUE(x))", ["1 2 3"], ["1 2 1"]),
    ("REPI(i,2,NEWLINE) INT(0,9,x[i]) SPACE INT(0,9,y[i]) END ASSERT(UNIQUE(x, y))",
     ["1 2\n1 3"], ["1 2\n1 2"]),
    ("INT(0,9,v) REPI(i,2) SPACE INT(0,9,x[i]) END ASSERT(INARRAY(v, x))", ["5 1 5"],
     ["5 1 6"]),
    ('REGEX("[a-z]+", s) ASSERT(STRLEN(s) <= 3 && s != "bad")', ["abc", "ok"],
     ["abcd", "bad"]),
    ("INT(0,100,a) SPACE INT(1,100,b) ASSERT(a / b * b + a % b == a && -7 / 2 == -3 && "
     "-7 % 2 == -1)", ["7 2", "100 3"], []),  # integer division truncates, as C's does
    ("INT(1,9,a) SET(b = a * 2, c[b] = a) SPACE INT(b, b) ASSERT(c[2*a] == a) UNSET(c)",
     ["1 2", "3 6"], ["1 3"]),
    ("INT(0, 2^3^2) ASSERT(-2^2 == -4)", ["64"], ["65"]),  # '^' is left-associative there
    ("SET(h = 1/2.) ASSERT(h == 0.5) SET(q = 1/2) ASSERT(q == 0)", [""], []),
    ("# a comment\nINT(0,9) # another\n", ["5"], []),
])
def test_each_command_reads_exactly_what_checktestdata_reads(program, good, bad):
    for data in good:
        assert accepts(program, data), (program, data)
    for data in bad:
        assert not accepts(program, data), (program, data)


def test_an_integer_equals_a_float_of_its_value_in_arrays():
    """checktestdata's arrays are keyed by its own comparison of values, which compares an
    integer and a float by value: 1 and 1.0 are one value to INARRAY and UNIQUE."""
    assert accepts("SET(x[0] = 1) ASSERT(INARRAY(1.0, x) && 1 == 1.0)", "")
    assert failure("SET(x[0] = 1, x[1] = 1.0) ASSERT(UNIQUE(x))", "") == (
        "line 1 character 1 of the input, p.ctd line 1: non-unique tuple (1.0) found at index "
        "[1] (ASSERT(UNIQUE(x)))")


def test_a_failing_unique_rejects_the_input_wherever_it_is_tested():
    """UNIQUE does not return false in checktestdata: a repeated tuple rejects the input, even
    under `!` or in an IF, naming the tuple and its index."""
    program = "REPI(i,3,SPACE) INT(0,9,x[i]) END\nIF(!UNIQUE(x)) SPACE END"
    assert accepts(program, "1 2 3")
    assert failure(program, "1 2 1") == (
        "line 1 character 6 of the input, p.ctd line 2: non-unique tuple (1) found at index "
        "[2] (IF(!UNIQUE(x)))")


def test_whitespace_ok_lets_any_blanks_stand_for_one_space_and_around_newlines():
    program = "INT(1,9) SPACE INT(1,9) NEWLINE"
    assert not accepts(program, "1  2 \n")
    assert accepts(program, "  1 \t 2 \n", whitespace_ok=True)
    assert not accepts(program, "12\n", whitespace_ok=True)


def test_a_mismatch_names_the_line_and_character_of_the_input_and_the_programs_line():
    program = "INT(1,100,n) NEWLINE\nREP(n)\n  INT(1,5) NEWLINE\nEND\n"
    assert failure(program, "2\n3\n7\n") == (
        "line 3 character 1 of the input, p.ctd line 3: integer 7 outside of range [1, 5] "
        "(INT(1,5))")
    assert failure(program, "2\n3\n4\n5\n") == (
        "line 4 character 1 of the input, p.ctd line 4: got: `5`, but expected <EOF> "
        "(EOF (implicit, at the end))")
    assert failure("SPACE", "") == ("line 1 character 1 of the input, p.ctd line 1: got: <EOF>, "
                                    "but expected <SPACE> (SPACE)")


@pytest.mark.parametrize("program, words", [
    ("INT(1,", "'(' at character 4 is not closed by a ')'"),
    ("REP(3) SPACE", "REP is not closed by an END"),
    ("SPACE END", "Unmatched 'END'"),
    ("IF(1 == 1) ELSE ELSE END", "unexpected token at 1:17 'ELSE'"),
    ('STRING("\\777")', "Bad escape sequence"),
    ("FOO(1)", "unknown token at 1:1 'FOO'"),
    ("INT(1, 2) ) ", "expected command, but got ')'"),
    ("SET(a = 1.5 % 2)", "can only perform modulo on integers"),  # constants: found at once
    ("REP(1) " * 21 + "END " * 21, "nested too deeply"),  # Python's bound on nested blocks
    ("SET(a = " + "(" * 100_000 + "1" + ")" * 100_000 + ")", "nested too deeply"),
])
def test_a_wrong_program_is_a_syntax_error_with_its_line(program, words):
    outcome = check(program, b"", program_name="p.ctd")
    assert outcome.program_error and outcome.exit_code == PROGRAM_ERROR
    assert outcome.message.startswith("p.ctd: syntax error: line 1: ") and words in \
        outcome.message, outcome.message


@pytest.mark.parametrize("program, words", [
    ("INT(0, n)", "n is not assigned"),
    ('SET(a = "x" + 1)', "cannot combine Number and String"),
    ("SET(f = 1.5) SET(a = f % 2)", "can only perform modulo on integers"),
    ("SET(f = 0.5) SET(a = 2 ^ f)", "exponent must be an unsigned long"),
    ("SET(z = 0) SET(a = 1 / z)", "by zero"),
    ("ASSERT(UNIQUE(nothing))", "variable nothing undefined"),
    ("SET(x[1] = 1) UNSET(x) ASSERT(INARRAY(1, x))", "variable x undefined"),
    ('REGEX("a{2,1}")', "invalid regex"),
])
def test_a_program_error_at_run_time_names_the_command_and_its_line(program, words):
    outcome = check(program, b"", program_name="p.ctd")
    assert outcome.program_error and not outcome.accepted
    assert outcome.message.startswith("p.ctd line 1: error in ") and words in outcome.message


def test_a_long_input_is_checked_in_about_a_second(tmp_path):
    n = 200_000
    data = (f"{n}\n" + " ".join(str(i * 7919 % 1_000_003) for i in range(n)) + "\n").encode()
    program = "INT(1,1000000,n) NEWLINE REPI(i,n,SPACE) INT(0,1000002,x[i]) END NEWLINE " \
              "ASSERT(UNIQUE(x))"
    assert check(program, data).accepted


# -- as a validator ------------------------------------------------------------------------------

def run_cli(tmp_path: Path, program: str, data: str, *options: str):
    path = tmp_path / "v.ctd"
    path.write_text(program)
    return subprocess.run([sys.executable, "-P", str(CHECKTESTDATA), *options, str(path),
                           "ignored"],
                          input=data, capture_output=True, text=True, timeout=60)


def test_the_command_exits_42_valid_43_invalid_2_for_a_wrong_program(tmp_path):
    good = run_cli(tmp_path, "INT(1,3) NEWLINE", "2\n")
    assert (good.returncode, good.stdout.strip()) == (ACCEPT, "testdata ok!")
    bad = run_cli(tmp_path, "INT(1,3) NEWLINE", "4\n")
    assert bad.returncode == REJECT
    assert bad.stderr.splitlines() == ["line 1 character 1 of the input, v.ctd line 1: integer "
                                       "4 outside of range [1, 3] (INT(1,3))", "4↩", "^"]
    assert run_cli(tmp_path, "INT(1,", "4\n").returncode == PROGRAM_ERROR
    assert run_cli(tmp_path, "INT(1,", "", "--check").returncode == PROGRAM_ERROR
    assert run_cli(tmp_path, "INT(1,3)", "", "--check").returncode == 0
    assert run_cli(tmp_path, "INT(1,3) SPACE INT(1,3)", "1   2", "-w").returncode == ACCEPT
    huge = "9" * 10_000  # more digits than Python converts by default
    assert run_cli(tmp_path, "INT(0, 10^10000)", huge).returncode == ACCEPT
    too_big = run_cli(tmp_path, "INT(0, 10^9999)", huge)
    assert too_big.returncode == REJECT and "outside of range" in too_big.stderr


def ctd_validator(tmp_path: Path, text: str):
    path = tmp_path / "check.ctd"
    path.write_text(text)
    program = Program(name="check.ctd", role="input_validator", path=path, files=(path,),
                      language="checktestdata")
    return build_program(program, tmp_path / "cache")


def test_a_ctd_validator_builds_and_runs_like_any_validator(tmp_path):
    build = ctd_validator(tmp_path, "INT(1, 10) NEWLINE\n")
    assert build.ok, build.message
    (tmp_path / "good.in").write_text("7\n")
    (tmp_path / "bad.in").write_text("70\n")
    assert validate_input([build], tmp_path / "good.in").valid
    rejection, = validate_input([build], tmp_path / "bad.in", lambda name: ("--flag",)).rejections
    assert (rejection.exit_code, rejection.judge_error) == (REJECT, False)
    assert rejection.message.startswith("line 1 character 1 of the input, check.ctd line 1: "
                                        "integer 70 outside of range [1, 10]")


@pytest.mark.parametrize("program, data", [
    ('REGEX("(a|aa)*b")', "a" * 60),  # backtracks without end
    ("WHILE(1 == 1) END", ""),         # loops without end
])
def test_a_bomb_times_out_in_its_own_contained_run(tmp_path, program, data):
    build = ctd_validator(tmp_path, program)
    assert build.ok, build.message
    (tmp_path / "x.in").write_text(data)
    rejection, = validate_input([build], tmp_path / "x.in", time_s=1).rejections
    assert rejection.judge_error and "the validator timed out" in rejection.message


def test_a_program_that_fills_memory_stops_at_the_memory_limit(tmp_path):
    build = ctd_validator(tmp_path, "REPI(i, 10^9) SET(x[i] = i * 10^10000) END")
    (tmp_path / "x.in").write_text("")
    rejection, = validate_input([build], tmp_path / "x.in", memory_mb=256).rejections
    assert (rejection.exit_code, rejection.message) == (
        PROGRAM_ERROR, "checktestdata: the program ran out of memory (the validator's memory "
                       "limit)")


def test_a_ctd_program_with_a_syntax_error_does_not_build_and_judges_no_input(tmp_path):
    build = ctd_validator(tmp_path, "REP(3)\n  SPACE\n")
    assert build.verdict is Verdict.CE
    assert "check.ctd: syntax error: line 1: REP is not closed by an END" in build.message
    (tmp_path / "x.in").write_text("   ")
    rejection, = validate_input([build], tmp_path / "x.in").rejections
    assert rejection.judge_error and "did not build" in rejection.message


def test_the_checktestdata_fixture_accepts_its_inputs_and_rejects_a_bad_one(copy_fixture,
                                                                             build_dir):
    root = copy_fixture("roomarea")
    package = load_package(root, build_dir)
    builds = build_package(package, build_dir, submissions=[])
    assert [b.language for b in builds.input_validators] == ["checktestdata"]
    for case in package.cases:
        assert validate_case(package, builds, case).valid, case.name
    (root / "data" / "secret" / "05-bad.in").write_text("2\nhall 2.0 1.5\nhall 1.0 1.0\n")
    (root / "data" / "secret" / "05-bad.ans").write_text("4.0\n")
    (root / "data" / "secret" / "06-bad.in").write_text("1\nhall 2.0 1.555\n")
    (root / "data" / "secret" / "06-bad.ans").write_text("3.11\n")
    package = load_package(root, build_dir)
    messages = {case.name: validate_case(package, builds, case).message
                for case in package.cases if case.name.endswith("-bad")}
    assert "roomarea.ctd rejected the input (exit code 43): line 4 character 1 of the input, " \
        'roomarea.ctd line 7: non-unique tuple ("hall") found at index [1' in \
        messages["secret/05-bad"]
    assert "roomarea.ctd rejected the input (exit code 43): line 2 character 10 of the input, " \
        "roomarea.ctd line 5: float decimals outside of range [1, 2]" in messages["secret/06-bad"]


# -- the language's own tests and the packages that use it ---------------------------------------

def test_checktestdatas_own_test_suite(tmp_path):
    """DOMjudge/checktestdata's `make check`: each tests/test_N_prog.in accepts its
    test_N_data.in* and rejects its test_N_data.err*; each test_N_prog.err* fails on
    test_N_data.in; testws_* run with --whitespace-ok. (The generate and preset modes are not
    implemented: they make data, they do not check it.)"""
    tests = fetched("DOMjudge/checktestdata", "tests", tmp_path)
    wrong, checked = [], 0
    for program in sorted(tests.glob("test*_prog.in")):
        base = program.name.removesuffix("_prog.in")
        if base.startswith(("testgenerate", "testpreset")):
            continue
        options = {"whitespace_ok": base.startswith("testws")}
        text = program.read_text(encoding="latin-1")
        for data in sorted(tests.glob(f"{base}_data.in*")):
            checked += 1
            if not check(text, data.read_bytes(), **options).accepted:
                wrong.append(f"{data.name} rejected by {program.name}")
        for data in sorted(tests.glob(f"{base}_data.err*")):
            checked += 1
            if check(text, data.read_bytes(), **options).accepted:
                wrong.append(f"{data.name} accepted by {program.name}")
        for bad_program in sorted(tests.glob(f"{base}_prog.err*")):
            checked += 1
            data = (tests / f"{base}_data.in").read_bytes()
            if check(bad_program.read_text(encoding="latin-1"), data, **options).accepted:
                wrong.append(f"{bad_program.name} accepted {base}_data.in")
    assert checked > 150 and not wrong, wrong


def test_checktestdatas_examples_parse(tmp_path):
    examples = fetched("DOMjudge/checktestdata", "examples", tmp_path)
    programs = sorted(p for p in examples.rglob("*.ctd") if p.is_file())  # not a dangling link
    assert len(programs) >= 10
    for program in programs:
        parse(program.read_text(encoding="latin-1"))


DIFFERENT_CASES = [("1 2\n", True), ("1000000000000000 0\n", True), ("0 0\n" * 40, True),
                   ("", False), ("0 0\n" * 41, False), ("1000000000000001 0\n", False),
                   ("-1 2\n", False), ("1  2\n", False), ("1 2", False), ("01 2\n", False)]


@pytest.mark.parametrize("repo, folder", [
    ("Kattis/problemtools", "examples/different"),
    ("RagnarGrootKoerkamp/BAPCtools", "test/problems/different")])
def test_the_different_packages_ctd_agrees_with_its_python_validator(tmp_path, build_dir, repo,
                                                                      folder):
    """problemtools' and BAPCtools' `different` ship the same rules twice, as different.ctd
    and as validate.py: both accept the package's own inputs, and they agree on others."""
    root = fetched(repo, folder, tmp_path)
    package = load_package(root, build_dir)
    builds = build_package(package, build_dir, submissions=[])
    assert sorted(b.language for b in builds.input_validators) == ["checktestdata", "python3"]
    for case in package.cases:
        result = validate_case(package, builds, case)
        assert result.valid, f"{case.name}: {result.message}"
    for number, (data, valid) in enumerate(DIFFERENT_CASES):
        path = tmp_path / f"{number}.in"
        path.write_text(data)
        for build in builds.input_validators:
            got = validate_input([build], path)
            assert got.valid == valid, (build.program.name, data[:40], got.message)
