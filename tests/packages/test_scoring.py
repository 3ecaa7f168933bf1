"""Scores of cases and groups as each format's settings say, on the fixture packages."""

from __future__ import annotations

from dataclasses import replace

import pytest
from packagekit import FIXTURES

from pipeline.packages import load_package
from pipeline.packages.model import CaseResult, LegacyGrading
from pipeline.packages.scoring import aggregate, case_score
from pipeline.programs.checkers import CheckResult
from pipeline.verdicts import Verdict


def results(package, verdicts: dict[str, str], scores: dict[str, float] | None = None):
    """CaseResults for every case: AC unless `verdicts` says otherwise."""
    made = {}
    for case in package.cases:
        verdict = verdicts.get(case.name, "AC")
        score, _ = case_score(package, case, verdict, CheckResult(
            Verdict.AC if verdict == "AC" else Verdict.WA, score=(scores or {}).get(case.name)))
        made[case.name] = CaseResult(case.name, verdict, verdict, score=score)
    return made


@pytest.fixture(scope="module")
def bigsum(build_dir):
    return load_package(FIXTURES / "bigsum", build_dir)


def test_all_accepted_is_full_score(bigsum):
    total = aggregate(bigsum, results(bigsum, {}))
    assert (total.verdict, total.score) == ("AC", 100.0)
    assert total.groups["secret/group1"].score == 40.0
    assert total.groups["secret/group2"].score == 60.0


def test_a_pass_fail_group_scores_all_or_nothing_and_a_sum_group_per_case(bigsum):
    one_wrong = aggregate(bigsum, results(bigsum, {"secret/group1/2-small": "WA",
                                                   "secret/group2/1-carry": "TLE"}))
    assert one_wrong.groups["secret/group1"].score == 0.0
    assert one_wrong.groups["secret/group2"].score == 40.0
    assert (one_wrong.verdict, one_wrong.score) == ("WA", 40.0)


def test_a_group_whose_required_group_failed_scores_nothing(bigsum):
    total = aggregate(bigsum, results(bigsum, {"sample/1": "WA"}))
    assert total.groups["secret/group2"].score == 0.0  # require_pass: sample
    assert total.score == 40.0


def test_a_validators_score_replaces_the_cases_maximum(bigsum):
    case = bigsum.case("secret/group2/1-carry")
    assert case_score(bigsum, case, "AC", CheckResult(Verdict.AC, score=12.5)) == (12.5, None)
    assert case_score(bigsum, case, "AC",
                      CheckResult(Verdict.AC, score_multiplier=0.5)) == (10.0, None)
    assert case_score(bigsum, case, "AC", CheckResult(Verdict.AC)) == (20.0, None)
    assert case_score(bigsum, case, "WA", CheckResult(Verdict.WA)) == (0.0, None)
    over, error = case_score(bigsum, case, "AC", CheckResult(Verdict.AC, score=25.0))
    assert over is None and "more than the case's maximum 20" in error
    pass_fail_case = bigsum.case("secret/group1/1-tiny")
    assert "pass-fail" in case_score(bigsum, pass_fail_case, "AC",
                                     CheckResult(Verdict.AC, score=1))[1]


def test_a_min_group_scores_its_weakest_case(copy_fixture, build_dir):
    root = copy_fixture("bigsum")
    (root / "data/secret/group2/test_group.yaml").write_text("max_score: 60\n"
                                                             "score_aggregation: min\n")
    package = load_package(root, build_dir)
    assert {c.max_score for c in package.cases if c.group == "secret/group2"} == {60.0}
    total = aggregate(package, results(package, {}, {"secret/group2/2-mixed": 15.0}))
    assert total.groups["secret/group2"].score == 15.0


def test_legacy_groups_follow_the_default_grader(copy_fixture, build_dir):
    root = copy_fixture("circlearea")
    (root / "problem.yaml").write_text("name: C\ntype: scoring\nvalidation: custom\n")
    (root / "data/secret/testdata.yaml").write_text("on_reject: continue\naccept_score: 10\n"
                                                    "reject_score: 1\n")
    (root / "data/testdata.yaml").write_text("grader_flags: ignore_sample\non_reject: continue\n")
    package = load_package(root, build_dir)
    assert package.group("secret").scoring == LegacyGrading(  # keys inherited from data/
        on_reject="continue", grader_flags=("ignore_sample",), accept_score=10.0,
        reject_score=1.0)
    total = aggregate(package, results(package, {"secret/02-mid": "WA"}))
    assert (total.verdict, total.score) == ("WA", 21.0)   # 10 + 1 + 10, the sample ignored
    tle_then_wa = aggregate(package, results(package, {"secret/01-small": "WA",
                                                       "secret/03-large": "TLE"}))
    assert tle_then_wa.verdict == "TLE"                   # worst error, not the first
    (root / "data/secret/testdata.yaml").write_text("on_reject: break\naccept_score: 10\n")
    package = load_package(root, build_dir)
    stop = aggregate(package, results(package, {"secret/01-small": "WA",
                                                "secret/03-large": "TLE"}))
    assert (stop.verdict, stop.score) == ("WA", 0.0)      # nothing after the first rejection


def test_polygon_points_by_test_and_by_complete_group(build_dir):
    package = load_package(FIXTURES / "polysum", build_dir)
    assert aggregate(package, results(package, {})).score == 100.0
    small_wrong = aggregate(package, results(package, {"tests/02": "WA"}))
    assert small_wrong.groups["small"].score == 20.0
    assert small_wrong.groups["large"].score == 0.0       # depends on small
    assert small_wrong.score == 20.0
    large_wrong = aggregate(package, results(package, {"tests/04": "TLE"}))
    assert large_wrong.score == 40.0
    percent = replace(package, treat_points_as_percent=True)
    case = package.case("tests/02")
    assert case_score(percent, case, "AC", CheckResult(Verdict.AC, score=50.0)) == (10.0, None)
    assert case_score(package, case, "AC", CheckResult(Verdict.AC, score=7.0)) == (7.0, None)
