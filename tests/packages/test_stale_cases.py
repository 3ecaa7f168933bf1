"""A package ingested again is the authority on its cases: a run judges exactly the cases the
package has now (a test removed is gone, a corrected `.ans` is the answer, another package of
the same folder name replaces the first, saying so), and `--resume` finishes exactly the run it
resumes (its own cases with their own answers) or refuses, naming why, when they are gone.
Real `pipeline` processes on tiny Kattis packages written here (issue 41, faults 20-23).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
from packagekit import tiny_kattis, write_tree

from pipeline.problems.identity import case_id_of

REPO = Path(__file__).resolve().parents[2]


def pipeline(data: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline", "--data-dir", str(data), *args],
                          cwd=REPO, capture_output=True, text=True, timeout=600)


def ingested(data: Path, package: Path) -> str:
    done = pipeline(data, "ingest", str(package))
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def results(data: Path) -> pl.DataFrame:
    return pl.read_parquet(data / "tables" / "results" / "*.parquet")


def secret_tests(inputs: dict[str, str]) -> dict[str, str]:
    """Package files `data/secret/NAME.in` and `.ans` (a + b) for `{NAME: "a b"}`."""
    files = {}
    for name, pair in inputs.items():
        files[f"data/secret/{name}.in"] = f"{pair}\n"
        files[f"data/secret/{name}.ans"] = f"{sum(map(int, pair.split()))}\n"
    return files


FOUR = secret_tests({"01": "2 3", "02": "10 20", "03": "4 4", "04": "7 1"})


def judged_inputs(data: Path) -> set[str]:
    """The case ids the (only) run judged."""
    return set(results(data)["case_id"])


def ids(*texts: str) -> set[str]:
    return {case_id_of(f"{text}\n") for text in texts}


def test_a_test_removed_from_the_package_is_no_longer_judged(tmp_path):
    """Fault 20: ingest says `test cases: 5 -> 4`; the run judges those 4, not 5."""
    package, data = tiny_kattis(tmp_path / "tiny", FOUR), tmp_path / "data"
    ingested(data, package)
    (package / "data" / "secret" / "04.in").unlink()
    (package / "data" / "secret" / "04.ans").unlink()
    out = ingested(data, package)
    assert "test cases: 5 -> 4" in out
    assert "1 removed (no longer in its package)" in out
    done = pipeline(data, "run", "--problem", "tiny")
    assert done.returncode == 0, done.stdout + done.stderr
    assert ", 4 cases, 4 results" in done.stdout.splitlines()[0]
    assert judged_inputs(data) == ids("1 2", "2 3", "10 20", "4 4")


def test_another_package_of_the_same_folder_name_replaces_the_first_and_says_so(tmp_path):
    """Fault 21: a second `tiny` from another folder replaces the registered one, with a line
    naming the folder it replaces; the run judges its 2 cases, not the union of both."""
    first = tiny_kattis(tmp_path / "contest-a" / "tiny", FOUR)
    second = write_tree(tmp_path / "contest-b" / "tiny", {
        "problem.yaml": "name: Tiny Sum again\n",
        "submissions/accepted/sum.py": "print(sum(map(int, input().split())))\n",
        **secret_tests({"x": "100 1", "y": "50 50"})})
    data = tmp_path / "data"
    ingested(data, first)
    out = ingested(data, second)
    assert f"replaces the package registered from {first.resolve()}" in out
    assert "5 removed (no longer in its package)" in out
    done = pipeline(data, "run", "--problem", "tiny")
    assert done.returncode == 0, done.stdout + done.stderr
    assert ", 2 cases, 2 results" in done.stdout.splitlines()[0]
    assert judged_inputs(data) == ids("100 1", "50 50")


def test_a_corrected_answer_is_the_one_the_run_judges_against(tmp_path):
    """Fault 22: the setter changes `02.ans`; the ingest takes it (no conflict), and the run
    judges against it: the submission that prints a + b is now wrong on that case only."""
    package, data = tiny_kattis(tmp_path / "tiny", FOUR), tmp_path / "data"
    ingested(data, package)
    (package / "data" / "secret" / "02.ans").write_text("31\n")
    out = ingested(data, package)
    assert "1 expected answers replaced by its package's" in out
    assert "conflict" not in out.replace("(0 conflicts)", "")
    done = pipeline(data, "run", "--problem", "tiny")
    assert done.returncode == 1, done.stdout + done.stderr  # it disagrees with its folder
    judged = results(data)
    wrong = judged.filter(pl.col("verdict") != "AC")["case_id"].to_list()
    assert wrong == [case_id_of("10 20\n")]
    assert judged.height == 5


def interrupted_run(data: Path) -> str:
    """A run of `tiny` stopped with Ctrl-C once some results are stored; its id."""
    process = subprocess.Popen(
        [sys.executable, "-m", "pipeline", "--data-dir", str(data), "run", "--problem",
         "tiny", "--jobs", "1"], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    stored = data / "tables" / "results"
    deadline = time.monotonic() + 120
    try:
        while not (stored.is_dir() and any(stored.glob("*.parquet"))):
            assert process.poll() is None and time.monotonic() < deadline, \
                process.communicate()
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=60) == 130
    finally:
        if process.poll() is None:
            process.kill()
    [run_id] = pl.read_parquet(data / "tables" / "runs" / "*.parquet")["run_id"].to_list()
    return run_id


SLOW = {"problem.yaml": "problem_format_version: 2025-09\ntype: pass-fail\nname: Tiny Sum\n"
                        "uuid: 0b8a6f43-5d2e-4c1a-9e7b-3f6d2a1c8e50\nlimits:\n  time_limit: 3\n",
        "submissions/accepted/sum.py": "import time\ntime.sleep(0.4)\n"
        "print(sum(map(int, input().split())))\n",
        **secret_tests({f"{i:02d}": f"{i} {i}" for i in range(12)})}


def test_a_resume_after_a_later_ingest_judges_only_the_runs_own_cases(tmp_path):
    """Fault 23: a run of 13 cases is interrupted, the package gains 3 tests and is ingested
    again; the resume finishes the 13 (its row, its summary and its results say 13), and a
    new run judges the 16."""
    package, data = tiny_kattis(tmp_path / "tiny", SLOW), tmp_path / "data"
    ingested(data, package)
    run_id = interrupted_run(data)
    kept = results(data).height
    assert 0 < kept < 13
    write_tree(package, secret_tests({"n1": "100 1", "n2": "100 2", "n3": "100 3"}))
    ingested(data, package)
    done = pipeline(data, "run", "--problem", "tiny", "--resume", run_id)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith(f"run {run_id}: finished, 13 cases, 13 results")
    own = ids("1 2", *(f"{i} {i}" for i in range(12)))
    assert judged_inputs(data) == own and results(data).height == 13
    assert pl.read_parquet(data / "tables" / "runs" / "*.parquet")["cases"].to_list() == [13]


def test_a_resume_whose_cases_are_gone_refuses_and_names_them(tmp_path):
    """Fault 23: after the interruption a test is removed and another's answer corrected, and
    the package ingested again: what the run had is no longer stored, so the resume says so
    and exits non-zero, judging nothing and leaving the run as it was."""
    package, data = tiny_kattis(tmp_path / "tiny", SLOW), tmp_path / "data"
    ingested(data, package)
    run_id = interrupted_run(data)
    before = results(data)
    (package / "data" / "secret" / "11.in").unlink()
    (package / "data" / "secret" / "11.ans").unlink()
    (package / "data" / "secret" / "10.ans").write_text("21\n")
    ingested(data, package)
    done = pipeline(data, "run", "--problem", "tiny", "--resume", run_id)
    assert done.returncode != 0, done.stdout
    message = done.stderr + done.stdout
    assert f"run {run_id} cannot be resumed" in message
    removed, corrected = case_id_of("11 11\n")[:12], case_id_of("10 10\n")[:12]
    assert f"1 of its 13 cases are no longer stored (e.g. case {removed})" in message
    assert f"1 of its cases have another expected answer now (e.g. case {corrected})" \
        in message
    assert "Traceback" not in message
    assert results(data).equals(before)
    [row] = pl.read_parquet(data / "tables" / "runs" / "*.parquet").iter_rows(named=True)
    assert row["status"] == "interrupted"


def test_cases_found_outside_the_package_stay_when_the_package_drops_them(tmp_path):
    """Only what the package gave is replaced: a case also stored from `DATA/raw` (a stress
    finding, say) keeps its row, now named by that file, when the package drops its copy;
    one stored only from there is untouched."""
    package, data = tiny_kattis(tmp_path / "tiny", FOUR), tmp_path / "data"
    ingested(data, package)
    raw = write_tree(tmp_path / "raw", {"found/x.in": "4 4\n", "found/x.out": "8\n",
                                        "found/y.in": "9 9\n", "found/y.out": "18\n"})
    done = pipeline(data, "ingest", "--problem", "tiny", str(raw))
    assert done.returncode == 0, done.stdout + done.stderr
    for name in ("03.in", "03.ans", "04.in", "04.ans"):
        (package / "data" / "secret" / name).unlink()
    assert "1 removed (no longer in its package)" in ingested(data, package)
    cases = pl.read_parquet(data / "tables" / "cases" / "tiny.parquet")
    assert set(cases["case_id"]) == ids("1 2", "2 3", "10 20", "4 4", "9 9")
    kept = cases.filter(pl.col("case_id") == case_id_of("4 4\n")).row(0, named=True)
    assert kept["sources"] == [kept["source"]] and kept["source"].endswith("found/x.in")
    assert kept["expected"] == "8\n"


def ingested_a_file_at_a_time(data: Path, *args: str) -> str:
    """`pipeline ingest ARGS` with every file read and validated as a chunk of its own and
    every record put aside as a group of its own (`ingest.CHUNK_BYTES`, `SPILL_GROUP_BYTES`)."""
    code = ("import sys\nimport pipeline.corpus.ingest as ingest\n"
            "ingest.CHUNK_BYTES = ingest.SPILL_GROUP_BYTES = 1\n"
            "from pipeline.entry import main\n"
            f"sys.argv = ['pipeline', '--data-dir', {str(data)!r}, 'ingest', *{list(args)!r}]\n"
            "main()\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_what_a_package_replaces_a_file_at_a_time_it_replaces_as_in_one(tmp_path):
    """Read a file at a time and put aside a record at a time, a package ingested again still
    drops the test it removed, takes the answer it corrected (not one that differs only in
    spaces), keeps a case also found elsewhere under that file's name, adds its new test last,
    and marks its own sources: the stored rows keep their places and inputs."""
    package, data = tiny_kattis(tmp_path / "tiny", FOUR), tmp_path / "data"
    ingested_a_file_at_a_time(data, str(package))
    raw = write_tree(tmp_path / "raw", {"found/x.in": "4 4\n", "found/x.out": "8\n"})
    ingested_a_file_at_a_time(data, "--problem", "tiny", str(raw))
    secret = package / "data" / "secret"
    for name in ("03.in", "03.ans", "04.in", "04.ans"):
        (secret / name).unlink()
    (secret / "02.ans").write_text("31\n")
    (secret / "01.ans").write_text("5 \n")
    write_tree(secret, {"05.in": "6 6\n", "05.ans": "12\n"})
    out = ingested_a_file_at_a_time(data, str(package))
    assert "1 removed (no longer in its package)" in out
    assert "1 expected answers replaced by its package's" in out
    assert "(0 conflicts)" in out
    cases = pl.read_parquet(data / "tables" / "cases" / "tiny.parquet")
    assert cases["input"].to_list() == ["1 2\n", "2 3\n", "10 20\n", "4 4\n", "6 6\n"]
    assert cases["expected"].to_list() == ["3\n", "5\n", "31\n", "8\n", "12\n"]
    by_input = {row["input"]: row for row in cases.iter_rows(named=True)}
    kept = by_input["4 4\n"]
    assert kept["sources"] == [kept["source"]] and kept["source"].endswith("found/x.in")
    assert not kept["package_sources"]
    for text, name in (("2 3\n", "01.in"), ("10 20\n", "02.in"), ("6 6\n", "05.in")):
        row = by_input[text]
        assert row["sources"] == row["package_sources"] == [row["source"]]
        assert row["source"].endswith(f"data/secret/{name}")


def test_a_package_left_with_no_test_data_leaves_no_case_of_its_own(tmp_path):
    """Every test removed from the package (it registers with a note, nothing to run): the
    cases it gave are removed with it, in the same ingest."""
    package, data = tiny_kattis(tmp_path / "tiny", FOUR), tmp_path / "data"
    ingested(data, package)
    for path in (package / "data").rglob("*.*"):
        path.unlink()
    out = ingested(data, package)
    assert "5 removed (no longer in its package)" in out
    cases = pl.read_parquet(data / "tables" / "cases" / "tiny.parquet")
    assert cases.height == 0
