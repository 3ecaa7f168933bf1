"""A contest as one unit: `pipeline ingest CONTEST_DIR` registers every problem of a folder of
packages (BAPCtools' layout with contest.yaml / problems.yaml, or a plain folder of packages)
and records the contest; `pipeline run --contest NAME` judges every problem and prints one
summary; a problem that fails to register never stops the others. Real `pipeline` processes on
contests built from the fixture packages, and on a real contest fetched here."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from packagekit import FIXTURES, fetched_present, judged_by_run, tiny_kattis, write_tree

from pipeline.packages import load_package
from pipeline.verdicts import Verdict

REPO = Path(__file__).resolve().parents[2]


def pipeline(data: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline", "--data-dir", str(data), *args],
                          cwd=REPO, capture_output=True, text=True, timeout=900)


def rows(stdout: str, contest: str) -> list[list[str]]:
    """The submission rows of the contest summary: problem, submission, expected, got, time,
    agree."""
    summary = stdout[stdout.index(f"contest {contest} ("):]
    found = []
    for line in summary.splitlines()[2:]:
        cells = re.split(r"\s{2,}", line.strip())
        if len(cells) == 6 and cells[4].endswith(" s"):
            found.append(cells)
    return found


MINI_PROBLEMS = """\
- id: circlearea
  label: A
  name: Circle Area
  time_limit: 1.0
- id: broken
  label: B
  name: Broken
- id: hypotenuse
  label: C
  name: Hypotenuse
- id: ghost
  label: D
"""


def mini_contest(folder: Path) -> Path:
    """circlearea (legacy, no time limit of its own: problems.yaml gives 1.0 s), a package
    whose problem.yaml is not YAML, hypotenuse, an entry without a folder, and a package the
    contest does not list."""
    for name in ("circlearea", "hypotenuse"):
        shutil.copytree(FIXTURES / name, folder / name)
    tiny_kattis(folder / "extra")  # a package problems.yaml does not list
    return write_tree(folder, {"contest.yaml": "id: mini\nname: Mini Contest\n",
                               "problems.yaml": MINI_PROBLEMS,
                               "broken/problem.yaml": "name: Broken\nlimits: [1\n",
                               "README.md": "the contest's own file\n"})


def test_a_contest_is_ingested_in_one_command_and_judged_with_one_summary(tmp_path,
                                                                         shared_builds):
    contest, data = mini_contest(tmp_path / "mini"), shared_builds(tmp_path / "data")
    ingested = pipeline(data, "ingest", str(contest))
    assert ingested.returncode == 1, ingested.stderr  # a problem was refused
    out = ingested.stdout
    assert "contest mini (Mini Contest): 2 of 3 problems registered; NOT registered: broken" \
        in out
    assert "  A circlearea: registered: 4 inputs found, 0 rejects" in out
    assert "  B broken: NOT registered: problem.yaml:3: rule yaml-syntax" in out
    assert "  C hypotenuse: registered: 5 inputs found, 0 rejects" in out
    assert "  note: problems.yaml:11: the contest has no folder ghost: the entry is skipped" in out
    assert "README.md" not in out  # the contest's own files are no test data
    assert "  note: extra: package folder(s) that problems.yaml does not list: ingested, not " \
        "part of the contest" in out and "extra: registered legacy package" in out
    recorded = json.loads((data / "contests.json").read_text())["mini"]
    assert [(p["id"], p["label"], p["registered"]) for p in recorded["problems"]] == [
        ("circlearea", "A", True), ("broken", "B", False), ("hypotenuse", "C", True)]

    listed = pipeline(data, "problems").stdout
    assert "contest mini  Mini Contest  (3 problems;" in listed
    assert re.search(r"^  A circlearea  Circle Area  \(time limit 1 s,", listed, re.M)
    assert re.search(r"^  B broken  NOT registered: problem.yaml:3", listed, re.M)
    assert re.search(r"^arc087e ", listed, re.M)  # the rest are listed as before
    assert re.search(r"^extra  Tiny Sum ", listed, re.M)

    done = pipeline(data, "run", "--contest", "mini")
    assert done.returncode == 1, done.stderr  # broken was not judged
    assert "the contest's time limit of 1 s" in done.stdout  # circlearea: problems.yaml's
    found = rows(done.stdout, "mini")
    submissions = {f"{p.parent.name}/{p.name}" for name in ("circlearea", "hypotenuse")
                   for p in (FIXTURES / name / "submissions").glob("*/*")
                   if p.parent.is_dir() and p.suffix in (".c", ".cpp", ".py")}
    assert {row[1] for row in found} == submissions
    assert {row[0] for row in found} == {"A circlearea", "C hypotenuse"}
    for problem, submission, expected, got, _, agree in found:
        assert agree.startswith("yes"), (problem, submission, expected, got)
    assert "  B broken: not registered: problem.yaml:3: rule yaml-syntax" in done.stdout
    assert done.stdout.rstrip().endswith(
        f"total: 3 problems (2 judged, 1 not judged); {len(found)} submissions: "
        f"{len(found)} agree, 0 disagree")


# problemtools' format: a .py file without a #! line is run by the highest-priority language
# whose files match it and that asks for no shebang
LANGUAGES = """\
python3b:
    priority: 902
    files: '*.py'
    shebang: '^#!.*python3'
    run: 'python3 {mainfile}'
