"""Expected verdicts: a misplaced submission disagrees with the cases that show it, and time
limits are derived as the formats say (that every fixture submission agrees with its folder
or tag: test_package_runs.py)."""

from __future__ import annotations

import shutil

from packagekit import FIXTURES, judged_by_run

from pipeline.packages import load_package
from pipeline.packages.expectations import (
    TimeLimit,
    bounds,
    check_expectations,
    derive_time_limit,
    verdict_at,
)
from pipeline.packages.model import CaseResult


def test_the_table_lists_submission_expected_got_agree(report):
    table = report("hypotenuse").table().splitlines()
    assert table[0].startswith("time limit 1 s: ")
    assert table[1].split() == ["submission", "expected", "got", "agree"]
    assert any(line.split()[:4] == ["time_limit_exceeded/spin_big.c", "time_limit_exceeded",
                                    "TLE", "yes"] for line in table)


def test_scores_are_held_against_submissions_yaml(report):
    agreements = {a.submission: a for a in report("bigsum").agreements}
    assert agreements["wrong_answer/int32.c"].got == "WA, score 60"
    assert agreements["accepted/sum.cpp"].got == "AC, score 100"


def test_the_legacy_time_limit_is_derived_from_the_accepted_runs(report):
    judged = report("circlearea")
    limit = judged.time_limit
    assert limit.source == "derived"
    slowest = max(r.cpu_s for name in ("accepted/area.c", "accepted/area.py")
                  for r in judged.results[name].values())
    assert limit.time_s == max(1, int(0.5 + slowest * 5))
    assert limit.high_s == max(limit.time_s + 1, int(0.5 + slowest * 5 * 2))
    assert "time_multiplier 5" in limit.how


def test_a_wrong_answer_in_the_accepted_folder_disagrees_with_the_cases_that_show_it(
        copy_fixture, tmp_path):
    root = copy_fixture("hypotenuse")
    shutil.move(root / "submissions/wrong_answer/few_digits.py",
                root / "submissions/accepted/few_digits.py")
    judged = judged_by_run(root, tmp_path / "data",
                           solvers=("accepted/few_digits.py", "accepted/hypot.py"))
    misplaced = judged.agreement("accepted/few_digits.py")
    assert misplaced.status == "disagree" and not judged.all_agree
    broken, = misplaced.disagreements
    assert broken.rule == "permitted [AC]"
    assert broken.cases == ("secret/01-unit",)  # 1.41 for 1.41421...; the rest within 1e-6
    assert all(judged.results["accepted/few_digits.py"][c].verdict == "WA" for c in broken.cases)
    assert judged.agreement("accepted/hypot.py").agrees


def test_an_accepted_submission_in_the_tle_folder_disagrees(copy_fixture, tmp_path):
    root = copy_fixture("circlearea")
    shutil.copy(root / "submissions/accepted/area.c", root / "submissions/time_limit_exceeded/"
                "fast.c")
    judged = judged_by_run(root, tmp_path / "data",
                           solvers=("accepted/area.c", "time_limit_exceeded/fast.c"))
    agreement = judged.agreement("time_limit_exceeded/fast.c")
    assert agreement.status == "disagree"
    assert agreement.disagreements[0].rule == "overall verdict TLE"
    assert agreement.got == "AC"


def test_expected_results_in_the_source_replace_the_folder(copy_fixture, build_dir, tmp_path):
    root = copy_fixture("hypotenuse")
    source = root / "submissions/accepted/maybe.py"
    source.write_text("# @EXPECTED_RESULTS@: CORRECT, WRONG-ANSWER\n" +
                      (root / "submissions/wrong_answer/few_digits.py").read_text())
    package = load_package(root, build_dir)
    assert package.submission("accepted/maybe.py").expectation.source == "source"
    judged = judged_by_run(root, tmp_path / "data", solvers=("accepted/maybe.py",))
    assert judged.agreement("accepted/maybe.py").agrees


def run(case: str, verdict: str, cpu_s: float, timed_out: bool = False) -> CaseResult:
    return CaseResult(case, "TLE" if timed_out else verdict, verdict, cpu_s=cpu_s,
                      timed_out=timed_out)


def test_verdicts_are_judged_again_at_any_time_limit():
    result = run("a", "AC", 0.8)
    assert (verdict_at(result, 1.0), verdict_at(result, 0.5)) == ("AC", "TLE")
    assert verdict_at(run("a", "WA", 3.0, timed_out=True), 10.0) == "TLE"
    assert verdict_at(CaseResult("a", "JE", "JE", cpu_s=9.0), 1.0) == "JE"


