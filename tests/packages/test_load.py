"""Loading packages: each fixture's content, zips, format detection, and broken packages.

Every broken variant is a real copy of a fixture with one thing wrong, and the error must name
the file (and line where there is one) and the rule broken.
"""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest
from packagekit import FIXTURES

from pipeline.packages import PackageError, detect, load_package
from pipeline.packages.model import KattisGroupScoring, LegacyGrading, PolygonGroupScoring

# -- the fixtures as loaded ----------------------------------------------------------------------

def test_formats_are_detected_from_problem_yaml_and_problem_xml(tmp_path):
    assert detect(FIXTURES / "circlearea") == "legacy"
    assert detect(FIXTURES / "hypotenuse") == "2025-09"
    assert detect(FIXTURES / "guess") == "2023-07"
    assert detect(FIXTURES / "bigsum") == "2025-09"
    assert detect(FIXTURES / "polysum") == "polygon"
    assert detect(tmp_path) is None
    (tmp_path / "notes.txt").write_text("no package here\n")
    assert detect(tmp_path / "notes.txt") is None


def test_a_legacy_package_derives_its_time_limit_and_uses_its_custom_validator(build_dir):
    package = load_package(FIXTURES / "circlearea", build_dir)
    assert (package.short_name, package.title, package.format) == ("circlearea", "Circle Area",
                                                                   "legacy")
    assert package.type.name == "pass-fail"
    limits = package.limits
    assert (limits.time_s, limits.time_source) == (None, "derive")
    assert (limits.ac_to_time_limit, limits.time_limit_to_tle, limits.memory_mb) == (5, 2, 512)
    assert [c.name for c in package.cases] == ["sample/1", "secret/01-small", "secret/02-mid",
                                               "secret/03-large"]
    assert [c.sample for c in package.cases] == [True, False, False, False]
    assert package.output_validator.name == "relerror"
    assert package.output_validator.language == "python3"
    assert [v.name for v in package.input_validators] == ["validate.py"]
    grading = package.group("secret").scoring
    assert isinstance(grading, LegacyGrading) and grading.on_reject == "break"
    expected = {p.name: p.expectation.requirements[0].final_verdict for p in package.submissions}
    assert expected == {"accepted/area.c": "AC", "accepted/area.py": "AC",
                        "run_time_error/recursion.py": "RE",
                        "time_limit_exceeded/slow_large.cpp": "TLE",
                        "wrong_answer/pi_is_three.py": "WA"}
    assert {p.name: p.language for p in package.submissions}["accepted/area.c"] == "c"


def test_a_2025_package_reads_its_time_limit_group_args_and_submissions_yaml(build_dir):
    package = load_package(FIXTURES / "hypotenuse", build_dir)
    assert (package.format, package.limits.time_s, package.limits.time_source) == (
        "2025-09", 1.0, "given")
    assert package.output_validator is None  # the default output validator
    assert {c.output_validator_args for c in package.cases} == {("float_tolerance", "1e-6")}
    few = package.submission("wrong_answer/few_digits.py").expectation
    assert few.source == "folder + submissions.yaml"
    rules = {(r.scope, r.permitted, r.required, r.message) for r in few.requirements}
    assert ("", frozenset({"AC", "WA"}), frozenset({"WA"}), None) in rules
    assert ("", None, None, "Too large difference") in rules
    assert ("sample", frozenset({"AC"}), None, None) in rules
    rejected = package.submission("rejected/overflow.c").expectation
    assert rejected.requirements[0].required == frozenset({"RE", "TLE", "WA"})


def test_an_interactive_2023_package_needs_and_has_its_validator(build_dir):
    package = load_package(FIXTURES / "guess", build_dir)
    assert package.type.interactive and package.format == "2023-07"
    assert package.output_validator.path.name == "output_validator"
    assert package.case("sample/1").interaction is not None
    assert len(package.cases) == 5


