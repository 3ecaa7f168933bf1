"""`find_mismatches`: wrong answers and disagreements, smallest case first, grouped by answer."""

from __future__ import annotations

from report_bench import STANDARD

from pipeline.report.mismatches import cut, find_mismatches, format_mismatches, group_answers


def test_a_wrong_answer_is_listed_with_who_sides_with_what(bench):
    bench.standard_cases()
    bench.standard_run("r1", 0, wrong={"fast": 6})
    [m] = find_mismatches(bench.data)
    assert (m.problem, m.size, m.run_id) == ("arc087e", 400, "r1")
    assert m.source == "arc087e/t/06.in"
    assert m.input == "arc087e case 6\nsize 400\n"
    expected, wrong = m.groups
    assert expected.is_expected and expected.answer == "Alice"
    assert expected.stages == ("editorial",)          # brute skipped this size
    assert not wrong.is_expected and wrong.answer == "Bob\n" and wrong.stages == ("fast",)
    assert wrong.difference == "token 1: expected 'Alice', got 'Bob'"
    assert m.wrong_stages == ("fast",)


def test_smallest_case_first(bench):
    bench.standard_cases()
    bench.standard_run("r1", 0, wrong={"fast": 8, "editorial": 2, "brute": 4})
    sizes = [m.size for m in find_mismatches(bench.data)]
    assert sizes == [STANDARD[2][0], STANDARD[4][0], STANDARD[8][0]] == [5, 40, 4000]


def test_disagreement_without_expected_answer_and_rows_without_answers(bench):
    ids = bench.add_cases("bipartitebattle", [(3, None), (7, "3"), (2, "0"), (9, "1")])
    rows = [
        # no expected answer, two stages disagree: a mismatch with no expected group
        ("brute", ids[0], "AC", "1\n"), ("fast", ids[0], "NOEXP", "2\n"),
        ("editorial", ids[0], "NOEXP", "1"),
        # same tokens, different spacing: not a mismatch
        ("brute", ids[1], "AC", "3\n"), ("fast", ids[1], "AC", "  3 \r\n"),
        # verdicts without an answer never count
        ("brute", ids[2], "SKIP", None), ("fast", ids[2], "TLE", None),
        ("editorial", ids[2], "AC", "0\n"),
        # a crash with partial output is not an answer either
        ("brute", ids[3], "AC", "1\n"), ("fast", ids[3], "RE", "7\n"),
    ]
    bench.add_run("r1", "bipartitebattle", [
        {"case_id": c, "solver": s, "verdict": v, "answer": a, "wall_ms": 1.0,
         "size": {ids[0]: 3, ids[1]: 7, ids[2]: 2, ids[3]: 9}[c]} for s, c, v, a in rows])
    [m] = find_mismatches(bench.data)
    assert m.case_id == ids[0] and not m.has_expected
    assert [(g.answer, g.stages) for g in m.groups] == [("1\n", ("brute", "editorial")),
                                                         ("2\n", ("fast",))]
    assert m.wrong_stages == ("fast",)


def test_expected_answer_that_no_stage_gives_still_comes_first(bench):
    groups = group_answers("arc087e", [("fast", "Bob"), ("editorial", "Bob")], "Alice")
    assert [(g.answer, g.stages, g.is_expected) for g in groups] == [
        ("Alice", (), True), ("Bob", ("fast", "editorial"), False)]
    assert group_answers("arc087e", [("fast", "Bob"), ("brute", "Bob\n")], None)[0].stages == (
        "fast", "brute")


def test_known_wrong_stages_are_marked(bench):
    ids = bench.add_cases("cf103119g", [(4, "Alice")])
    bench.add_run("r1", "cf103119g", [
        {"case_id": ids[0], "solver": s, "verdict": v, "answer": a, "wall_ms": 1.0, "size": 4}
        for s, v, a in [("brute", "AC", "Alice"), ("editorial", "WA", "Grammy")]])
    [m] = find_mismatches(bench.data)
    assert m.known_wrong == ("editorial",)
    assert "editorial (known wrong)" in format_mismatches([m])


def test_long_inputs_are_cut_in_the_listing(bench):
    long_input = "".join(f"{i} {i}\n" for i in range(2000))
    ids = bench.add_cases("arc087e", [(2000, "Alice")], inputs=[long_input])
    bench.add_run("r1", "arc087e", [
        {"case_id": ids[0], "solver": s, "verdict": v, "answer": a, "wall_ms": 1.0,
         "size": 2000} for s, v, a in [("fast", "AC", "Alice"), ("editorial", "WA", "Bob")]])
    text = format_mismatches(find_mismatches(bench.data))
    assert "0 0" in text and "1999 1999" not in text
    assert "more characters, 2000 lines in all" in text
    assert len(text) < 1500
    assert cut("short\n") == "short\n"
    assert cut(None) == "(not stored)"


def test_no_mismatch_and_run_selection(bench):
    bench.standard_cases()
    bench.standard_run("bad", 0, wrong={"fast": 1})
    bench.standard_run("good", 10)
    assert find_mismatches(bench.data) == []
    assert format_mismatches([]).startswith("no mismatches")
    assert [m.run_id for m in find_mismatches(bench.data, run_ids=["bad", "good"])] == ["bad"]
    assert find_mismatches(bench.data, problem="insq15g") == []
