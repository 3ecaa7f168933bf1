"""`write_report`: one offline HTML file with every section, written atomically."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from report_bench import STANDARD

from pipeline.errors import UnknownName
from pipeline.report.html import write_report


class Tags(HTMLParser):
    """Counts start tags and collects the ids/classes of the page."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: dict[str, int] = {}
        self.ids: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.append(attrs["id"])


def parse(text: str) -> Tags:
    tags = Tags()
    tags.feed(text)
    return tags


def two_problems(bench):
    bench.standard_cases()
    bench.standard_run("a1", 0)
    bench.standard_run("a2", 10, wrong={"fast": 3})
    ids = bench.add_cases("bipartitebattle", [(n, str(n % 4)) for n in (4, 16, 64, 256)])
    bench.add_run("b1", "bipartitebattle", [
        {"case_id": c, "solver": "fast", "verdict": "AC", "answer": str(n % 4),
         "wall_ms": 0.2 + 0.001 * n, "size": n} for c, n in zip(ids, (4, 16, 64, 256))],
        minute=5)


def test_default_report_covers_the_latest_run_of_each_problem(bench):
    two_problems(bench)
    path = write_report(bench.data)
    assert path.parent == bench.data / "reports"
    assert re.fullmatch(r"report-\d{8}T\d{6}Z\.html", path.name)
    assert [p.name for p in path.parent.iterdir()] == [path.name]    # no temporary file left
    text = path.read_text(encoding="utf-8")
    tags = parse(text)
    assert {"runs", "verdicts", "compare", "growth", "slow", "mismatches"} <= set(tags.ids)
    assert tags.tags["svg"] == 2                    # one chart per run (a2 and b1)
    assert tags.tags["circle"] >= 10 + 6 + 4
    assert "brute: n^2.00" in text and "editorial: n^1.50" in text and "fast: n^1.00" in text
    # verdict matrix, comparison with a1, slow table, mismatch
    assert '<span class="v v-WA">WA 1</span>' in text
    assert "a1</code> &rarr; <code>a2</code>" in text and "FAILED" in text
    assert "no earlier finished run" in text              # b1 has no previous run
    assert "arc087e/t/09.in (group t)" in text and "Mismatches (1 finding, 0 known)" in text
    # per problem: its own verdict table and its own slowest cases
    assert text.count('<table class="verdict-matrix"') == 2
    assert '<table class="slow" data-problem="arc087e">' in text
    assert '<table class="slow" data-problem="bipartitebattle">' in text
    assert "BASE a1 is the newest earlier finished run of arc087e" in text
    assert "`" not in text                            # no literal backticks anywhere
    # `fast` has the same colour in both charts
    assert len(set(re.findall(r'data-solver="fast" fill="(#\w+)"', text))) == 1


def test_the_report_needs_nothing_from_the_network(bench):
    two_problems(bench)
    text = write_report(bench.data, out=bench.data / "r.html").read_text()
    assert "<script" not in text.lower()
    assert not re.search(r"(?:https?:|//)[^\s\"'<]*\w", text.replace("http-equiv", ""))
    assert "@import" not in text and "@font-face" not in text
    assert set(re.findall(r"url\(([^)]*)\)", text)) == {"#growth-0-clip", "#growth-1-clip"}
    assert "Content-Security-Policy" in text and "default-src 'none'" in text


def test_explicit_runs_and_errors(bench, tmp_path):
    two_problems(bench)
    out = tmp_path / "deep" / "one.html"
    assert write_report(bench.data, ["a1"], out) == out
    text = out.read_text()
    assert parse(text).tags["svg"] == 1 and "bipartitebattle" not in text
    assert "no earlier finished run" in text
    with pytest.raises(UnknownName):
        write_report(bench.data, ["zzz"], out)
    with pytest.raises(ValueError, match="no finished runs"):
        write_report(tmp_path / "empty", None, tmp_path / "x.html")


