"""Packages the reference tools judge are judged here too, the faulty part alone left out:
a real package, real `pipeline ingest` and `pipeline run` processes.

- an answer file without its input (`data/secret/03.ans` alone), or an input without its
  answer (`data/secret/03.in` alone, which `bt run` skips with a warning), is a reject of that
  one test case (rule `missing-input`, `missing-answer`), the other cases are stored and
  judged, and the run's summary names the case the package holds but that was not judged:
  no submission is said to agree on less than the package holds (`not judged on 1 case(s)`,
  exit status 1);
- an `@EXPECTED_RESULTS@` word neither DOMjudge nor BAPCtools reads is a reject of that one
  submission (file, line, rule `expected-results`); BAPCtools' own spellings (WRONG_ANSWER
  beside DOMjudge's WRONG-ANSWER, as its `verdicts.from_string_domjudge` reads them) are read.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import polars as pl
from packagekit import tiny_kattis

REPO = Path(__file__).resolve().parents[2]


def pipeline(data: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline", "--data-dir", str(data), *args],
                          cwd=REPO, capture_output=True, text=True, timeout=600)


def rejects(data: Path) -> dict[str, tuple[str, int | None, str]]:
    """source -> (rule, line, message) of every stored reject."""
    frame = pl.read_parquet(list((data / "tables" / "rejects").glob("*.parquet")))
    return {s: (r, line, m) for s, r, line, m in
            frame.select("source", "rule", "line", "message").iter_rows()}


def stored(data: Path, problem: str) -> list[str]:
    path = data / "tables" / "cases" / f"{problem}.parquet"
    return sorted(pl.read_parquet(path)["source"].to_list())


def test_an_answer_without_its_input_and_an_input_without_its_answer_leave_out_those_cases(
        tmp_path):
    """Each is a reject of its own case, the other cases are stored and judged, and the run
    names both cases as held but not judged: no agreement is said (one package, one ingest
    and one run for the two faults)."""
    package = tiny_kattis(tmp_path / "tiny", {"data/secret/03.ans": "7\n",
                                              "data/secret/04.in": "3 4\n"})
    data = tmp_path / "data"
    done = pipeline(data, "ingest", str(package))
    assert "Traceback" not in done.stderr, done.stderr
    found = rejects(data)
    rule, _, message = found["tiny/data/secret/03.ans"]
    assert rule == "missing-input" and "has no input file 03.in" in message, message
    rule, _, message = found["tiny/data/secret/04.in"]
    assert rule == "missing-answer" and "has no answer file 04.ans" in message, message
    assert stored(data, "tiny") == ["tiny/data/sample/1.in", "tiny/data/secret/01.in",
                                    "tiny/data/secret/02.in"]
    run = pipeline(data, "run", "--problem", "tiny", "--jobs", "1")
    assert run.returncode == 1, run.stdout + run.stderr
    [note] = [x for x in run.stdout.splitlines() if "not judged:" in x]
    assert "not judged: 2 test case(s) the package holds: " in note, run.stdout
    assert "data/secret/03.ans: rule missing-input" in note, note
    assert "data/secret/04.in: rule missing-answer" in note, note
    [line] = [x for x in run.stdout.splitlines() if "accepted/sum.py  accepted" in x]
    assert line.rstrip().endswith("not judged on 2 case(s)"), run.stdout
    assert "only on the test cases judged" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr, run.stderr
    rows = pl.read_parquet(list((data / "tables" / "expectations").glob("*.parquet")))
    [row] = rows.filter(pl.col("submission") == "accepted/sum.py").iter_rows(named=True)
    assert (row["status"], row["cases_judged"], row["cases_held"]) == ("partial", 3, 5)


def test_a_whole_package_is_held_without_a_partial_note(tmp_path):
    package = tiny_kattis(tmp_path / "tiny")
    data = tmp_path / "data"
    assert pipeline(data, "ingest", str(package)).returncode == 0
    run = pipeline(data, "run", "--problem", "tiny", "--jobs", "1")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "not judged" not in run.stdout and "on the judged cases only" not in run.stdout
    [line] = [x for x in run.stdout.splitlines() if "accepted/sum.py  accepted" in x]
    assert line.rstrip().endswith("yes"), run.stdout
    rows = pl.read_parquet(list((data / "tables" / "expectations").glob("*.parquet")))
    [row] = rows.filter(pl.col("submission") == "accepted/sum.py").iter_rows(named=True)
    assert (row["status"], row["cases_judged"], row["cases_held"]) == ("agree", 3, 3)


def test_an_unknown_expected_results_word_rejects_that_submission_alone(tmp_path):
    package = tiny_kattis(tmp_path / "tiny", {
        # BAPCtools' spelling of DOMjudge's WRONG-ANSWER: read
        "submissions/mixed/wa_or_ac.py": "# @EXPECTED_RESULTS@: CORRECT, WRONG_ANSWER\n"
                                         "print(sum(map(int, input().split())) + 1)\n",
        # a word neither reads, on its second line
        "submissions/mixed/typo.py": "import sys\n# @EXPECTED_RESULTS@: WRONG_ANWSER\n"
                                     "print(0)\n"})
    data = tmp_path / "data"
    done = pipeline(data, "ingest", str(package))
    assert "Traceback" not in done.stderr, done.stderr
    rule, line, message = rejects(data)["tiny/submissions/mixed/typo.py"]
    assert (rule, line) == ("expected-results", 2), message
    assert "'WRONG_ANWSER'" in message and "not judged" in message
    assert "tiny/submissions/mixed/wa_or_ac.py" not in rejects(data)
    assert len(stored(data, "tiny")) == 3
    run = pipeline(data, "run", "--problem", "tiny", "--jobs", "1")
    assert run.returncode == 0, run.stdout + run.stderr
    [held] = [x for x in run.stdout.splitlines()
              if "mixed/wa_or_ac.py" in x and "@EXPECTED_RESULTS@" in x]
    assert "@EXPECTED_RESULTS@: CORRECT, WRONG_ANSWER" in held and " WA " in held \
        and held.rstrip().endswith("yes"), run.stdout
    assert "mixed/typo.py" not in run.stdout
