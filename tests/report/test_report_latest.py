"""The report of real runs: every solver's newest result per problem, and package submissions
drawn by what their folder permits.

The runs are real (`pipeline ingest` and `pipeline run` subprocesses on a built-in problem
and on a small package of 2025-09 format written here), and so is the report
(`pipeline report`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
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


MIXSUM = {
    "problem.yaml": "problem_format_version: 2025-09\ntype: pass-fail\nname: Mixed Sum\n"
                    "uuid: 7d1c2b3a-1111-4222-8333-944455566677\nlimits:\n  time_limit: 1\n",
    "data/sample/1.in": "1 2\n", "data/sample/1.ans": "3\n",
    "data/secret/01.in": "2 3\n", "data/secret/01.ans": "5\n",
    "data/secret/02.in": "10 -20\n", "data/secret/02.ans": "-10\n",
    "submissions/accepted/sum.py": "print(sum(map(int, input().split())))\n",
    "submissions/wrong_answer/minus.py": "a, b = map(int, input().split())\nprint(a - b)\n",
    # permitted to fail, not required to: one fails a case, one passes them all
    "submissions/mixed/abs.py": "a, b = map(int, input().split())\n"
                                "print(a + b if a + b >= 0 else '<b>&amp;')\n",
    "submissions/mixed/also_right.py": "print(sum(map(int, input().split())))\n",
    "submissions/submissions.yaml": "mixed/*:\n  permitted: [AC, WA]\n",
}


def mixsum(tmp_path: Path, files: dict[str, str] = MIXSUM) -> Path:
    """The package of `files` ingested and all its submissions run; returns the data
    folder."""
    root = tmp_path / "mixsum"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    data = tmp_path / "data"
    assert pipeline(data, "ingest", str(root)).returncode == 0
    ran = pipeline(data, "run", "--problem", "mixsum", "--jobs", "2")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    return data


def test_a_submission_is_drawn_by_what_its_folder_permits(tmp_path):
    data = mixsum(tmp_path)
    text = report_of(data, tmp_path)
    table = re.search(r'<table class="verdict-matrix" data-problem="mixsum">(.*?)</table>',
                      text, re.S).group(1)
    heads = dict(re.findall(r"<th>([\w/.]+)(.*?)</th>", table))
    assert heads["wrong_answer/minus.py"] == ' <span class="tag">known wrong</span>'
    assert heads["mixed/abs.py"] == heads["mixed/also_right.py"] == \
        ' <span class="note may-fail">may fail</span>'
    assert heads["accepted/sum.py"] == ""
    # the tests are measured against the one program that must fail, which they kill
    strength = re.search(r'<table class="strength" data-problem="mixsum">(.*?)</table>', text,
                         re.S).group(1)
    assert re.findall(r"<tr><td>([\w/.]+)</td>", strength) == ["wrong_answer/minus.py"]
    assert "survives every case" not in text
    assert "killed by 3 cases" in strength

    # per submission: its most CPU time on a case as a share of the limit (1 s), and its first
    # failing case by file path, linked to its input, with the judge's message escaped
    rows = {sub: cells for sub, cells in re.findall(
        r'<tr class="agree"><td>([\w/.]+)</td>(.*?)</tr>', text, re.S)}
    assert set(rows) == {"accepted/sum.py", "mixed/abs.py", "mixed/also_right.py",
                         "wrong_answer/minus.py"}
    done = pipeline(data, "query", "SELECT solver, max(cpu_ms) AS most FROM results "
                    "GROUP BY solver", "--format", "json")
    assert done.returncode == 0, done.stderr
    for line in done.stdout.splitlines():
        most = json.loads(line)
        share = re.search(r'class="num max-cpu"><span title="[^"]*">([\d.]+)%<',
                          rows[most["solver"]]).group(1)
        assert float(share) == pytest.approx(most["most"] / 10, abs=0.051)
    assert 'class="first-failure"></td>' in rows["accepted/sum.py"]
    assert 'class="first-failure"></td>' in rows["mixed/also_right.py"]
    first = re.search(r'class="first-failure">(.*?)</td>', rows["mixed/abs.py"], re.S).group(1)
    href = re.search(r'<a class="input" href="([^"]+)">mixsum/data/secret/02.in</a>',
                     first).group(1)
    assert (tmp_path / href).read_text() == MIXSUM["data/secret/02.in"]
    assert first.startswith('<span class="v v-WA">WA</span>')
    assert "&lt;b&gt;&amp;amp;" in first and "<b>" not in first
    wrong = re.search(r'class="first-failure">(.*?)</td>', rows["wrong_answer/minus.py"],
                      re.S).group(1)
    assert ">mixsum/data/sample/1.in</a>" in wrong          # the first by path: the sample


def test_forty_one_submissions_get_a_row_each_grouped_by_expected_verdict(tmp_path):
    """Past WIDE_SOLVERS the verdict table has one row per submission (no column per
    submission to squeeze its name into one letter per line), and both it and the
    submissions table lead each expected verdict with a summary row of its cases."""
    from pipeline.report.html import WIDE_SOLVERS

    package = dict(MIXSUM)
    right = MIXSUM["submissions/accepted/sum.py"]
    package.update({f"submissions/accepted/sum_number_{i:02d}_with_a_long_name.py": right
                    for i in range(36)})
    package["submissions/wrong_answer/minus_again.py"] = \
        MIXSUM["submissions/wrong_answer/minus.py"]
    data = mixsum(tmp_path, package)
    text = report_of(data, tmp_path)
    table = re.search(r'<table class="verdict-matrix verdict-list" data-problem="mixsum">'
                      r"(.*?)</table>", text, re.S).group(1)
    solvers = re.findall(r'<td class="solver">([\w/.]+)', table)
    assert len(solvers) == 41 > WIDE_SOLVERS and len(set(solvers)) == 41
    assert table.count("<th") == 2 + 2 * 3           # its head and three summary rows only
    summaries = re.findall(r'<tr class="summary" data-expected="(\w+)"><th>[^<]*: (\d+) '
                           r"solvers?</th><th>(.*?)</th></tr>", table)
    assert [(label, int(n)) for label, n, _ in summaries] == [
        ("accepted", 37), ("mixed", 2), ("wrong_answer", 2)]
    assert summaries[0][2] == '<span class="v v-AC">AC 111</span>'      # 37 x 3 cases
    assert summaries[1][2] == ('<span class="v v-AC">AC 5</span>'
                               '<span class="v v-WA">WA 1</span>')
    assert summaries[2][2] == '<span class="v v-WA">WA 6</span>'
    # each summary row heads the rows of its group
    order = re.findall(r'<tr class="summary" data-expected="(\w+)"|<td class="solver">(\w+)/',
                       table)
    groups = [label or f"{folder}" for label, folder in order]
    assert groups == ["accepted"] * 38 + ["mixed"] * 3 + ["wrong_answer"] * 3
    runs = re.search(r'<table class="runs">(.*?)</table>', text, re.S).group(1)
    assert "<details><summary>41 solvers</summary>accepted/sum.py, " in runs
    held = re.search(r'<table class="submissions" data-problem="mixsum">(.*?)</table>', text,
                     re.S).group(1)
    assert re.findall(r'<tr class="summary" data-expected="(\w+)"><th>(\d+) submissions?</th>'
                      r".*?<th>(\d+) of (\d+) agree</th>", held) == [
        ("accepted", "37", "37", "37"), ("mixed", "2", "2", "2"),
        ("wrong_answer", "2", "2", "2")]
