"""`stress` on the toy problem's planted bug (`planted`: a + b, plus one when a >= 3 and
b >= 2; the toy has no shrink passes of its own, so the generic text passes shrink it).

Real worker processes judge every case; minimality is checked again here, independently, by
judging every single shrink step of the kept case in this process."""

from __future__ import annotations

import io

import pytest
from stresskit import cases, findings, single_steps, stage_fails

from pipeline.progress import Status
from pipeline.stress.stress import Schedule, StressRequest, choose_recipes, stress


def run_stress(data_dir, **fields):
    request = StressRequest(**{"problem": "toy", "solver": "planted", "recipes": ("tiny",),
                               "budget_s": 60, "jobs": 2, **fields})
    return stress(data_dir, request, Status(io.StringIO()))


def test_it_finds_the_planted_bug_and_shrinks_it_to_its_smallest_case(toy, tmp_path):
    summary = run_stress(tmp_path / "data")
    assert summary.status == "stopped" and len(summary.kept) == 1
    found = summary.kept[0]
    assert found.original.failed and stage_fails(toy, "planted", toy.parse(found.original.text))
    final = found.shrunk.trial
    assert final.text == "3 2\n"
    assert final.verdict.value == "WA" and final.expected.split() == ["5"]
    assert final.solver.answer.split() == ["6"]
    assert found.shrunk.locally_minimal and found.shrunk.stopped is None


def test_the_kept_case_is_valid_and_no_single_step_keeps_the_failure(toy, tmp_path):
    summary = run_stress(tmp_path / "data", seed=5)
    text = summary.kept[0].shrunk.trial.text
    case = toy.parse(text)                      # valid, and renders back to itself
    assert toy.render(case) == text
    steps = single_steps(toy, text)
    assert steps, "the generic passes offer candidates for `3 2`"
    assert not [t for c, t in steps if stage_fails(toy, "planted", c)]


def test_the_same_seed_gives_the_same_finding_whatever_the_workers(toy, tmp_path):
    one = run_stress(tmp_path / "one", seed=11, jobs=1).kept[0]
    two = run_stress(tmp_path / "two", seed=11, jobs=2).kept[0]
    assert (one.index, one.recipe, one.recipe_index) == (two.index, two.recipe, two.recipe_index)
    assert one.original.text == two.original.text
    assert one.shrunk.trial.text == two.shrunk.trial.text
    assert one.shrunk.steps == two.shrunk.steps


def test_a_kept_finding_is_a_case_of_group_found_and_a_findings_row(toy, tmp_path):
    data = tmp_path / "data"
    summary = run_stress(data, seed=3)
    found = summary.kept[0]
    assert found.kept.path == data / "raw" / "toy" / "found" / found.kept.path.name
    assert found.kept.path.read_text() == "3 2\n"
    assert found.kept.path.with_suffix(".out").read_text().split() == ["5"]
    stored = cases(data, "toy").row(0, named=True)
    assert (stored["group"], stored["source"], stored["expected"].split()) == (
        "found", f"toy/found/{found.kept.path.name}", ["5"])
    row = findings(data).row(0, named=True)
    assert row["kind"] == "stress" and row["problem"] == "toy" and row["solver"] == "planted"
    assert row["reference"] == "brute" and row["verdict"] == "WA"
    assert row["case_id"] == stored["case_id"] and row["shrunk_size"] == 2
    assert row["original_size"] == found.original.size and row["seed"] == 3
    assert row["recipe"] == "tiny" and row["locally_minimal"] is True
    assert row["time_to_find_s"] > 0 and row["time_to_shrink_s"] >= 0


def test_it_stops_after_k_distinct_findings_or_when_the_budget_is_spent(toy, tmp_path):
    # Every failure of `planted` shrinks to `3 2`: one distinct finding, then the budget.
    summary = run_stress(tmp_path / "data", stop_after=2, budget_s=2, shrink_budget_s=5)
    assert summary.status == "budget"
    assert len(summary.kept) == 1 and len(summary.failures) >= 2
    assert all(f.shrunk.trial.text == "3 2\n" for f in summary.failures)
    assert len(findings(tmp_path / "data")) == 1


def test_a_correct_solver_spends_the_budget_without_findings(toy, tmp_path):
    summary = run_stress(tmp_path / "data", solver="fast", budget_s=1.5)
    assert summary.status == "budget" and summary.failures == []
    assert summary.judged > 0 and summary.repeated > 0  # the tiny recipe repeats itself
    assert not (tmp_path / "data" / "raw" / "toy" / "found").exists()


def test_against_names_the_reference(toy, tmp_path):
    summary = run_stress(tmp_path / "data", solver="wrong", against="fast")
    final = summary.kept[0].shrunk.trial
    assert final.reference_name == "fast" and final.text == "1 0\n"


def test_a_crash_is_a_failure_and_shrinks_keeping_the_verdict(toy, tmp_path):
    summary = run_stress(tmp_path / "data", solver="crashy")
    final = summary.kept[0].shrunk.trial
    assert final.verdict.value == "RE" and final.text == "0 0\n"


def test_recipes_by_name_or_pattern_and_the_schedule(toy):
    assert [r.name for r in choose_recipes(toy, ())] == ["tiny"]         # max left out
    assert [r.name for r in choose_recipes(toy, ("*",))] == ["tiny", "big"]
    schedule = Schedule(tuple(choose_recipes(toy, ("*",))))
    picks = [(r.name, k) for r, k in (schedule.at(i) for i in range(19))]
    assert picks[:16] == [("tiny", k) for k in range(16)]
    assert picks[16:] == [("big", 0), ("tiny", 16), ("tiny", 17)]
    with pytest.raises(KeyError, match="no recipe 'nope'"):
        choose_recipes(toy, ("nope",))
