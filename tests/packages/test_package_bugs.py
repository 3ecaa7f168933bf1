"""The package's own bugs, told to the setter beside the verdicts (issue 42 item 6): a
time_limit_exceeded submission that runs within the limit, an accepted one that fails a test,
a wrong_answer one that passes every test, an empty or missing .ans, an input validator that
accepts everything. Real packages in tmp_path, judged by `pipeline run` (in this process and
as a real `pipeline` process for one problem and for a contest), the rows kept in the
`package_bugs` table."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import polars as pl
from packagekit import judged_by_run, problems_of, tiny_kattis, write_tree

from pipeline.packages.bugs import broken_inputs
from pipeline.tables.results import read_package_bugs

REPO = Path(__file__).resolve().parents[2]

ACCEPT_ALL = "import sys\nsys.exit(42)\n"
# a + b, two integers on one line and nothing else
STRICT = ("import sys\ndata = sys.stdin.read()\nlines = data.split('\\n')\n"
          "ok = len(lines) == 2 and lines[1] == '' and len(lines[0].split(' ')) == 2 and "
          "all(w.lstrip('-').isdigit() for w in lines[0].split(' '))\n"
          "sys.exit(42 if ok else 43)\n")
SUM = "print(sum(map(int, input().split())))\n"


def buggy(folder: Path) -> Path:
    """The tiny a + b package with one bug of each kind."""
    return tiny_kattis(folder, {
        "input_format_validators/accept.py": ACCEPT_ALL,
        # an answer file left empty: the accepted submission fails that test
        "data/secret/03.in": "4 4\n", "data/secret/03.ans": "",
        "submissions/time_limit_exceeded/fast.py": SUM,
        # right wherever the answer files are (it prints nothing for 4 4, as 03.ans says)
        "submissions/wrong_answer/right.py": "a, b = map(int, input().split())\n"
                                             "print(a + b if a != 4 else '')\n",
    })


def pipeline(data: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline", "--data-dir", str(data), *args],
                          cwd=REPO, capture_output=True, text=True, timeout=900)


def test_each_bug_of_the_package_is_one_line_of_the_run_and_a_row_of_its_table(tmp_path):
    data = tmp_path / "data"
    judged = judged_by_run(buggy(tmp_path / "buggy"), data)
    lines = {bug.kind: bug.line() for bug in judged.expectations.bugs}
    assert set(lines) == {"tle-within-limit", "accepted-fails", "wrong-passes", "empty-answer",
                          "validator-accepts-all"}, judged.table()
    limit = judged.time_limit.time_s
    assert lines["tle-within-limit"].startswith(
        "time_limit_exceeded/fast.py: a time_limit_exceeded submission runs within the time "
        "limit: its slowest case ")
    assert f"under the {limit:g} s limit" in lines["tle-within-limit"]
    assert lines["accepted-fails"] == ("accepted/sum.py: an accepted submission fails test "
                                       "secret/03 (WA)")
    assert lines["wrong-passes"].startswith(
        "wrong_answer/right.py: a wrong_answer submission passes every test (4 cases): no test "
        "catches it (`pipeline harden --problem buggy --solver wrong_answer/right.py`")
    assert lines["empty-answer"] == "data/secret/03.ans: the answer file is empty"
    assert lines["validator-accepts-all"] == (
        "input validator(s) accept.py: accept every invalid input "
        "derived from test sample/1: the empty file, the case with an extra token after it, "
        "the case without its last token; they check nothing of the input's shape")
    table = judged.table()
    assert "  package bugs (5):" in table
    for line in lines.values():
        assert f"    {line}" in table
    stored = read_package_bugs(data).filter(pl.col("run_id") == judged.run_id)
    assert sorted(zip(stored["kind"], stored["problem"])) == sorted(
        (kind, "buggy") for kind in lines)


def test_the_validators_bugs_are_looked_for_beside_the_run_and_taken_once(tmp_path):
    """Whether the input validators accept everything needs nothing the run finds: the look
    starts beside the run's jobs (with the validators held to the invalid data), and holding
    the expectations takes it. A look taken is gone: the run took its own, and a later one
    starts its own again."""
    from pipeline.packages import bugs
    from pipeline.packages.invalid import start_validator_check
    from pipeline.problems import get_problem

    data = tmp_path / "data"
    judged = judged_by_run(buggy(tmp_path / "buggy"), data)
    assert "validator-accepts-all" in {bug.kind for bug in judged.expectations.bugs}
    with problems_of(data):
        problem = get_problem("buggy")
        assert problem.folder not in bugs._started  # the run took the look it started
        start_validator_check(problem.folder, problem.load(), problem.builds(),
                              problem.build_cache)
        assert problem.folder in bugs._started
        found = bugs.validator_bugs_found(problem.folder, problem.load(), problem.builds())
        assert problem.folder not in bugs._started
        assert [bug.line() for bug in found()] == [
            line for line in (bug.line() for bug in judged.expectations.bugs)
            if line.startswith("input validator(s)")]


def test_a_sound_package_shows_no_bug_and_a_strict_validator_is_not_one(tmp_path):
    root = tiny_kattis(tmp_path / "sound", {"input_format_validators/strict.py": STRICT})
    judged = judged_by_run(root, tmp_path / "data")
    assert judged.all_agree, judged.table()
    assert judged.expectations.bugs == ()
    assert "package bugs" not in judged.table()


def test_broken_inputs_are_invalid_by_construction():
    assert broken_inputs("1 2\n") == [("the empty file", ""),
                                      ("the case with an extra token after it", "1 2\n0\n"),
                                      ("the case without its last token", "1\n")]
    assert broken_inputs("7")[1:] == [("the case with an extra token after it", "7\n0\n"),
                                      ("the case without its last token", "")]


def test_a_missing_answer_is_a_bug_and_the_contest_summary_lists_bugs_per_problem(tmp_path):
    contest, data = tmp_path / "cup", tmp_path / "data"
    buggy(contest / "buggy")
    tiny_kattis(contest / "lost", {"input_format_validators/strict.py": STRICT,
                                   "data/secret/09.in": "1 1\n"})  # no 09.ans
    write_tree(contest, {"problems.yaml": "- id: buggy\n  label: A\n- id: lost\n  label: B\n"})
    ingested = pipeline(data, "ingest", str(contest))  # exits 1: the reject
    assert "contest cup (cup): 2 of 2 problems registered" in ingested.stdout, ingested.stdout
    one = pipeline(data, "run", "--problem", "lost")
    shown = [line.strip() for line in one.stdout.splitlines()]
    at = shown.index("package bugs (1):")
    assert shown[at + 1] == ("data/secret/09.in: test case secret/09 has no answer file 09.ans: "
                             "it is not judged [rule missing-answer]"), one.stdout
    done = pipeline(data, "run", "--contest", "cup")
    summary = done.stdout[done.stdout.index("contest cup ("):]
    section = summary[summary.index("  package bugs (6):\n"):].splitlines()[1:7]
    assert [line.split(":")[0].strip() for line in section] == ["A buggy"] * 5 + ["B lost"]
    assert "    B lost: data/secret/09.in: test case secret/09 has no answer" in summary
    assert summary.rstrip().splitlines()[-1].endswith("; 6 package bug(s)")
    # --fail-fast stops the accepted submission at its failure: still told
    fast = pipeline(data, "run", "--problem", "buggy", "--fail-fast")
    assert "accepted/sum.py: an accepted submission fails test secret/03 (WA)" in fast.stdout
    report = pipeline(data, "report", "--out", str(tmp_path / "r.html"))
    assert report.returncode == 0, report.stderr
    html = (tmp_path / "r.html").read_text()
    shown = html[html.index('<ul class="package-bugs" data-problem="lost">'):]
    assert shown.startswith('<ul class="package-bugs" data-problem="lost"><li><b>'
                            "data/secret/09.in</b>: test case secret/09 has no answer file "
                            "09.ans: it is not judged [rule missing-answer]</li></ul>")
    assert html.count('<ul class="package-bugs"') == 2


def test_many_files_of_one_fault_are_one_line_and_no_input_validator_is_a_bug(tmp_path):
    from pipeline.packages import load_package
    from pipeline.packages.bugs import answer_bugs, validator_bugs
    from pipeline.packages.judge import PackageBuilds

    root = tiny_kattis(tmp_path / "p", {f"data/secret/x{i}.ans": f"{i}\n" for i in range(5)}
                       | {"data/secret/y.ans": "1\n"})
    package = load_package(root, tmp_path / "build")
    [line] = [bug.line() for bug in answer_bugs(package)]
    assert line == ("6 files: answer files have no input file: they are not judged: "
                    "data/secret/x0.ans, data/secret/x1.ans, data/secret/x2.ans and 3 more "
                    "[rule missing-input]")
    assert [bug.line() for bug in validator_bugs(package, PackageBuilds())] == [
        "input validators: the package has none: nothing checks its inputs (bt validate: No "
        "input validators found)"]
    few = load_package(tiny_kattis(tmp_path / "q", {"data/secret/y.ans": "1\n"}),
                       tmp_path / "build")
    assert [(b.kind, b.subject) for b in answer_bugs(few)] == [("missing-input",
                                                                "data/secret/y.ans")]


def test_a_submission_that_does_not_compile_is_a_bug_naming_the_compiler_s_error(tmp_path):
    root = tiny_kattis(tmp_path / "p", {"input_format_validators/strict.py": STRICT,
                                        "submissions/accepted/broken.c":
                                            "int main(void) { return undeclared; }\n"})
    judged = judged_by_run(root, tmp_path / "data")
    [bug] = judged.expectations.bugs
    assert bug.kind == "compile-error" and bug.subject == "accepted/broken.c"
    assert bug.message.startswith("the submission does not compile: broken.c:1:")
    assert "error: 'undeclared' undeclared" in bug.message


SPIN = ("import time\nstart = time.process_time()\nwhile time.process_time() - start < 1.25:\n"
        "    pass\nprint(sum(map(int, input().split())))\n")


def test_an_accepted_submission_within_the_safety_margin_only_is_told_so(tmp_path):
    """1.25 s of CPU time a case, at a time limit of 1 s whose safety margin reaches 1.5 s
    (time_limit_to_tle): it fails at the limit and passes within the margin."""
    root = tiny_kattis(tmp_path / "p", {
        "problem.yaml": "problem_format_version: 2023-07\nname: Spin\nlimits:\n  time_limit: 1\n",
        "input_validators/strict.py": STRICT, "submissions/accepted/spin.py": SPIN})
    judged = judged_by_run(root, tmp_path / "data", solvers=("accepted/spin.py",))
    [bug] = judged.expectations.bugs
    assert bug.line() == ("accepted/spin.py: an accepted submission fails test sample/1 (TLE) "
                          "(and 2 more); it passes them within the safety margin (1.5 s)")


def test_a_submission_whose_expected_results_line_contradicts_its_folder_is_a_bug(tmp_path):
    """`wrong_answer/sure.py` whose `@EXPECTED_RESULTS@` line says CORRECT, and
    `accepted/unsure.py` whose line says WRONG-ANSWER (the line decides, as DOMjudge and
    BAPCtools read it): each told as a bug of the package; a line that names its folder's
    verdict among others is none."""
    from pipeline.packages import load_package
    from pipeline.packages.bugs import find_bugs
    from pipeline.packages.expectations import TimeLimit

    root = tiny_kattis(tmp_path / "p", {
        "submissions/wrong_answer/sure.py": "# @EXPECTED_RESULTS@: CORRECT\n" + SUM,
        "submissions/accepted/unsure.py": "# @EXPECTED_RESULTS@: WRONG-ANSWER\n" + SUM,
        "submissions/time_limit_exceeded/either.py": (
            "# @EXPECTED_RESULTS@: TIMELIMIT, WRONG-ANSWER\nprint(0)\n")})
    package = load_package(root, tmp_path / "build")
    limit = TimeLimit(time_s=1.0, low_s=0.5, high_s=2.0, source="given", how="given")
    bugs = find_bugs(package, {}, limit, "p")
    assert [(b.kind, b.line()) for b in bugs if b.kind == "expectation-conflict"] == [(
        "expectation-conflict", "accepted/unsure.py: its folder accepted/ expects AC but its "
        "line `@EXPECTED_RESULTS@: WRONG-ANSWER` does not: one of them is wrong (the line "
        "decides what it is held to)"), (
        "expectation-conflict", "wrong_answer/sure.py: its folder wrong_answer/ expects WA but "
        "its line `@EXPECTED_RESULTS@: CORRECT` does not: one of them is wrong (the line "
        "decides what it is held to)")]
