"""`compare_runs`: transitions, changed answers, flagged and noted slowdowns, hosts, known-wrong
stages; `pairs_to_compare`: which baseline a comparison picks and why."""

from __future__ import annotations

import polars as pl
import pytest

from pipeline.report.compare import (
    choose_baseline,
    compare_runs,
    format_comparison,
    pairs_to_compare,
)
from pipeline.tables.results import latest_runs

# The bench's timings are small (0.01 * n ms): tests of what a slowdown is called, rather than
# of the default floor (`verdicts.SLOWDOWN_MIN_MS`), set a floor that their cases clear.
SMALL_FLOOR_MS = 5.0


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
    # fast takes 0.01 * n ms: doubled, only n >= 4000 gains more than the default 20 ms
    assert sorted(t.size for t in fast.slowdowns) == [4000, 10000]
    assert all(t.ratio == pytest.approx(2.0) for t in fast.slowdowns)
    assert fast.geomean_ratio == pytest.approx(2.0)
    assert c.solver("editorial").slowdowns == ()
    assert any(r.startswith("fast: 2 flagged slowdowns, slower than 1.5x and +20 ms")
               for r in c.reasons)
    assert fast.flagged == fast.slowdowns and fast.noted == ()
    # the thresholds are parameters
    assert not compare_runs(bench.data, "base", "new", ratio_threshold=2.5).failed
    narrow = compare_runs(bench.data, "base", "new", min_diff_ms=50.0)
    assert [t.size for t in narrow.solver("fast").slowdowns] == [10000]


def test_timings_from_different_hosts_are_not_flagged(bench):
    bench.standard_cases()
    bench.standard_run("base", 0, host="bench-1")
    bench.standard_run("new", 10, host="bench-2", slow={"fast": 5.0})
    c = compare_runs(bench.data, "base", "new", min_diff_ms=SMALL_FLOOR_MS)
    assert not c.same_host and not c.failed
    fast = c.solver("fast")
    assert fast.flagged == () and len(fast.noted) == 4      # the 5x is there, only noted
    assert fast.slowdown_note == "timed on another host"
    assert any("hosts differ (bench-1 vs bench-2)" in n for n in c.notes)
    text = format_comparison(c)
    assert "not the same host" in text
    assert "4 noted slowdowns (timed on another host)" in text
    assert text.splitlines()[-1] == ("OK: no new failures, no flagged slowdowns; noted: "
                                     "fast 4 noted slowdowns (timed on another host)")
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


def test_the_body_and_the_last_line_use_the_same_words(bench):
    """A slowdown of a stage not judged on speed is noted (never "flagged") everywhere; one
    of a stage judged on speed is flagged everywhere and fails."""
    bench.standard_cases()
    bench.standard_run("base", 0)
    bench.standard_run("new", 10, slow={"brute": 4.0, "editorial": 4.0})
    c = compare_runs(bench.data, "base", "new", min_diff_ms=SMALL_FLOOR_MS)
    assert not c.failed
    brute, editorial = c.solver("brute"), c.solver("editorial")
    assert brute.slowdown_note == editorial.slowdown_note == "not judged on speed"
    assert brute.flagged == () and [t.size for t in brute.noted] == [100, 40, 10]
    text = format_comparison(c)
    body, last = text.splitlines()[:-1], text.splitlines()[-1]
    assert "flagged slower" not in text and "noted slower: case" in text
    assert any("brute: 6 timed cases" in line and "3 noted slowdowns (not judged on speed)"
               in line for line in body)
    assert last == ("OK: no new failures, no flagged slowdowns; noted: brute 3 noted slowdowns "
                    "(not judged on speed), editorial 4 noted slowdowns (not judged on speed)")
    bench.standard_run("newer", 20, slow={"fast": 4.0})
    failing = format_comparison(compare_runs(bench.data, "base", "newer",
                                             min_diff_ms=SMALL_FLOOR_MS))
    assert "flagged slower: case" in failing and "noted slower" not in failing
    # fast takes 0.9 * 0.01 * n ms of CPU: 4x is 5 ms more from n = 400 on
    assert "  fast: 10 timed cases" in failing and "4 flagged slowdowns" in failing
    assert failing.splitlines()[-2] == "FAILED:"
    assert failing.splitlines()[-1].startswith("  - fast: 4 flagged slowdowns, slower than 1.5x")


