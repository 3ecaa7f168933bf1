"""Grading an answer that ran to completion: the verdict and what differs."""

from __future__ import annotations

from pipeline.verdicts import FAILURES, Verdict, grade


def test_grading_against_the_expected_answer(toy):
    compare = toy.compare
    assert grade("3\n", "3\n", compare) == (Verdict.AC, None)
    assert grade("  3 \r\n", "3\n", compare) == (Verdict.AC, None)  # tokens, not bytes
    assert grade("4\n", "3\n", compare) == (Verdict.WA, "token 1: expected '3', got '4'")
    assert grade("3 3\n", "3\n", compare) == (Verdict.WA, "expected 1 tokens, got 2")
    assert grade("3\n", None, compare) == (Verdict.NOEXP, None)
    assert grade(None, "3\n", compare) == (Verdict.RE, "no output")


def test_the_verdicts_are_a_closed_set_and_print_as_their_names():
    assert [str(v) for v in Verdict] == ["AC", "WA", "TLE", "MLE", "RE", "OLE", "CE", "JE",
                                         "SKIP", "NOEXP"]
    # A judge error is the judge's fault, never the solver's; skipped and unjudged cases are
    # not failures either.
    assert {Verdict.AC, Verdict.SKIP, Verdict.NOEXP, Verdict.JE}.isdisjoint(FAILURES)
    assert FAILURES == {Verdict.WA, Verdict.TLE, Verdict.MLE, Verdict.RE, Verdict.OLE,
                        Verdict.CE}
