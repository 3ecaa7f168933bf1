"""`find_mismatches`: wrong answers and disagreements, smallest case first, grouped by answer."""

from __future__ import annotations

from report_bench import STANDARD

from pipeline.report.mismatches import (
    by_problem,
    cut,
    find_mismatches,
    format_block,
    format_mismatches,
    group_answers,
)


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


def _two_problems_with_known_wrong_stages(bench):
    """cf103119g: its known-wrong `editorial` is off on three cases (sizes 9, 2, 30) and the
    trusted `fast` on one (size 30); insq15g: its known-wrong `independent-people` on two
    (sizes 100000 and 7000). Sizes are in each problem's own unit."""
    cf = bench.add_cases("cf103119g", [(9, "Alice"), (2, "Grammy"), (30, "Alice"), (5, "Alice")])
    rows = []
    for case_id, size, truth in zip(cf, (9, 2, 30, 5), ("Alice", "Grammy", "Alice", "Alice")):
        lie = "Grammy" if truth == "Alice" else "Alice"
        rows += [{"case_id": case_id, "solver": "brute", "verdict": "AC", "answer": truth,
                  "wall_ms": 1.0, "size": size},
                 {"case_id": case_id, "solver": "editorial", "verdict": "WA" if size != 5 else
                  "AC", "answer": lie if size != 5 else truth, "wall_ms": 1.0, "size": size},
                 {"case_id": case_id, "solver": "fast", "verdict": "WA" if size == 30 else "AC",
                  "answer": lie if size == 30 else truth, "wall_ms": 1.0, "size": size}]
    bench.add_run("cf-run", "cf103119g", rows)
    insq = bench.add_cases("insq15g", [(100000, "Yes"), (7000, "No")])
    bench.add_run("insq-run", "insq15g", [
        {"case_id": c, "solver": s, "verdict": v, "answer": a, "wall_ms": 1.0, "size": n}
        for c, n, truth in zip(insq, (100000, 7000), ("Yes", "No"))
        for s, v, a in [("fast", "AC", truth),
                        ("independent-people", "WA", "No" if truth == "Yes" else "Yes")]],
        minute=1)


def test_findings_and_known_failures_per_problem_by_its_own_size(bench):
    _two_problems_with_known_wrong_stages(bench)
    items = find_mismatches(bench.data)
    assert [(m.problem, m.size) for m in items] == [
        ("cf103119g", 2), ("cf103119g", 9), ("cf103119g", 30),
        ("insq15g", 7000), ("insq15g", 100000)]
    cf, insq = by_problem(items)
    assert (cf.problem, insq.problem) == ("cf103119g", "insq15g")
    assert [m.size for m in cf.findings] == [30]               # fast is off: a finding
    assert [m.size for m in cf.known_only] == [2, 9]           # only editorial is off
    [editorial] = cf.known
    assert (editorial.stage, editorial.cases, editorial.smallest.size) == ("editorial", 3, 2)
    assert editorial.why.startswith("Assumes positions only go losing")
    assert insq.findings == () and [k.stage for k in insq.known] == ["independent-people"]
    assert insq.known[0].smallest.size == 7000 and insq.known[0].cases == 2
    assert cf.size_measure.startswith("n + m") and insq.size_measure != cf.size_measure


def test_the_listing_folds_known_failures_into_one_line_per_stage(bench):
    _two_problems_with_known_wrong_stages(bench)
    text = format_mismatches(find_mismatches(bench.data))
    cf_part, insq_part = text.split("\n\ninsq15g (size: ")[0], text.split("\n\ninsq15g")[1]
    assert cf_part.startswith("cf103119g (size: n + m (initial length plus number of "
                              "operations)): 1 finding, 2 cases where known-wrong stages fail "
                              "as documented")
    assert cf_part.count("  input:") == 1                      # only the finding in full
    assert "  cf103119g/t/02.in (group t)  size 30  run cf-run" in cf_part
    assert ("    editorial (known wrong): wrong on 3 cases; smallest: size 2, "
            "cf103119g/t/01.in (group t), input cf103119g case 1 / size 2") in cf_part
    assert "(--all lists every case)" in cf_part
    assert insq_part.count("  input:") == 0
    assert "independent-people (known wrong): wrong on 2 cases; smallest: size 7000" in insq_part
    assert text.endswith("5 mismatching cases: 1 finding, 4 known")
    everything = format_mismatches(find_mismatches(bench.data), show_all=True)
    assert everything.count("  input:") == 5
    assert everything.index("size 2  run") < everything.index("size 9  run") < everything.index(
        "size 30  run") < everything.index("size 7000  run") < everything.index(
        "size 100000  run")
    one = format_mismatches(find_mismatches(bench.data), top=1, show_all=True)
    assert one.count("  input:") == 2
    assert "(2 more not shown: --top N shows more)" in one
    assert "(1 more not shown: --top N shows more)" in one


def test_a_case_in_several_groups_shows_its_first_source_and_every_group(bench):
    ids = bench.add_cases("arc087e", [(3, "Alice")])
    table = bench.data / "tables" / "cases" / "arc087e.parquet"
    import polars as pl

    frame = pl.read_parquet(table).with_columns(
        pl.lit(["max/a.in", "tiny/b.in"]).alias("sources"), pl.lit("max/a.in").alias("source"),
        pl.lit("max").alias("group"), pl.lit(["max", "tiny"]).alias("groups"))
    frame.write_parquet(table)
    bench.add_run("r1", "arc087e", [
        {"case_id": ids[0], "solver": s, "verdict": v, "answer": a, "wall_ms": 1.0, "size": 3}
        for s, v, a in [("fast", "AC", "Alice"), ("editorial", "WA", "Bob")]])
    [m] = find_mismatches(bench.data)
    assert m.case_groups == ("max", "tiny")
    assert format_block(m).splitlines()[0] == "  max/a.in (group max, tiny)  size 3  run r1"
