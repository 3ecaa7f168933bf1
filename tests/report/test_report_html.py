"""`write_report`: one offline HTML file with every section, written atomically."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

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
    assert "arc087e/t/09.in" in text and "Mismatches (1, smallest first)" in text
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