def test_the_2025_time_limit_is_the_next_multiple_of_the_resolution(copy_fixture, build_dir):
    root = copy_fixture("hypotenuse")
    (root / "problem.yaml").write_text("problem_format_version: 2025-09\nname: H\nlimits:\n"
                                       "  time_resolution: 0.5\n  time_multipliers:\n"
                                       "    ac_to_time_limit: 3\n    time_limit_to_tle: 2\n")
    package = load_package(root, build_dir)
    runs = {"accepted/hypot.py": {"x": run("x", "AC", 0.4)},
            "wrong_answer/few_digits.py": {"x": run("x", "WA", 0.55)},
            "time_limit_exceeded/spin_big.c": {"x": run("x", "TLE", 5.0, timed_out=True)}}
    limit = derive_time_limit(package, runs)
    assert limit.time_s == 2.0        # 0.55 (wrong answers bound it too) x 3 -> 1.65 -> 2.0
    assert (limit.low_s, limit.high_s) == (2.0 / 3, 4.0)
    assert limit.conflict is None
    runs["time_limit_exceeded/spin_big.c"] = {"x": run("x", "AC", 3.0)}
    assert "exceeds the fastest time_limit_exceeded" in derive_time_limit(package, runs).conflict


def test_a_submission_right_only_within_the_margin_is_sensitive_to_the_time_limit(build_dir):
    package = load_package(FIXTURES / "hypotenuse", build_dir)
    program = package.submission("accepted/hypot.py")
    results = {c.name: run(c.name, "AC", 0.1) for c in package.cases}
    results["secret/04-max"] = run("secret/04-max", "AC", 0.7)   # over the 0.5 s low limit
    limit = TimeLimit(1.0, 0.5, 1.5, "given", "test")
    agreement = check_expectations(package, program, results, limit)
    assert agreement.agrees
    assert agreement.sensitive.startswith("sensitive to time limit: limit of 0.5 s -> TLE")


def test_judge_errors_are_never_held_against_the_submission(build_dir):
    package = load_package(FIXTURES / "hypotenuse", build_dir)
    program = package.submission("accepted/hypot.py")
    results = {c.name: run(c.name, "AC", 0.1) for c in package.cases}
    results["secret/02-triple"] = CaseResult("secret/02-triple", "JE", "JE", message="validator "
                                             "crashed")
    agreement = check_expectations(package, program, results, TimeLimit(1, .5, 1.5, "given", ""))
    assert agreement.status == "judge-error"
    assert agreement.disagreements[0].cases == ("secret/02-triple",)


def test_a_run_at_a_higher_limit_is_judged_again_as_a_run_at_the_lower_one(report):
    """`judged_at`: a real run judged at a high limit gets, at a lower one, the verdict and the
    score judging it there would give (the derivation pass's runs stand as the results)."""
    from dataclasses import replace

    from pipeline.packages.judge import judged_at

    judged = report("bigsum")
    package = judged.package
    accepted = judged.results["accepted/sum.py"]
    scored = next(r for r in accepted.values() if r.score)
    assert scored.verdict == "AC"
    same = judged_at(package, scored, 10.0)
    assert (same.verdict, same.score, same.time_limit_s) == ("AC", scored.score, 10.0)
    slow = replace(scored, cpu_s=2.5)
    again = judged_at(package, slow, 1.0)
    assert (again.verdict, again.untimed_verdict, again.score) == ("TLE", "AC", 0.0)
    assert again.message == "CPU time 2.500 s, over the 1 s limit"
    assert verdict_at(slow, 1.0) == again.verdict
    first_wa = replace(slow, untimed_verdict="WA", verdict="WA", validator_first_wa=True)
    assert judged_at(package, first_wa, 1.0).verdict == "WA"
    stopped = replace(scored, timed_out=True, verdict="TLE")
    assert judged_at(package, stopped, 10.0).verdict == "TLE"