def test_a_scoring_package_shares_each_groups_maximum_among_its_cases(build_dir):
    package = load_package(FIXTURES / "bigsum", build_dir)
    secret, group1, group2 = (package.group(n) for n in ("secret", "secret/group1",
                                                         "secret/group2"))
    assert secret.scoring == KattisGroupScoring("sum", 100.0, False, ())
    assert group1.scoring == KattisGroupScoring("pass-fail", 40.0, True, ())
    assert group2.scoring == KattisGroupScoring("sum", 60.0, True, ("sample",))
    assert [c.max_score for c in package.cases if c.group == "secret/group2"] == [20.0] * 3
    assert not any(c.scored for c in package.cases if c.group == "secret/group1")
    assert package.case("secret/group1/1-tiny").validator_args("validate.py") == ("small",)
    assert package.submission("wrong_answer/int32.c").expectation.requirements[1].score == (60, 60)


def test_a_polygon_package_generates_its_missing_tests_with_its_generator(build_dir):
    package = load_package(FIXTURES / "polysum", build_dir)
    assert (package.format, package.title, package.limits.time_s, package.limits.memory_mb) == (
        "polygon", "Polygon Sum", 1.0, 256)
    assert package.checker.convention == "testlib"
    assert [c.name for c in package.cases] == ["tests/01", "tests/02", "tests/03", "tests/04"]
    first, *generated = package.cases
    assert first.input_path == FIXTURES / "polysum" / "tests" / "01" and first.sample
    for case, (n, bound) in zip(generated, ((5, 10), (8, 1000), (100, 10**12))):
        assert case.generated_by.startswith("gen ")
        assert build_dir in case.input_path.parents  # generated into the build folder
        numbers = case.input_path.read_text().split()
        assert int(numbers[0]) == n and len(numbers) == n + 1
        assert all(abs(int(x)) <= bound for x in numbers[1:])
        assert int(case.answer_path.read_text()) == sum(map(int, numbers[1:]))
    assert [c.points for c in package.cases] == [0, 20, 20, 60]
    large = package.group("large").scoring
    assert large == PolygonGroupScoring(60.0, "complete-group", "icpc", ("small",))
    tags = {p.name: p.expectation.label for p in package.submissions}
    assert tags["solutions/main.cpp"] == "main" and tags["solutions/hog.cpp"] == \
        "memory-limit-exceeded"
    assert {p.language for p in package.submissions} == {"cpp", "c", "python3"}


def test_generated_polygon_tests_are_made_once_and_found_again(build_dir):
    first = load_package(FIXTURES / "polysum", build_dir)
    again = load_package(FIXTURES / "polysum", build_dir)
    assert [c.input_path for c in first.cases] == [c.input_path for c in again.cases]
    assert first.cases[3].input_path.read_text() == again.cases[3].input_path.read_text()


def test_a_zipped_package_loads_like_its_folder(tmp_path, build_dir):
    archive = tmp_path / "hypotenuse.zip"
    with zipfile.ZipFile(archive, "w") as out:
        for path in (FIXTURES / "hypotenuse").rglob("*"):
            if path.is_file():
                out.write(path, Path("hypotenuse") / path.relative_to(FIXTURES / "hypotenuse"))
    assert detect(archive) == "2025-09"
    package = load_package(archive, build_dir)
    assert package.short_name == "hypotenuse"
    assert [c.name for c in package.cases] == [c.name for c in load_package(
        FIXTURES / "hypotenuse", build_dir).cases]


def test_a_zip_member_outside_the_package_is_refused(tmp_path, build_dir):
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as out:
        out.writestr("problem.yaml", "name: Evil\n")
        out.writestr("../outside.txt", "x\n")
    with pytest.raises(PackageError) as error:
        load_package(archive, build_dir)
    assert error.value.rule == "zip-path" and error.value.file == "evil.zip"


# -- broken packages: file, line and rule --------------------------------------------------------

def _error(path: Path, build_dir: Path) -> PackageError:
    with pytest.raises(PackageError) as caught:
        load_package(path, build_dir)
    return caught.value


def test_an_input_without_its_answer_is_that_case_alone_not_judged(copy_fixture, build_dir):
    """`bt run` warns "Found input file ... without a .ans file. Skipping." and judges the
    rest (problemtools reports it and judges on): a reject of that case, named as a case the
    package holds but that is not judged."""
    root = copy_fixture("hypotenuse")
    (root / "data/secret/02-triple.ans").unlink()
    package = load_package(root, build_dir)
    [error] = package.rejects
    assert (error.file, error.rule) == ("data/secret/02-triple.in", "missing-answer")
    assert "secret/02-triple" in str(error) and "not judged" in str(error)
    assert package.unjudged_cases == (error,)
    names = [c.name for c in package.cases]
    assert "secret/02-triple" not in names and any(n.startswith("secret/") for n in names)


