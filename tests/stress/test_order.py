"""Simpler means: a smaller size measure, then a shorter input, then a smaller text."""

from __future__ import annotations

from pipeline.problems import get_problem
from pipeline.stress.shrink import simpler, simplicity


def test_the_size_measure_decides_first():
    problem = get_problem("cf103119g")  # size n + m
    small = problem.parse("1 3\n200\n1 200\n1 200\n2 1\n")   # size 4, long text
    big = problem.parse("3 2\n0 1 3\n2 1\n2 1\n")            # size 5, short text
    assert simpler(problem, (small, problem.render(small)), (big, problem.render(big)))


def test_then_the_length_then_the_text():
    problem = get_problem("cf103119g")
    a = "3 1\n0 1 3\n2 1\n"
    b = "3 1\n0 1 31\n2 1\n"
    c = "3 1\n0 1 2\n2 1\n"
    key = {t: simplicity(problem, problem.parse(t), t) for t in (a, b, c)}
    assert key[a] < key[b]            # same size, shorter
    assert key[c] < key[a]            # same size and length, smaller text
    assert sorted((a, b, c), key=key.get) == [c, a, b]
