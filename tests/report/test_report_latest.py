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


def mixsum(tmp_path: Path) -> Path:
    """MIXSUM ingested and all its submissions run; returns the data folder."""
    root = tmp_path / "mixsum"
    for rel, text in MIXSUM.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    data = tmp_path / "data"
    assert pipeline(data, "ingest", str(root)).returncode == 0
    ran = pipeline(data, "run", "--problem", "mixsum")
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