def test_an_answer_without_its_input_is_that_case_alone_not_judged(copy_fixture, build_dir):
    """`bt run` judges the cases it has; the answer without its input is a reject of its own
    case, named as a case the package holds but that is not judged."""
    root = copy_fixture("circlearea")
    (root / "data/secret/04-orphan.ans").write_text("1\n")
    package = load_package(root, build_dir)
    [error] = package.rejects
    assert (error.file, error.rule) == ("data/secret/04-orphan.ans", "missing-input")
    assert package.unjudged_cases == (error,)
    assert [c.name for c in package.cases] == ["sample/1", "secret/01-small", "secret/02-mid",
                                               "secret/03-large"]


def test_broken_yaml_names_the_line(copy_fixture, build_dir):
    root = copy_fixture("hypotenuse")
    (root / "problem.yaml").write_text("problem_format_version: 2025-09\nname: [unclosed\n"
                                       "limits:\n  memory: 512\n")
    error = _error(root, build_dir)
    assert (error.file, error.rule) == ("problem.yaml", "yaml-syntax")
    assert error.line in (2, 3, 4)


@pytest.mark.parametrize("fixture, text, rule, line", [
    ("hypotenuse", "problem_format_version: 2025-09\nname: H\nlimits:\n  memory: -5\n",
     "limits.memory", 4),
    ("hypotenuse", "problem_format_version: 2025-09\nname: H\ntype: [pass-fail, scoring]\n",
     "type", 3),
    ("hypotenuse", "problem_format_version: 2031-01\nname: H\n", "problem_format_version", 1),
    ("hypotenuse", "problem_format_version: 2025-09\nname: H\nlimits:\n  time_multipliers:\n"
     "    ac_to_time_limit: 0.5\n", "limits.time_multipliers.ac_to_time_limit", 5),
    ("circlearea", "name: C\nvalidation: custom sometimes\n", "validation", 2),
    ("circlearea", "name: C\ntype: ranked\n", "type", 2),
])
def test_bad_problem_yaml_names_the_rule_and_line(copy_fixture, build_dir, fixture, text, rule,
                                                  line):
    root = copy_fixture(fixture)
    (root / "problem.yaml").write_text(text)
    error = _error(root, build_dir)
    assert (error.file, error.rule, error.line) == ("problem.yaml", rule, line)


def test_a_validator_beside_validation_default_is_noted_and_the_default_judges(copy_fixture,
                                                                               build_dir):
    """problemtools reports `validation: default` with output_validators/ holding a validator
    and judges with its default validator; so does the pipeline, in one note at the line."""
    root = copy_fixture("circlearea")
    (root / "problem.yaml").write_text("name: C\nlimits:\n  memory: 512\nvalidation: default\n")
    package = load_package(root, build_dir)
    assert package.output_validator is None and len(package.cases) == 4
    [note] = [n for n in package.notes if "unused-output-validator" in n]
    assert note.startswith("problem.yaml:4: rule unused-output-validator: validation is "
                           "default, so output_validators/ is not used: the default output "
                           "validator judges"), note
    assert "validation: custom" not in note and "\n" not in note


def test_a_bad_verdict_in_submissions_yaml_is_named(copy_fixture, build_dir):
    root = copy_fixture("hypotenuse")
    (root / "submissions/submissions.yaml").write_text(
        "accepted/hypot.py:\n  permitted: [AC, OK]\n")
    error = _error(root, build_dir)
    assert (error.file, error.rule, error.line) == ("submissions/submissions.yaml", "permitted", 2)


def test_a_package_without_an_accepted_submission_needs_the_time_limit_given(copy_fixture,
                                                                            build_dir):
    """circlearea (legacy) derives its time limit from its accepted submissions: without them
    it is refused, saying where a limit is given; with DOMjudge's .timelimit it loads."""
    root = copy_fixture("circlearea")
    shutil.rmtree(root / "submissions/accepted")
    error = _error(root, build_dir)
    assert (error.file, error.rule) == ("problem.yaml", "missing-accepted")
    assert "gives no time limit" in error.message and ".timelimit file" in error.message
    (root / ".timelimit").write_text("2\n")
    package = load_package(root, build_dir)
    assert package.limits.time_s == 2.0
    assert sorted(p.name.split("/")[0] for p in package.submissions) == [
        "run_time_error", "time_limit_exceeded", "wrong_answer"]