def test_each_problem_has_its_own_verdict_table_marking_known_wrong_stages(bench):
    two_problems(bench)
    ids = bench.add_cases("cf103119g", [(3, "Alice")])
    bench.add_run("cf", "cf103119g", [
        {"case_id": ids[0], "solver": s, "verdict": v, "answer": a, "wall_ms": 1.0, "size": 3}
        for s, v, a in [("brute", "AC", "Alice"), ("editorial", "WA", "Grammy")]], minute=7)
    text = write_report(bench.data, out=bench.data / "r.html").read_text()
    tables = re.findall(r'<table class="verdict-matrix" data-problem="(\w+)">(.*?)</table>',
                        text, re.S)
    assert [p for p, _ in tables] == ["arc087e", "bipartitebattle", "cf103119g"]
    heads = {p: re.findall(r"<th>([\w-]+)", body) for p, body in tables}
    assert heads == {"arc087e": ["brute", "editorial", "fast"], "bipartitebattle": ["fast"],
                     "cf103119g": ["brute", "editorial"]}     # each its own solvers only
    assert 'editorial <span class="tag">known wrong</span>' in tables[2][1]
    assert "known wrong" not in tables[0][1]
    # the known-wrong failure is folded into the known table, not shown as a finding
    assert "Mismatches (1 finding, 1 known)" in text
    known = re.search(r'<table class="known">(.*?)</table>', text, re.S).group(1)
    assert "<td>editorial</td>" in known and "cf103119g/t/00.in (group t)" in known


def test_the_history_chart_shows_each_trusted_solver_over_the_nightly_runs(bench):
    from pipeline.report.history import nightly_history

    bench.standard_cases()
    bench.standard_run("n1", 0, command="pipeline nightly")
    bench.standard_run("manual", 5, slow={"fast": 9.0})               # not a nightly run
    bench.standard_run("n2", 10, slow={"fast": 1.1}, command="pipeline nightly")
    bench.standard_run("re", 12, command="pipeline nightly (re-measuring flagged slowdowns)",
                       status="remeasure")
    bench.standard_run("n3", 20, slow={"fast": 1.3}, wrong={"fast": 3},
                       command="pipeline nightly")
    history = nightly_history(bench.data, "arc087e")
    assert [n.run_id for n in history] == ["n1", "n2", "n3"]
    fast_total = 0.9 * sum(0.01 * size for size, _ in STANDARD)       # CPU = 0.9 x wall
    assert [n.cpu_ms["fast"] for n in history] == [
        pytest.approx(fast_total), pytest.approx(1.1 * fast_total),
        pytest.approx(1.3 * fast_total)]
    assert [n.failures["fast"] for n in history] == [0, 0, 1]
    # the solvers in one order, night after night and report after report (not a hash order)
    assert {tuple(n.cpu_ms) for n in history} == {("brute", "editorial", "fast")}
    assert history[0].cpu_ms["brute"] == pytest.approx(
        0.9 * sum(0.02 * size ** 2 for size, _ in STANDARD if size <= 100))   # SKIPs count 0
    text = write_report(bench.data, ["n3"], bench.data / "r.html").read_text()
    chart = re.search(r'<svg class="history" id="history-0".*?</svg>', text, re.S).group(0)
    for solver in ("brute", "editorial", "fast"):
        series = re.search(rf'<g class="night-series" data-solver="{solver}".*?</g>', chart,
                           re.S).group(0)
        assert series.count("<circle") == 3 and 'class="trend"' in series
    failures = re.search(r'<g class="failures" data-solver="fast">(.*?)</g>', chart,
                         re.S).group(1)
    assert re.findall(r'class="failures-(\w+)"[^>]*>(\d+)<', failures) == [
        ("none", "0"), ("none", "0"), ("bad", "1")]
    assert "+24% vs earlier median" in chart                  # 1.3 against median(1.0, 1.1)
    assert "3 nightly runs" in chart


def test_cases_without_a_timing_are_marked_apart_and_the_report_is_0644(bench):
    import os
    import stat

    ids = bench.add_cases("bipartitebattle", [(n, "0") for n in (4, 16, 64, 256)])
    bench.add_run("b1", "bipartitebattle", [
        {"case_id": c, "solver": "fast", "verdict": v, "answer": "0" if v == "AC" else None,
         "wall_ms": ms, "size": n}
        for c, n, v, ms in zip(ids, (4, 16, 64, 256), ("AC", "AC", "RE", "TLE"),
                               (0.5, 2.0, 3.0, 1000.0))])
    old = os.umask(0o022)
    try:
        path = write_report(bench.data, out=bench.data / "r.html")
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    text = path.read_text()
    chart = re.search(r'<svg class="chart".*?</svg>', text, re.S).group(0)
    assert chart.count('class="median"') == 2                  # the two timed sizes only
    assert "x RE 1, TLE 1 (no timing)" in chart
    assert chart.count("l6,6 m0,-6 l-6,6") == 2
