"""The report of real runs: every solver's newest result per problem, and package submissions
drawn by what their folder permits.

The runs are real (`pipeline ingest` and `pipeline run` subprocesses on a built-in problem
and on a small package of 2025-09 format written here), and so is the report
(`pipeline report`).
"""

from __future__ import annotations

import re
from pathlib import Path

from test_strength import pipeline


def report_of(data: Path, tmp_path: Path, *args: str) -> str:
    out = tmp_path / "report.html"
    done = pipeline(data, "report", "--out", str(out), *args)
    assert done.returncode == 0, done.stderr
    return out.read_text(encoding="utf-8")


def matrix_heads(text: str, problem: str) -> list[str]:
    table = re.search(rf'<table class="verdict-matrix" data-problem="{problem}">(.*?)</table>',
                      text, re.S).group(1)
    return re.findall(r"<th>([^<]+?)[ <]", table)


def test_a_run_of_one_solver_leaves_the_others_newest_results_in_the_report(tmp_path):
    data = tmp_path / "data"
    assert pipeline(data, "generate", "cf103119g", "--recipe", "tiny", "--count", "8",
                    "--seed", "3").returncode == 0
    assert pipeline(data, "ingest", str(data / "raw")).returncode == 0
    first = pipeline(data, "run", "--problem", "cf103119g", "--solver", "brute", "--solver",
                     "editorial", "--solver", "fast", "--jobs", "2")
    assert first.returncode in (0, 1), first.stderr
    again = pipeline(data, "run", "--problem", "cf103119g", "--solver", "fast", "--repeat",
                     "3", "--jobs", "2")
    assert again.returncode == 0, again.stderr
    text = report_of(data, tmp_path)
    assert sorted(matrix_heads(text, "cf103119g")) == ["brute", "editorial", "fast"]
    runs = re.search(r'<table class="runs">(.*?)</table>', text, re.S).group(1)
    rows = re.findall(r"<tr><td><code>([^<]+)</code>.*?<td>([^<]*(?:<s[^>]*>[^<]*</s>"
                      r"[^<]*)*)</td></tr>", runs, re.S)
    assert len(rows) == 2                       # the newest run first: fast, 3 repeats
    assert rows[0][1] == "fast"
    assert rows[1][1] == 'brute, editorial, <s title="a newer run holds it">fast</s>'
    # fast's cases are counted once (its newest run), not once per run
    table = re.search(r'data-problem="cf103119g">(.*?)</table>', text, re.S).group(1)
    counts = [sum(int(n) for n in re.findall(r'class="v v-\w+">\w+ (\d+)<', cell))
              for cell in re.findall(r"<td>(.*?)</td>", table)]
    assert len(counts) == 3 and len(set(counts)) == 1, counts
    # naming the runs shows just those runs, as before
    only = report_of(data, tmp_path, "--run", rows[0][0])
    assert matrix_heads(only, "cf103119g") == ["fast"]
