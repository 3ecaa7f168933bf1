"""The generic passes shrink a problem known only by its judge text: delete lines and tokens
(lowering a count of the first line to match), lower numbers; the problem's parser decides
which candidates are valid. Here cf103119g's `editorial` is shrunk with them alone."""

from __future__ import annotations

from stresskit import single_steps, stage_fails

from pipeline.problems import get_problem
from pipeline.stress.generic import delete_lines, delete_tokens, lower_numbers
from pipeline.stress.judge import open_judge
from pipeline.stress.shrink import Pass, shrink

GENERIC = [Pass(name, lambda case, text, edit=edit: edit(text)) for name, edit in (
    ("delete-lines", delete_lines), ("delete-tokens", delete_tokens),
    ("lower-numbers", lower_numbers))]


def a_failing_case(problem, stage, size_at_least):
    for index in range(1000):
        case = problem.generate("tiny", 1, index)
        if problem.size(case) >= size_at_least and stage_fails(problem, stage, case):
            return case
    raise AssertionError("no failing tiny case")


def test_generic_passes_give_a_valid_locally_minimal_case(tmp_path):
    problem = get_problem("cf103119g")
    case = a_failing_case(problem, "editorial", size_at_least=10)
    text = problem.render(case)
    judge = open_judge(problem, "editorial", None, (), tmp_path, jobs=2)
    try:
        trial = judge.check([(case, text)])[0]
        assert trial.failed
        shrunk = shrink(problem, judge, case, trial, passes=GENERIC)
    finally:
        judge.close()
    assert shrunk.locally_minimal and shrunk.steps > 0
    final = shrunk.trial.text
    parsed = problem.parse(final)                        # valid: n and m match the lines
    assert problem.size(parsed) < problem.size(case)
    assert stage_fails(problem, "editorial", parsed)
    steps = single_steps(problem, final, passes=GENERIC)
    assert not [t for c, t in steps if stage_fails(problem, "editorial", c)]


def test_deleting_lines_also_lowers_the_count_that_heads_them():
    text = "3 2\n5 6 7\n1 4\n2 1\n"
    candidates = list(delete_lines(text))
    assert "3 1\n5 6 7\n2 1\n" in candidates        # `1 4` deleted, m lowered by one
    assert "3 2\n5 6 7\n2 1\n" in candidates        # and without lowering it
    assert all(c.endswith("\n") for c in candidates)


def test_lower_numbers_tries_zero_one_half_and_one_less():
    assert list(lower_numbers("6\n")) == ["0\n", "1\n", "3\n", "5\n"]


def test_lower_numbers_then_takes_off_a_quarter_an_eighth_and_so_on():
    assert list(lower_numbers("100\n")) == [f"{v}\n" for v in (0, 1, 50, 75, 88, 94, 97, 99)]
    assert list(lower_numbers("-9\n")) == [f"{v}\n" for v in (0, -1, -4, -7, -8)]
    # a failure that needs a number of at least 2^31 gets there from 10^12 in a few dozen
    # steps of the boldest candidate that still fails, not one step per unit
    value, steps = 10**12, 0
    while True:
        smaller = [int(c) for c in lower_numbers(f"{value}\n") if int(c) >= 2**31]
        if not smaller:
            break
        value, steps = smaller[0], steps + 1
    assert value == 2**31 and steps < 64
