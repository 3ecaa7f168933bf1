"""The `stress` bench section runs end to end on a tiny budget and records its rows (no
timing is asserted: timings belong to `make bench`)."""

from __future__ import annotations

from benchmarks import stress as stress_section
from benchmarks.common import make_context


def test_the_stress_section_records_rates_and_known_wrong_findings(tmp_path):
    ctx = make_context(tmp_path / "work", tmp_path / "bench", quick=True)
    ctx.work_dir.mkdir(parents=True)
    rates = stress_section.run_throughput(ctx, ["cf103119g"], budget_s=1.0)
    wrong = stress_section.run_known_wrong(ctx, ["cf103119g"], budget_s=20.0)
    assert ctx.failures == []
    assert rates[0]["problem"] == "cf103119g" and rates[0]["rate"] > 0
    assert wrong == [{"problem": "cf103119g", "stage": "editorial", "found": True,
                      "found_s": wrong[0]["found_s"], "size": 4}]
    metrics = {(row["metric"], row["solver"]) for row in ctx.rows}
    assert {("cases_per_s", "fast vs reference order"),
            ("cases_per_s_after_first_round", "fast vs recompute"),
            ("shrunk_size", "editorial"), ("time_to_find_s", "editorial"),
            ("goal_met", "editorial")} <= metrics