def test_a_submission_stopped_at_its_first_failure_is_held_to_what_it_could_still_meet(
        copy_fixture, build_dir):
    """--fail-fast stops a submission at its first failing case. A rule that some case in its
    scope get a verdict (`required`) or a judge message (`message`) is met when a case in
    scope was never run (it could have), as BAPCtools holds a submission it stopped; a case
    that ran and broke a `permitted` rule still disagrees. Without the cases not run the same
    results break both rules."""
    root = copy_fixture("hypotenuse")
    (root / "submissions" / "submissions.yaml").write_text(
        "wrong_answer/few_digits.py:\n  message: Too large difference\n"
        "  secret/*max:\n    required: [AC]\n  sample:\n    permitted: [AC]\n")
    package = load_package(root, build_dir)
    program = package.submission("wrong_answer/few_digits.py")
    names = [case.name for case in package.cases]
    ran = {"secret/01-unit": run("secret/01-unit", "WA", 0.1)}
    not_run = frozenset(names) - set(ran)
    limit = TimeLimit(1.0, 0.5, 2.0, "given", "test")
    assert check_expectations(package, program, ran, limit, not_run).agrees
    broken = check_expectations(package, program, ran, limit)
    assert {d.rule for d in broken.disagreements} == {
        "required [AC] on secret/*max", "message 'Too large difference'"}
    wrong_sample = {**ran, "sample/1": run("sample/1", "WA", 0.1)}
    held = check_expectations(package, program, wrong_sample, limit, not_run - {"sample/1"})
    assert [d.rule for d in held.disagreements] == ["permitted [AC] on sample"]


# -- use_for_time_limit per test group, under a folder's key too -----------------------------------

_TIMED_BY_GROUP = """\
# a folder's key with rules per test group (BAPCtools' testexpectations writes it so)
tle:
  sample:
    use_for_time_limit: lower
  secret:
    use_for_time_limit: upper
"""


def _package_timed_by_group(copy_fixture, build_dir, rules: str):
    root = copy_fixture("hypotenuse")
    (root / "problem.yaml").write_text("problem_format_version: 2025-09\nname: H\n"
                                       "uuid: 8ee7605a-0000-4000-8000-000000000002\n")
    (root / "submissions" / "tle").mkdir()
    shutil.copy(root / "submissions/accepted/hypot.py", root / "submissions/tle/sleepy.py")
    (root / "submissions" / "submissions.yaml").write_text(rules)
    return load_package(root, build_dir)


def test_the_rules_of_a_folders_key_hold_per_test_group(copy_fixture, build_dir):
    """`lower` is a `permitted: [AC, WA, RTE]` rule and `upper` a `required: [TLE]` one (the
    2025-09 format), each on its group: under a folder's own key they are kept, not dropped."""
    package = _package_timed_by_group(copy_fixture, build_dir, _TIMED_BY_GROUP)
    rules = package.submission("tle/sleepy.py").expectation.requirements
    assert {(r.scope, r.use_for_time_limit, r.permitted, r.required) for r in rules} == {
        ("sample", "lower", frozenset({"AC", "WA", "RE"}), None),
        ("secret", "upper", None, frozenset({"TLE"}))}


def test_a_submission_bounds_the_time_limit_only_on_the_groups_its_rules_say(
        copy_fixture, build_dir):
    """Its sample runs bound the derived limit from below (3 s x ac_to_time_limit 2: 6 s,
    where the accepted one's 0.1 s gives 1 s), its secret runs from above (a secret run over
    the probe does not raise the limit, as BAPCtools' time_limit derives it); the fastest of
    its secret runs is the upper bound a limit x time_limit_to_tle must stay under."""
    package = _package_timed_by_group(copy_fixture, build_dir, _TIMED_BY_GROUP)
    sleepy = package.submission("tle/sleepy.py")
    assert bounds(package, sleepy, "sample/1") == (True, False)
    assert bounds(package, sleepy, "secret/03-big") == (False, True)
    accepted = package.submission("accepted/hypot.py")
    assert bounds(package, accepted, "secret/03-big") == (True, False)
    runs = {"accepted/hypot.py": {"secret/03-big": run("secret/03-big", "AC", 0.1)},
            "tle/sleepy.py": {"sample/1": run("sample/1", "AC", 3.0),
                              "secret/03-big": run("secret/03-big", "TLE", 10.0, timed_out=True),
                              "secret/02-small": run("secret/02-small", "AC", 8.0)}}
    limit = derive_time_limit(package, runs)
    assert limit.time_s == 6.0 and "tle/sleepy.py on sample/1" in limit.how
    assert limit.conflict is None       # its slowest secret run (stopped) is over 6 x 1.5
    runs["tle/sleepy.py"]["secret/03-big"] = run("secret/03-big", "AC", 8.5)
    assert "exceeds the fastest time_limit_exceeded" in derive_time_limit(package, runs).conflict
    # without the group rules it would be no bound at all; a `false` opts a group out
    (package.root / "submissions" / "submissions.yaml").write_text(
        "tle:\n  sample:\n    use_for_time_limit: false\n")
    plain = load_package(package.root, build_dir)
    assert bounds(plain, plain.submission("tle/sleepy.py"), "sample/1") == (False, False)
