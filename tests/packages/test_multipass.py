"""Multi-pass problems (2025-09 `type: multi-pass`): the output validator writes `nextpass.in`
into its feedback folder and the submission runs again with it as input, up to
`limits.validation_passes` (2 by default), interactive or not. Real submissions, real
validators; BAPCtools' own multi-pass packages when fetched.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest
from packagekit import fetched, judged_by_run, table

from pipeline.packages import build_package, judge_case, load_package
from pipeline.packages.judge import default_limits

# A validator that asks for `passes` passes in all, keeping count in its feedback folder, and
# checks that each pass's input is the nextpass.in it wrote and the output echoes it.
COUNTING_VALIDATOR = '''import sys
from pathlib import Path

passes = {passes}
feedback = Path(sys.argv[3])
state = feedback / "count.txt"
count = int(state.read_text()) + 1 if state.exists() else 1
state.write_text(str(count))
given = Path(sys.argv[1]).read_text()
if count > 1 and given != f"pass {{count}}\\n":
    (feedback / "judgemessage.txt").write_text(f"pass {{count}} got input {{given!r}}")
    sys.exit(43)
if {next_first}:  # asks for another pass before it has even read the output
    (feedback / "nextpass.in").write_text(f"pass {{count + 1}}\\n")
if sys.stdin.read() != given:
    (feedback / "judgemessage.txt").write_text("the output does not echo the input")
    sys.exit(43)
if count < passes:
    (feedback / "nextpass.in").write_text(f"pass {{count + 1}}\\n")
(feedback / "judgemessage.txt").write_text(f"{{count}} passes")
sys.exit(42)
'''
ECHO = "import sys\nsys.stdout.write(sys.stdin.readline())\n"  # one line: talks interactively too


def variant(copy_fixture, validator: str, *, validation_passes: int | None = None,
            interactive: bool = False) -> Path:
    """The remember fixture with another output validator (and an echoing submission)."""
    root = copy_fixture("remember")
    (root / "output_validator" / "validate.py").write_text(validator)
    (root / "submissions" / "accepted" / "echo.py").write_text(ECHO)
    yaml = (root / "problem.yaml").read_text()
    if interactive:
        yaml = yaml.replace("type: multi-pass", "type: [interactive, multi-pass]")
    if validation_passes is not None:
        yaml = yaml.replace("  memory: 512", f"  memory: 512\n  validation_passes: "
                            f"{validation_passes}")
    (root / "problem.yaml").write_text(yaml)
    return root


def judged(root: Path, build_dir: Path, tmp_path: Path, submission: str = "accepted/echo.py",
           case: str = "secret/01-one"):
    package = load_package(root, build_dir)
    builds = build_package(package, build_dir, submissions=[submission])
    return judge_case(package, builds.submissions[submission], package.case(case),
                      default_limits(package, 2.0, 5.0), tmp_path / "work", builds)


def test_a_submission_right_in_pass_1_and_wrong_in_pass_2_is_wrong_answer(report):
    results = report("remember").results
    for case, result in results["wrong_answer/forgets.py"].items():
        assert result.verdict == "WA" and result.message.startswith("pass 2: expected "), case
    for case, result in results["wrong_answer/digits.py"].items():  # refused in pass 1
        assert result.verdict == "WA" and result.message.startswith("expected one word"), case
    assert {r.verdict for r in results["accepted/letters.py"].values()} == {"AC"}
    assert {r.verdict for r in results["accepted/base26.c"].values()} == {"AC"}
    crashed = results["run_time_error/recall_crashes.py"]["secret/03-max"]
    assert crashed.verdict == "RE" and crashed.message.startswith("pass 2: exit code 1")
    slow = results["time_limit_exceeded/recall_by_search.py"]
    assert slow["secret/01-one"].verdict == "AC" and slow["secret/03-max"].verdict == "TLE"
    assert slow["secret/03-max"].message.startswith("pass 2: ")


@pytest.mark.parametrize("interactive", [False, True])
def test_the_feedback_folder_lasts_over_the_passes_up_to_validation_passes(copy_fixture,
                                                                           build_dir, tmp_path,
                                                                           interactive):
    validator = COUNTING_VALIDATOR.format(passes=3, next_first=False)
    if interactive:  # it sends the pass's input to the submission and reads the echo back
        validator = validator.replace("if sys.stdin.read() != given:",
                                      "print(given, end='', flush=True)\n"
                                      "if sys.stdin.readline() != given:")
    root = variant(copy_fixture, validator, validation_passes=3, interactive=interactive)
    result = judged(root, build_dir, tmp_path)
    assert (result.verdict, result.message) == ("AC", "pass 3: 3 passes")


def test_a_case_counts_every_pass_and_what_judged_it_in_its_programs_time(copy_fixture,
                                                                          tmp_path):
    """The time a case is judged by is its slowest pass's; what it cost is every program it
    ran: each pass of the submission and each run of the validator (`programs_cpu_ms`), over
    a wall time from the first start to the last end (`elapsed_ms`), both stored with its
    result by a real `pipeline run`. A validator that spends 0.2 s of CPU on each of three
    passes puts at least 0.6 s in it."""
    busy = ("import time\nstart = time.process_time()\n"
            "while time.process_time() - start < 0.2:\n    pass\n")
    root = variant(copy_fixture, busy + COUNTING_VALIDATOR.format(passes=3, next_first=False),
                   validation_passes=3)
    judged = judged_by_run(root, tmp_path / "data", ("accepted/echo.py",))
    results = judged.results["accepted/echo.py"]
    assert results and {r.verdict for r in results.values()} == {"AC"}
    rows = table(tmp_path / "data", "results").filter(pl.col("solver") == "accepted/echo.py")
    assert rows.height == len(results)
    for row in rows.iter_rows(named=True):
        assert row["programs_cpu_ms"] >= row["cpu_ms"] + 3 * 200, row
        # one program after another, each single-threaded: no less wall time than CPU time
        assert row["elapsed_ms"] >= row["programs_cpu_ms"] and \
            row["elapsed_ms"] >= row["wall_ms"], row


def test_asking_for_more_passes_than_validation_passes_is_a_judge_error(copy_fixture,
                                                                        build_dir, tmp_path):
    root = variant(copy_fixture, COUNTING_VALIDATOR.format(passes=3, next_first=False))
    result = judged(root, build_dir, tmp_path)  # validation_passes: 2, the default
    assert result.verdict == "JE"
    assert result.message == ("the output validator wrote nextpass.in after pass 2, but "
                              "limits.validation_passes is 2: no verdict within 2 passes")


def test_a_rejection_that_writes_nextpass_in_is_a_judge_error(copy_fixture, build_dir,
                                                              tmp_path):
    root = variant(copy_fixture, COUNTING_VALIDATOR.format(passes=2, next_first=True))
    (root / "submissions" / "accepted" / "silent.py").write_text("print('no')\n")
    result = judged(root, build_dir, tmp_path, "accepted/silent.py")
    assert result.verdict == "JE"
    assert result.message == "pass 1: the output validator rejected the output but wrote " \
        "nextpass.in"


@pytest.mark.parametrize("name", ["multipass", "interactivemultipass"])
def test_bapctools_multi_pass_packages_agree(tmp_path, name):
    """BAPCtools' test/problems/{multipass,interactivemultipass}: every submission gets what
    its folder expects (before, negative_second_pass.py and rand.py got a false AC). Their
    secret data is made by generators.yaml and is empty; the samples stand in for it here."""
    root = fetched("RagnarGrootKoerkamp/BAPCtools", f"test/problems/{name}", tmp_path)
    secret = root / "data" / "secret"
    secret.mkdir(parents=True, exist_ok=True)
    for sample in (root / "data" / "sample").iterdir():
        if sample.suffix in (".in", ".ans"):
            shutil.copy(sample, secret / sample.name)
    judged_package = judged_by_run(root, tmp_path / "data")
    assert judged_package.all_agree, judged_package.table()
    wrong = judged_package.results["wrong_answer/negative_second_pass.py"]
    assert {r.verdict for r in wrong.values()} == {"WA"}
    assert all(r.message.startswith("pass 2: ") for r in wrong.values())