def test_a_known_wrong_stage_s_slowdowns_and_failures_are_noted_in_the_last_line(bench):
    ok = [("fast", i, "AC", ans) for i, ans in enumerate(["Alice", "Grammy", "Alice"])]
    _cf_run(bench, "base", 0, ok + [("editorial", 0, "AC", "Alice")])
    _cf_run(bench, "new", 10, ok + [("editorial", 0, "WA", "Grammy")])
    text = format_comparison(compare_runs(bench.data, "base", "new"))
    assert text.splitlines()[-1] == ("OK: no new failures, no flagged slowdowns; noted: "
                                     "editorial (known wrong) 1 new failure")


def _run_of(bench, run_id, minute, cases, solvers=("brute", "editorial", "fast")):
    """A finished arc087e run row over the first `cases` standard cases."""
    from report_bench import STANDARD, case_id_of

    ids = [case_id_of(f"arc087e case {i}\nsize {size}\n") for i, (size, _) in enumerate(STANDARD)]
    return bench.add_run(run_id, "arc087e", [
        {"case_id": ids[i], "solver": s, "verdict": "AC", "answer": STANDARD[i][1],
         "wall_ms": 1.0, "size": STANDARD[i][0]} for i in range(cases) for s in solvers],
        minute=minute)


def test_the_baseline_is_the_newest_comparable_earlier_run_and_says_why(bench):
    bench.standard_cases()
    _run_of(bench, "full", 0, 10)
    _run_of(bench, "one-case", 10, 1, solvers=("fast",))       # a quick check of one case
    _run_of(bench, "no-brute", 20, 10, solvers=("editorial", "fast"))
    _run_of(bench, "new", 30, 10)
    pair = choose_baseline(bench.data, "new")
    assert (pair.problem, pair.base, pair.new) == ("arc087e", "full", "new")
    assert pair.skipped == ("no-brute: did not run brute",
                            "one-case: 1 case against NEW's 10 (more than 10% apart)")
    assert pair.why == ("BASE full is the newest earlier finished run of arc087e over the same "
                        "cases (all cases, 10 cases against NEW's 10) that ran every solver of "
                        "NEW")
    assert pairs_to_compare(bench.data, problem="arc087e") == [pair]
    assert pairs_to_compare(bench.data) == [pair]
    _run_of(bench, "nine", 40, 9)                              # one case fewer: within 10%
    assert choose_baseline(bench.data, "nine").base == "new"
    _run_of(bench, "fast-only", 50, 10, solvers=("fast",))     # a subset of the solvers
    assert choose_baseline(bench.data, "fast-only").base == "nine"
    _run_of(bench, "seven", 60, 7)
    lonely = choose_baseline(bench.data, "seven")
    assert lonely.base is None and len(lonely.skipped) == 6     # 5 shown, 1 counted
    assert lonely.skipped[0] == "fast-only: 10 cases against NEW's 7 (more than 10% apart)"
    assert lonely.skipped[-1] == "... and 1 older run"
    with pytest.raises(ValueError, match="compare needs two finished runs of insq15g in /"):
        pairs_to_compare(bench.data, problem="insq15g")
    [given] = pairs_to_compare(bench.data, "full", "new")
    assert (given.base, given.new, given.why) == ("full", "new", "both runs given")


def test_runs_of_another_group_or_missing_a_solver_are_passed_over(bench):
    bench.standard_cases()
    _run_of(bench, "all", 0, 10)
    _run_of(bench, "max", 10, 10)
    from pipeline.tables.results import read_runs, write_run

    row = read_runs(bench.data).filter(pl.col("run_id") == "max").row(0, named=True)
    write_run(bench.data, {**row, "group": "max"})
    _run_of(bench, "fast-only", 20, 10, solvers=("fast",))
    _run_of(bench, "new", 30, 10, solvers=("brute", "fast"))
    pair = choose_baseline(bench.data, "new")
    assert pair.base == "all"
    assert pair.skipped == ("fast-only: did not run brute", "max: group max, NEW ran all cases")
    text = format_comparison(compare_runs(bench.data, pair.base, pair.new), choice=pair)
    assert "baseline: BASE all is the newest earlier finished run" in text
    assert "  passed over fast-only: did not run brute" in text
    assert "  passed over max: group max, NEW ran all cases" in text
    _run_of(bench, "cpp", 40, 10, solvers=("cpp",))
    nothing = choose_baseline(bench.data, "cpp")
    assert nothing.base is None and nothing.why.startswith("no earlier finished run of arc087e is "
                                                           "comparable with NEW cpp")
    assert nothing.skipped[0] == "new: did not run cpp"
