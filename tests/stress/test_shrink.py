"""The shrink loop's promises beyond the happy path: a deadline keeps the simplest failing
case so far, a pass that raises is reported (and the result not called minimal), and a
candidate the parser rejects is never judged."""

from __future__ import annotations

import time

import pytest

from pipeline.stress.judge import open_judge
from pipeline.stress.shrink import Pass, passes_for, shrink


@pytest.fixture
def judge(toy, tmp_path):
    opened = open_judge(toy, "planted", None, (), tmp_path, jobs=2)
    yield opened
    opened.close()


def failing(toy, judge, text):
    case = toy.parse(text)
    trial = judge.check([(case, text)])[0]
    assert trial.failed
    return case, trial


def test_a_deadline_already_passed_keeps_the_failing_case(toy, judge):
    case, trial = failing(toy, judge, "17 19\n")
    shrunk = shrink(toy, judge, case, trial, deadline=time.monotonic() - 1)
    assert shrunk.stopped == "deadline" and not shrunk.locally_minimal
    assert shrunk.trial.text == "17 19\n" and shrunk.trial.failed


def test_a_pass_that_raises_is_reported(toy, judge):
    def broken(case, text):
        yield "3 2\n"
        raise RuntimeError("a bug in the pass")

    case, trial = failing(toy, judge, "17 19\n")
    shrunk = shrink(toy, judge, case, trial, passes=[Pass("broken", broken)])
    assert shrunk.trial.text == "3 2\n"               # its first candidate still counted
    assert not shrunk.locally_minimal and "broken raised RuntimeError" in shrunk.stopped


def test_candidates_the_parser_rejects_are_not_judged(toy, judge):
    def invalid_first(case, text):
        yield "-1 5\n"          # below the range of a
        yield "3 x\n"           # not a number
        yield "3 2 7\n"         # a token too many
        yield "3 2\n"

    case, trial = failing(toy, judge, "17 19\n")
    shrunk = shrink(toy, judge, case, trial, passes=[Pass("invalid", invalid_first)])
    assert shrunk.trial.text == "3 2\n" and shrunk.candidates == 1


def test_the_toy_shrinks_with_the_generic_passes(toy):
    assert [p.name for p in passes_for(toy)] == ["delete-lines", "delete-tokens",
                                                 "lower-numbers", "cut-words"]