python3:
    priority: 901
    files: '*.py3 *.py'
    run: 'pypy3 {mainfile}'
cpython3:
    priority: 801
    files: '*.py'
    run: 'python3 {mainfile}'
"""


def test_a_folder_of_packages_is_a_contest_named_after_it_and_a_disagreement_fails_it(tmp_path):
    folder, data = tmp_path / "practice", tmp_path / "data"
    tiny_kattis(folder / "sum")
    # a "wrong answer" that is right: it disagrees with its folder
    tiny_kattis(folder / "wrongsum", {
        "submissions/wrong_answer/right.py": "print(sum(map(int, input().split())))\n"})
    write_tree(folder, {"languages.yaml": LANGUAGES})
    ingested = pipeline(data, "ingest", str(folder))
    assert ingested.returncode == 0, ingested.stdout + ingested.stderr
    assert "contest practice (practice): 2 of 2 problems registered" in ingested.stdout
    installed = shutil.which("pypy3")
    pypy = (f"note: Python submissions run by pypy3 ({installed}), as the contest's "
            "languages.yaml:9 says" if installed else
            "note: the contest's languages.yaml runs Python submissions by pypy3 "
            "(languages.yaml:9); pypy3 is not installed here (`make system` installs it), so "
            "they run by CPython ")
    assert pypy in ingested.stdout
    done = pipeline(data, "run", "--contest", "practice")
    assert done.returncode == 1
    assert pypy in done.stdout
    found = rows(done.stdout, "practice")
    assert [(r[0], r[1], r[2], r[3], r[5]) for r in found] == [
        ("sum", "accepted/sum.py", "accepted", "AC", "yes"),
        ("wrongsum", "accepted/sum.py", "accepted", "AC", "yes"),
        ("wrongsum", "wrong_answer/right.py", "wrong_answer", "AC", "NO")]
    assert "3 submissions: 2 agree, 1 disagree" in done.stdout

    shutil.rmtree(folder / "wrongsum" / "submissions" / "wrong_answer")
    assert pipeline(data, "ingest", str(folder)).returncode == 0
    again = pipeline(data, "run", "--contest", "practice")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "2 submissions: 2 agree, 0 disagree" in again.stdout


def test_run_contest_refuses_an_unknown_contest_and_options_of_one_problem(tmp_path):
    data = tmp_path / "data"
    tiny_kattis(tmp_path / "c" / "sum")
    assert pipeline(data, "ingest", str(tmp_path / "c")).returncode == 0
    unknown = pipeline(data, "run", "--contest", "nope")
    assert unknown.returncode == 2
    assert "unknown contest 'nope'" in unknown.stderr and "c (c)" in unknown.stderr
    both = pipeline(data, "run", "--contest", "c", "--problem", "sum")
    assert both.returncode == 2 and "leave out --problem" in both.stderr
    neither = pipeline(data, "run")
    assert neither.returncode == 2
    assert "give --problem PROBLEM or --contest CONTEST" in neither.stderr


def test_problems_yaml_gives_the_time_limit_only_where_the_package_gives_none(tmp_path):
    contest = write_tree(tmp_path / "c", {"problems.yaml": (
        "- id: none\n  label: A\n  time_limit: 2.5\n"
        "- id: own\n  label: B\n  time_limit: 2.5\n"
        "- id: bad\n  label: C\n  time_limit: -1\n")})
    tiny_kattis(contest / "none")
    tiny_kattis(contest / "own", {".timelimit": "3\n"})
    tiny_kattis(contest / "bad")
    none, own, bad = (load_package(contest / name).limits for name in ("none", "own", "bad"))
    assert (none.time_s, none.time_source) == (2.5, "given")
    assert none.time_from == f"{contest / 'problems.yaml'}:1"
    assert (own.time_s, own.time_from) == (3.0, "")
    assert (bad.time_s, bad.time_source) == (None, "derive")
    alone = tiny_kattis(tmp_path / "alone" / "none")  # no contest around it
    assert load_package(alone).limits.time_s is None

    data = tmp_path / "data"
    done = pipeline(data, "ingest", str(contest))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "note: problems.yaml:7: time_limit of bad must be a number > 0, not '-1': left " \
        "out" in done.stdout
    # the registered copy keeps the contest's time limit, though the contest is not copied
    listed = pipeline(data, "problems").stdout
    assert re.search(r"^  A none  Tiny Sum  \(time limit 2.5 s,", listed, re.M)
    assert re.search(r"^  B own  Tiny Sum  \(time limit 3 s,", listed, re.M)
    (contest / "problems.yaml").write_text("- id: none\n  label: A\n  time_limit: 1.5\n")
    again = pipeline(data, "ingest", str(contest / "none"))
    assert "time limit: 2.5 s -> 1.5 s" in again.stdout


def test_a_real_contest_fetched_here_is_ingested_and_judged_as_one(tmp_path):
    # Two small problems of a real BAPCtools contest (legacy packages), with its contest.yaml
    # and problems.yaml: horizoncomplexe has no .timelimit, so problems.yaml's 1.0 s is its.
    contest = fetched_present("karwa-org/karwa2023", [
        "contest.yaml", "problems.yaml", "horizoncomplexe", "impossible"], tmp_path / "karwa")
    data = tmp_path / "data"
    ingested = pipeline(data, "ingest", str(contest))
    out = ingested.stdout
    assert "contest karwa2023 (KARWa 2023): 2 of 2 problems registered" in out, \
        out + ingested.stderr
    assert out.count("the contest has no folder") == 13  # the problems not extracted
    listed = pipeline(data, "problems").stdout
    assert re.search(r"^  H horizoncomplexe  .*\(time limit 1 s,", listed, re.M)
    done = pipeline(data, "run", "--contest", "karwa2023")
    found = rows(done.stdout, "karwa2023")
    labels = {"horizoncomplexe": "H", "impossible": "I"}
    submissions = {(f"{labels[p.parts[-4]]} {p.parts[-4]}", f"{p.parent.name}/{p.name}")
                   for p in contest.glob("*/submissions/*/*")
                   if p.is_file() and not p.name.startswith(".")}
    assert {(row[0], row[1]) for row in found} == submissions
    agree = sum(row[5].startswith("yes") for row in found)
    assert f"{len(found)} submissions: {agree} agree" in done.stdout
    assert done.returncode == (0 if agree == len(found) else 1), done.stdout + done.stderr


def test_a_problem_judged_without_some_of_its_cases_says_so_in_the_contest_summary(tmp_path):
    # a checkout that lacks an .in (its .ans is there): the rest is judged, and said to be;
    # a submission that agrees on those only is no agreement (partial), so the run exits 1
    folder, data = tmp_path / "gaps", tmp_path / "data"
    tiny_kattis(folder / "sum", {"data/secret/03.ans": "7\n"})
    ingested = pipeline(data, "ingest", str(folder))
    assert ingested.returncode == 1 and "[missing-input]" in ingested.stdout
    done = pipeline(data, "run", "--contest", "gaps")
    assert done.returncode == 1, done.stdout + done.stderr
    [row] = rows(done.stdout, "gaps")
    assert row[1] == "accepted/sum.py" and row[5] == "partial"
    assert "1 submissions: 0 agree, 0 disagree, 1 partial (not judged on every case)" \
        in done.stdout
    assert "  sum: 1 test case(s) the package holds were not judged (rule missing-input; " \
        "see its run above)" in done.stdout



def test_the_contest_totals_count_each_submission_by_its_agreement_not_its_row_text():
    # a partial agreement flagged sensitive to the time limit reads "partial (sensitive ...)"
    # in its row: it is still partial in the totals, not "neither"
    from pipeline.commands.contest import ProblemOutcome, _rows, format_contest
    from pipeline.errors import PackageError
    from pipeline.packages.contest import Contest
    from pipeline.packages.expectations import Agreement, TimeLimit
    from pipeline.packages.submissions import Expectations
    from pipeline.run.runner import RunSummary

    sensitive = "sensitive to time limit: limit of 0.5 s -> TLE"
    held = Expectations(TimeLimit(1.0, 0.5, 2.0, "given", "given"), (
        Agreement("accepted/a.py", "accepted", "AC", "partial", sensitive=sensitive),
        Agreement("accepted/b.py", "accepted", "AC", "partial"),
        Agreement("wrong_answer/d.py", "wrong_answer", "AC", "disagree")),
        unjudged=(PackageError("data/secret/03.in", "missing-input", "no input"),))
    summary = RunSummary("run", "finished", 3, expectations=held,
                         slowest={"accepted/a.py": (480.0, 500.0, "c")})
    outcome = ProblemOutcome("sum", "A", summary=summary, rows=_rows(summary))
    text = format_contest(Contest("gaps", "Gaps", Path("gaps"), ()), [outcome])
    assert "(sensitive to time limit)" in text
    assert "3 submissions: 0 agree, 1 disagree, 2 partial (not judged on every case)" in text
    assert "neither" not in text


PYPY_ONLY = ("import platform\n"
             "a, b = map(int, input().split())\n"
             "print(a + b + (0 if platform.python_implementation() == 'PyPy' else 1))\n")


@pytest.mark.skipif(not shutil.which("pypy3"), reason="pypy3 is not installed (`make system`)")
def test_a_contest_whose_languages_yaml_says_pypy_runs_python_submissions_by_pypy(tmp_path):
    """As `bt run` does: a Python submission of a contest whose languages.yaml runs Python by
    pypy3 runs by pypy3 (the submission is right only under PyPy), also from the registered
    copy, which its contest folder is not beside."""
    folder = tmp_path / "pypycontest"
    write_tree(folder, {"languages.yaml": LANGUAGES})
    root = tiny_kattis(folder / "sum", {"submissions/accepted/pypy.py": PYPY_ONLY})
    judged = judged_by_run(root, tmp_path / "data")
    assert {case.verdict for case in judged.results["accepted/pypy.py"].values()} == {Verdict.AC}
    assert f"Python submissions run by pypy3 ({shutil.which('pypy3')}), as the contest's " \
        "languages.yaml:9 says" in judged.package.notes


def test_without_the_pypy_languages_yaml_names_python_runs_by_cpython_and_says_so(tmp_path):
    """A languages.yaml naming a PyPy that is not installed: the submission runs by this
    interpreter (CPython), and one line says so and how to install it."""
    folder = tmp_path / "nopypy"
    write_tree(folder, {"languages.yaml": LANGUAGES.replace("pypy3 {", "pypy3-absent {")})
    root = tiny_kattis(folder / "sum", {"submissions/wrong_answer/pypy.py": PYPY_ONLY})
    package = load_package(root, tmp_path / "build")
    [note] = [n for n in package.notes if "languages.yaml" in n]
    assert note.startswith("the contest's languages.yaml runs Python submissions by "
                           "pypy3-absent (languages.yaml:9); pypy3-absent is not installed here "
                           "(`make system` installs it), so they run by CPython ")
    assert {s.interpreter for s in package.submissions} == {None}
    judged = judged_by_run(root, tmp_path / "data")
    assert {case.verdict for case in judged.results["wrong_answer/pypy.py"].values()} == {
        Verdict.WA}


@pytest.mark.skipif(not shutil.which("pypy3"), reason="pypy3 is not installed (`make system`)")
def test_a_languages_yaml_naming_pypy_2_for_a_py_runs_python_3_submissions_by_pypy3(tmp_path):
    """KARWA 2025's languages.yaml runs a `.py` without a #! line by `pypy` (PyPy 2) although
    its submissions are Python 3 code: they run by pypy3, and the note says both."""
    folder = tmp_path / "pypy2"
    write_tree(folder, {"languages.yaml": LANGUAGES.replace("pypy3 {", "pypy {")})
    root = tiny_kattis(folder / "sum", {"submissions/accepted/pypy.py": PYPY_ONLY})
    package = load_package(root, tmp_path / "build")
    found = shutil.which("pypy3")
    assert f"Python submissions run by pypy3 ({found}), the contest's languages.yaml:9 runs a " \
        ".py by pypy" in package.notes
    assert {s.interpreter for s in package.submissions} == {found}
    judged = judged_by_run(root, tmp_path / "data")
    assert {case.verdict for case in judged.results["accepted/pypy.py"].values()} == {Verdict.AC}


# The first problem's accepted submission answers its case "2 3" only once the second
# problem's submission has run (it waits for the mark that one leaves, at most WAIT_S): one
# after another, the first waits in vain and answers wrong; on one queue, the second runs on
# another worker (or, on one core, on the worker the pool adds while the first sleeps).
WAIT_S = 20
WAITS = """import os, sys, time
line = sys.stdin.readline()
mark = {mark!r}
if line.split() == ["2", "3"]:
    end = time.monotonic() + {wait}
    while not os.path.exists(mark) and time.monotonic() < end:
        time.sleep(0.02)