def test_a_scoring_key_in_a_pass_fail_package_is_refused(copy_fixture, build_dir):
    root = copy_fixture("hypotenuse")
    (root / "data/secret/test_group.yaml").write_text("max_score: 10\n")
    error = _error(root, build_dir)
    assert (error.file, error.rule, error.line) == ("data/secret/test_group.yaml",
                                                    "scoring-only-key", 1)


def test_a_2025_group_without_max_score_under_a_bounded_secret_is_refused(copy_fixture, build_dir):
    root = copy_fixture("bigsum")
    (root / "data/secret/group1/test_group.yaml").write_text("input_validator_args: [small]\n")
    error = _error(root, build_dir)
    assert error.rule == "max_score" and "secret/group1" in error.message


def test_an_interactive_package_without_a_validator_is_refused(copy_fixture, build_dir):
    root = copy_fixture("guess")
    shutil.rmtree(root / "output_validator")
    assert _error(root, build_dir).rule == "missing-output-validator"


def test_polygon_problems_are_named_in_problem_xml(copy_fixture, build_dir):
    root = copy_fixture("polysum")
    xml = (root / "problem.xml").read_text()
    (root / "problem.xml").write_text(xml.replace('tag="failed"', 'tag="sometimes"'))
    error = _error(root, build_dir)
    assert (error.file, error.rule) == ("problem.xml", "solution-tag")
    (root / "problem.xml").write_text(xml.replace('cmd="gen 5 1 10"', 'cmd="maker 5 1 10"'))
    error = _error(root, build_dir)
    assert error.rule == "unknown-generator" and "maker" in error.message
    (root / "problem.xml").write_text(xml.replace('cmd="gen 5 1 10"', 'cmd="gen 5 \'1 10"'))
    error = _error(root, build_dir)  # an unclosed quote: a refusal naming it, not a traceback
    assert (error.file, error.rule) == ("problem.xml", "generator-command")
    assert "gen 5 '1 10" in error.message and "No closing quotation" in error.message
    (root / "problem.xml").write_text(xml.replace("<test-count>4", "<test-count>5"))
    assert _error(root, build_dir).rule == "test-count"
    (root / "problem.xml").write_text(xml[:200])
    error = _error(root, build_dir)
    assert error.rule == "xml-syntax" and error.line is not None


def test_a_manual_polygon_test_that_is_missing_is_named(copy_fixture, build_dir):
    root = copy_fixture("polysum")
    (root / "tests/01").unlink()
    error = _error(root, build_dir)
    assert (error.file, error.rule) == ("tests/01", "missing-test")


def test_an_unknown_key_is_read_past_with_a_note_naming_its_file_and_line(copy_fixture,
                                                                          build_dir):
    """As problemtools warns and goes on: a package written for a newer format or another
    tool (a key this loader does not know) still loads, and says what it ignored."""
    root = copy_fixture("hypotenuse")
    yaml = root / "problem.yaml"
    yaml.write_text(yaml.read_text() + "colour: blue\n")
    lines = yaml.read_text().splitlines()
    package = load_package(root, build_dir)
    assert package.title and package.submissions
    assert f"problem.yaml:{len(lines)}: unknown key 'colour' in problem.yaml; known: " in \
        "\n".join(package.notes)
    assert any(n.endswith("(ignored)") for n in package.notes)


def test_a_test_case_whose_name_holds_a_dot_keeps_its_whole_name(tmp_path):
    """`data/secret/1.5-edge.in` is the case `secret/1.5-edge` with its own answer file (the
    part after the dot is no extension)."""
    from packagekit import tiny_kattis

    root = tiny_kattis(tmp_path / "dotted", {"data/secret/1.5-edge.in": "7 8\n",
                                              "data/secret/1.5-edge.ans": "15\n"})
    package = load_package(root, tmp_path / "build")
    [case] = [c for c in package.cases if "1.5-edge" in c.name]
    assert case.name == "secret/1.5-edge"
    assert case.input_path.name == "1.5-edge.in" and case.answer_path.read_text() == "15\n"
