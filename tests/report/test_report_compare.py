"""`compare_runs`: transitions, changed answers, flagged slowdowns, hosts, known-wrong stages."""

from __future__ import annotations

import pytest

from pipeline.report.compare import compare_runs, format_comparison
from pipeline.tables.runs import latest_runs


def test_an_unchanged_rerun_is_not_flagged(bench):
    bench.standard_cases()
    bench.standard_run("base", 0, jitter=0.05, repeats=3)
    bench.standard_run("new", 10, jitter=-0.05, repeats=3)   # every case 5-10% off, both ways
    c = compare_runs(bench.data, "base", "new")
    assert not c.failed and c.reasons == ()
    assert c.same_host and c.problem == "arc087e"
    for s in c.solvers:
        assert s.slowdowns == () and s.new_failures == () and s.changed_answers == ()
        assert s.geomean_ratio == pytest.approx(1.0, abs=0.12)
    fast = c.solver("fast")
    assert fast.transitions == (("AC", "AC", 10),)
    assert c.solver("brute").transition_count("SKIP", "SKIP") == 4
    assert format_comparison(c).endswith("OK: no new failures, no flagged slowdowns")


def test_a_deliberately_wrong_answer_fails_the_comparison(bench):
    bench.standard_cases()
    bench.standard_run("base", 0)
    bench.standard_run("new", 10, wrong={"fast": 4})
    c = compare_runs(bench.data, "base", "new")
    assert c.failed
    fast = c.solver("fast")
    assert fast.transition_count("AC", "WA") == 1 and fast.transition_count("AC", "AC") == 9
    [change] = fast.new_failures
    assert (change.size, change.base_verdict, change.new_verdict) == (40, "AC", "WA")
    [answer] = fast.changed_answers
    assert (answer.base_answer, answer.new_answer) == ("Alice\n", "Bob\n")
    assert len(c.reasons) == 1 and c.reasons[0].startswith("fast: 1 new failing case (AC->WA 1)")
    text = format_comparison(c)
    assert "FAILED" in text and "answer changed" in text


def test_a_deliberately_slowed_solver_is_flagged_above_both_thresholds(bench):
    bench.standard_cases()
    bench.standard_run("base", 0, repeats=3, jitter=0.02)
    bench.standard_run("new", 10, repeats=3, jitter=0.02, slow={"fast": 2.0})
    c = compare_runs(bench.data, "base", "new")
    assert c.failed
    fast = c.solver("fast")
    # fast takes 0.01 * n ms: doubled, only n >= 1000 gains more than 5 ms
    assert sorted(t.size for t in fast.slowdowns) == [1000, 4000, 10000]
    assert all(t.ratio == pytest.approx(2.0) for t in fast.slowdowns)
    assert fast.geomean_ratio == pytest.approx(2.0)
    assert c.solver("editorial").slowdowns == ()
    assert any(r.startswith("fast: 3 cases slower than 1.5x and +5 ms") for r in c.reasons)
    # the thresholds are parameters
    assert not compare_runs(bench.data, "base", "new", ratio_threshold=2.5).failed
    narrow = compare_runs(bench.data, "base", "new", min_diff_ms=50.0)
    assert [t.size for t in narrow.solver("fast").slowdowns] == [10000]


def test_timings_from_different_hosts_are_not_flagged(bench):
    bench.standard_cases()
    bench.standard_run("base", 0, host="bench-1")
    bench.standard_run("new", 10, host="bench-2", slow={"fast": 5.0})
    c = compare_runs(bench.data, "base", "new")
    assert not c.same_host and not c.failed
    assert c.solver("fast").slowdowns == ()
    assert any("hosts differ (bench-1 vs bench-2)" in n for n in c.notes)
    assert "not the same host" in format_comparison(c)
    # a wrong answer is still a failure across hosts
    bench.standard_run("newer", 20, host="bench-2", wrong={"editorial": 0})
    assert compare_runs(bench.data, "base", "newer").failed


def test_unknown_hosts_are_not_the_same_host(bench):
    bench.standard_cases()
    bench.standard_run("base", 0, host=None)
    bench.standard_run("new", 10, host=None, slow={"fast": 5.0})
    c = compare_runs(bench.data, "base", "new")
    assert not c.same_host and not c.failed
    assert c.notes[0].startswith("host unknown (unknown vs unknown)")


def _cf_run(bench, run_id, minute, rows):
    ids = bench.add_cases("cf103119g", [(3, "Alice"), (5, "Grammy"), (8, "Alice")])
    bench.add_run(run_id, "cf103119g", [
        {"case_id": ids[i], "solver": s, "verdict": v, "answer": a, "wall_ms": 1.0,
         "size": (3, 5, 8)[i]} for s, i, v, a in rows], minute=minute)


def test_known_wrong_stages_are_reported_but_never_fail(bench):
    ok = [("fast", i, "AC", ans) for i, ans in enumerate(["Alice", "Grammy", "Alice"])]
    _cf_run(bench, "base", 0, ok + [("editorial", 0, "AC", "Alice")])
    _cf_run(bench, "new", 10, ok + [("editorial", 0, "WA", "Grammy")])
    c = compare_runs(bench.data, "base", "new")
    assert not c.failed
    editorial = c.solver("editorial")
    assert editorial.known_wrong and len(editorial.new_failures) == 1
    assert any(n.startswith("editorial (known wrong): 1 new failing case") for n in c.notes)
    assert "[known wrong]" in format_comparison(c)


def test_which_verdict_changes_are_new_failures(bench):
    _cf_run(bench, "base", 0, [
        ("fast", 0, "WA", "Grammy"), ("fast", 1, "WA", "Alice"), ("fast", 2, "AC", "Alice"),
        ("brute", 0, "AC", "Alice"), ("old", 0, "AC", "Alice")])
    _cf_run(bench, "new", 10, [
        ("fast", 0, "WA", "Grammy"),        # still WA: not new
        ("fast", 1, "TLE", None),           # WA -> TLE: a new kind of failure
        ("fast", 2, "SKIP", None),          # AC -> SKIP: not a failure
        ("brute", 0, "AC", "Alice"),
        ("ext", 0, "RE", None)])            # a new solver that crashes
    c = compare_runs(bench.data, "base", "new")
    assert c.failed
    assert [(f.base_verdict, f.new_verdict) for f in c.solver("fast").new_failures] == [
        ("WA", "TLE")]
    ext = c.solver("ext")
    assert (ext.in_base, ext.in_new) == (False, True)
    assert [(f.base_verdict, f.new_verdict) for f in ext.new_failures] == [("-", "RE")]
    assert c.solver("old").in_new is False
    assert "old: not in the new run" in c.notes
    assert len(c.reasons) == 2


def test_latest_runs_newest_finished_first(bench):
    bench.standard_cases()
    bench.standard_run("a", 0)
    bench.standard_run("b", 10)
    bench.standard_run("c", 20, status="failed")
    bench.standard_run("d", 30)
    bench.standard_run("e", 40, status="running")
    assert latest_runs(bench.data, "arc087e", 2) == ["d", "b"]
    assert latest_runs(bench.data, "arc087e", 10) == ["d", "b", "a"]
    assert latest_runs(bench.data, "insq15g", 2) == []


def test_runs_of_different_problems_or_unknown_runs_are_refused(bench):
    bench.standard_cases()
    bench.standard_run("a", 0)
    _cf_run(bench, "cf", 5, [("fast", 0, "AC", "Alice")])
    with pytest.raises(ValueError, match="different problems"):
        compare_runs(bench.data, "a", "cf")
    with pytest.raises(LookupError):
        compare_runs(bench.data, "a", "nope")