a, b = map(int, line.split())
print(a + b if line.split() != ["2", "3"] or os.path.exists(mark) else 0)
"""
MARKS = """import sys
open({mark!r}, "a").close()
print(sum(map(int, sys.stdin.readline().split())))
"""


def test_a_contest_runs_its_problems_on_one_queue_at_once(tmp_path):
    mark = str(tmp_path / "mark")
    contest = write_tree(tmp_path / "pair", {"problems.yaml": (
        "- id: waits\n  label: A\n  time_limit: 10\n"
        "- id: marks\n  label: B\n  time_limit: 1\n")})
    tiny_kattis(contest / "waits", {
        "submissions/accepted/sum.py": WAITS.format(mark=mark, wait=WAIT_S)})
    tiny_kattis(contest / "marks", {"submissions/accepted/sum.py": MARKS.format(mark=mark)})
    data = tmp_path / "data"
    assert pipeline(data, "ingest", str(contest)).returncode == 0
    done = pipeline(data, "run", "--contest", "pair", "--sandbox", "off")  # (it writes /tmp)
    assert done.returncode == 0, done.stdout + done.stderr
    found = {(row[0], row[1]): row[5] for row in rows(done.stdout, "pair")}
    assert found == {("A waits", "accepted/sum.py"): "yes", ("B marks", "accepted/sum.py"): "yes"}
    # each problem's report, in the contest's order, after its header
    assert done.stdout.index("== A waits") < done.stdout.index("== B marks")


# The first case it runs leaves its mark and sleeps; once the mark is there, it adds. The mark
# is made at once if not there (two cases started together: one sleeps, not both).
STARTS_AND_SLEEPS = """import os, sys, time
try:
    os.close(os.open(os.path.join({marks!r}, {name!r}), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    time.sleep(120)
except FileExistsError:
    pass
print(sum(map(int, sys.stdin.readline().split())))
"""


def test_ctrl_c_stops_every_problem_of_a_contest_under_way_each_to_be_resumed(tmp_path):
    import signal
    import time

    import polars as pl

    marks = tmp_path / "marks"
    marks.mkdir()
    # a limit far above the test's waits: each sleeping run is still under way at Ctrl-C
    contest = write_tree(tmp_path / "both", {"problems.yaml": (
        "- id: one\n  label: A\n  time_limit: 100\n"
        "- id: two\n  label: B\n  time_limit: 100\n")})
    for name in ("one", "two"):
        tiny_kattis(contest / name, {"submissions/accepted/sum.py":
                                     STARTS_AND_SLEEPS.format(marks=str(marks), name=name)})
    data = tmp_path / "data"
    assert pipeline(data, "ingest", str(contest)).returncode == 0
    started = subprocess.Popen([sys.executable, "-m", "pipeline", "--data-dir", str(data), "run",
                                "--contest", "both", "--sandbox", "off"], cwd=REPO,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # Ctrl-C once a submission of each problem is running (each left its mark): both at once
    deadline = time.monotonic() + 120
    while {p.name for p in marks.iterdir()} != {"one", "two"}:
        assert started.poll() is None and time.monotonic() < deadline, started.communicate()
        time.sleep(0.05)
    started.send_signal(signal.SIGINT)
    out, err = started.communicate(timeout=60)
    assert started.returncode == 130, out + err
    runs = pl.read_parquet(data / "tables" / "runs" / "*.parquet")
    assert sorted(zip(runs["problem"], runs["status"])) == [("one", "interrupted"),
                                                           ("two", "interrupted")], out + err
    assert out.count("to finish it: ") == 2, out
    # an interrupted problem is counted as such, not as judged
    assert "total: 2 problems (0 judged, 2 interrupted, 0 not judged)" in out, out
    for run_id in runs["run_id"]:
        assert f"--resume {run_id}" in out, out
    resumed = pipeline(data, "run", "--problem", "one", "--sandbox", "off", "--resume",
                       runs.filter(pl.col("problem") == "one")["run_id"][0])
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert re.search(r"accepted/sum\.py\s+accepted\s+AC\s+yes", resumed.stdout), resumed.stdout


def test_a_contest_on_a_dask_cluster_runs_its_problems_at_once_with_the_local_pools_verdicts(
        tmp_path, shared_builds):
    """`--executor dask` (a local two-worker cluster, started for the contest): waits answers
    right only if marks runs while it waits (one problem after another it cannot), and every
    submission gets the verdict the local pool gives it."""
    mark = str(tmp_path / "mark")
    contest = write_tree(tmp_path / "trio", {"problems.yaml": (
        "- id: waits\n  label: A\n  time_limit: 10\n"
        "- id: marks\n  label: B\n  time_limit: 1\n"
        "- id: hypotenuse\n  label: C\n")})
    tiny_kattis(contest / "waits", {
        "submissions/accepted/sum.py": WAITS.format(mark=mark, wait=WAIT_S)})
    tiny_kattis(contest / "marks", {"submissions/accepted/sum.py": MARKS.format(mark=mark)})
    shutil.copytree(FIXTURES / "hypotenuse", contest / "hypotenuse")
    judged = {}
    for executor in ("dask", "local"):
        data = shared_builds(tmp_path / f"data-{executor}")
        Path(mark).unlink(missing_ok=True)
        assert pipeline(data, "ingest", str(contest)).returncode == 0
        done = pipeline(data, "run", "--contest", "trio", "--sandbox", "off",  # (writes /tmp)
                        "--executor", executor, "--jobs", "2")
        assert done.returncode == 0, done.stdout + done.stderr
        judged[executor] = {(row[0], row[1]): (row[2], row[3], row[5])
                            for row in rows(done.stdout, "trio")}
    assert judged["dask"][("A waits", "accepted/sum.py")] == ("accepted", "AC", "yes")
    assert judged["dask"][("B marks", "accepted/sum.py")] == ("accepted", "AC", "yes")
    assert {problem for problem, _ in judged["dask"]} == {"A waits", "B marks", "C hypotenuse"}
    assert judged["dask"] == judged["local"]
