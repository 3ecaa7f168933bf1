"""The one total order shrinking moves down: "simpler" means a smaller size measure (the
problem's own, e.g. n + m or the number of people), then a shorter judge input, then a
lexicographically smaller input text. Every step of a shrink is strictly simpler, so shrinking
ends."""

from __future__ import annotations

from pipeline.problems.model import Case, Problem

Simplicity = tuple[int, int, str]


def simplicity(problem: Problem, case: Case, text: str) -> Simplicity:
    """The key of the order: compare two keys with `<`."""
    return (problem.size(case), len(text), text)


def simpler(problem: Problem, a: tuple[Case, str], b: tuple[Case, str]) -> bool:
    """Whether (case, text) `a` is strictly simpler than `b`."""
    return simplicity(problem, *a) < simplicity(problem, *b)
