"""`slow_cases`: most CPU time first, medians over repeats, share of the limit, source, run
choice."""

from __future__ import annotations

import pytest
from report_bench import STANDARD

from pipeline.errors import UnknownName
from pipeline.report.slow import format_slow, slow_cases


def test_slowest_first_with_limit_share_and_source(bench):
    bench.standard_cases()
    bench.standard_run("r1", 0)
    rows = slow_cases(bench.data, top=5)
    assert [r.cpu_ms for r in rows] == sorted((r.cpu_ms for r in rows), reverse=True)
    top = rows[0]
    assert (top.solver, top.size, top.verdict) == ("editorial", 10000, "AC")
    assert top.wall_ms == pytest.approx(1000.0)
    assert top.limit_ms == 2000.0           # arc087e problem.toml: [limits] time_s = 2
    assert top.fraction == pytest.approx(0.45)  # its CPU time's share: the limit is on CPU
    assert top.source == "arc087e/t/09.in"
    assert top.cpu_ms == pytest.approx(900.0)
    assert len(rows) == 5


def test_skipped_cases_are_left_out_and_filters_apply(bench):
    bench.standard_cases()
    bench.standard_run("r1", 0)
    rows = slow_cases(bench.data, top=100)
    assert all(r.verdict != "SKIP" for r in rows)
    brute = slow_cases(bench.data, solver="brute", top=100)
    assert {r.solver for r in brute} == {"brute"}
    assert max(r.size for r in brute) == 100       # brute skipped everything bigger
    assert len(brute) == sum(1 for size, _ in STANDARD if size <= 100)
    assert slow_cases(bench.data, problem="cf103119g") == []


def test_median_over_repeats_ignores_one_outlier(bench):
    ids = bench.add_cases("arc087e", [(10, "Alice"), (20, "Bob")])
    results = [{"case_id": ids[0], "solver": "fast", "repeat": rep, "verdict": "AC",
                "answer": "Alice", "wall_ms": ms, "size": 10}
               for rep, ms in enumerate([10.0, 500.0, 12.0])]
    results += [{"case_id": ids[1], "solver": "fast", "repeat": rep, "verdict": "AC",
                 "answer": "Bob", "wall_ms": ms, "size": 20}
                for rep, ms in enumerate([100.0, 101.0, 99.0])]
    bench.add_run("r1", "arc087e", results, repeat=3)
    rows = slow_cases(bench.data)
    assert [(r.size, r.wall_ms, r.repeats) for r in rows] == [(20, 100.0, 3), (10, 12.0, 3)]


def test_default_is_the_latest_finished_run_of_each_problem(bench):
    bench.standard_cases()
    bench.standard_run("old", 0, slow={"fast": 50.0})
    bench.standard_run("new", 10)
    bench.standard_run("broken", 20, slow={"fast": 100.0}, status="failed")
    ids = bench.add_cases("cf103119g", [(7, "Grammy")])
    bench.add_run("cf", "cf103119g", [{"case_id": ids[0], "solver": "fast", "verdict": "AC",
                                       "answer": "Grammy", "wall_ms": 3.0, "size": 7}], minute=5)
    rows = slow_cases(bench.data, top=1000)
    assert {r.run_id for r in rows} == {"new", "cf"}
    cf = [r for r in rows if r.problem == "cf103119g"]
    assert cf[0].limit_ms == 4000.0 and cf[0].source == "cf103119g/t/00.in"
    only_broken = slow_cases(bench.data, run_ids=["broken"], top=3)
    assert {r.run_id for r in only_broken} == {"broken"}
    assert only_broken[0].solver == "fast"           # 100x slower there
    with pytest.raises(UnknownName):
        slow_cases(bench.data, run_ids=["nope"])


def test_format_slow_prints_one_line_per_case(bench):
    bench.standard_cases()
    bench.standard_run("r1", 0)
    text = format_slow(slow_cases(bench.data, top=3))
    lines = text.splitlines()
    assert len(lines) == 2 + 3 + 1
    assert "editorial" in lines[2] and "45%" in lines[2] and "arc087e/t/09.in" in lines[2]
    assert format_slow([]).startswith("no timed results")


def test_per_problem_gives_each_problem_its_own_slowest_cases(bench):
    bench.standard_cases()
    bench.standard_run("r1", 0)                     # arc087e: up to 1000 ms
    ids = bench.add_cases("cf103119g", [(7, "Grammy"), (8, "Alice")])
    bench.add_run("cf", "cf103119g", [
        {"case_id": c, "solver": "fast", "verdict": "AC", "answer": a, "wall_ms": ms, "size": n}
        for c, n, a, ms in zip(ids, (7, 8), ("Grammy", "Alice"), (3.0, 4.0))], minute=5)
    assert {r.problem for r in slow_cases(bench.data, top=3)} == {"arc087e"}
    rows = slow_cases(bench.data, top=3, per_problem=True)
    assert [(r.problem, r.size) for r in rows] == [
        ("arc087e", 10000), ("arc087e", 4000), ("arc087e", 100), ("cf103119g", 8),
        ("cf103119g", 7)]
    assert [r.solver for r in rows[:3]] == ["editorial", "editorial", "brute"]
    assert rows[3].groups == ("t",)


def test_the_listing_shows_source_and_group_not_a_hash(bench):
    bench.standard_cases()
    bench.standard_run("r1", 0)
    rows = slow_cases(bench.data, top=2)
    text = format_slow(rows)
    assert text.splitlines()[0].endswith("limit  source (group)")
    assert text.splitlines()[2].endswith("arc087e/t/09.in (group t)")
    assert rows[0].case_id[:12] not in text


def test_a_case_that_waited_ranks_below_one_that_computed(bench):
    """Ranked by CPU time, wall time beside it: a size-9 case that took 1091 ms of wall time
    but 2.27 ms of CPU (the machine was busy) is not the slowest case."""
    ids = bench.add_cases("arc087e", [(9, "Alice"), (10**6, "Bob")])
    bench.add_run("r1", "arc087e", [
        {"case_id": ids[0], "solver": "fast", "verdict": "AC", "answer": "Alice",
         "wall_ms": 1091.0, "cpu_ms": 2.27, "size": 9},
        {"case_id": ids[1], "solver": "fast", "verdict": "AC", "answer": "Bob",
         "wall_ms": 400.0, "cpu_ms": 380.0, "size": 10**6}])
    rows = slow_cases(bench.data)
    assert [(r.size, r.cpu_ms, r.wall_ms) for r in rows] == [(10**6, 380.0, 400.0),
                                                            (9, 2.27, 1091.0)]
    assert rows[1].fraction == pytest.approx(2.27 / 2000)
    header = format_slow(rows).splitlines()[0].split()
    assert header.index("cpu") < header.index("wall")  # CPU first, wall beside it
