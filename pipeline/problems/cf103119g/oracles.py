"""The oracles of cf103119g: `brute` (a GameSearch over the positions of each snapshot queried)
and `recompute` (the plain DAG recurrence, right to left, after each append a query follows)."""

from __future__ import annotations

from pipeline.games import GameSearch
from pipeline.problems.cf103119g.case import _COMPATIBLE, Case

BRUTE_MAX_SIZE = 60


def _brute_refuses(case: Case) -> str | None:
    if case.n + case.m > BRUTE_MAX_SIZE:
        return f"n + m = {case.n + case.m} is above {BRUTE_MAX_SIZE}"
    return None


def _brute(case: Case) -> tuple[bool, ...]:
    """GameSearch over the positions of the current sequence, one search per snapshot."""
    sequence = list(case.values)
    answers = []
    search = None
    for op, k in case.ops:
        if op == 1:
            sequence.append(k)
            search = None
            continue
        if search is None:
            snapshot = tuple(sequence)

            def moves(i: int, s: tuple[int, ...] = snapshot) -> list[int]:
                return [j for j in range(i + 1, len(s)) if (s[i] ^ s[j]).bit_count() <= 1]

            search = GameSearch(moves, max_states=len(snapshot) + 1)
        answers.append(search.is_winning(k - 1))
    return tuple(answers)


RECOMPUTE_MAX_WORK = 2_000_000


def _recompute_work(case: Case) -> int:
    """Sum of the lengths recomputed: one per query that follows an append (or the start)."""
    work = 0
    length = case.n
    dirty = True
    for op, _ in case.ops:
        if op == 1:
            length += 1
            dirty = True
        elif dirty:
            work += length
            dirty = False
    return work


def _recompute_refuses(case: Case) -> str | None:
    work = _recompute_work(case)
    if work > RECOMPUTE_MAX_WORK:
        return f"total recomputed length {work} is above {RECOMPUTE_MAX_WORK}"
    return None


def _win_table(sequence: list[int]) -> list[bool]:
    """win[i] for every position, right to left: some compatible later position loses."""
    win = [False] * len(sequence)
    losing_value = [False] * 256  # some position to the right with this value loses
    for i in range(len(sequence) - 1, -1, -1):
        v = sequence[i]
        wins = any(losing_value[u] for u in _COMPATIBLE[v])
        win[i] = wins
        if not wins:
            losing_value[v] = True
    return win


def _recompute(case: Case) -> tuple[bool, ...]:
    sequence = list(case.values)
    answers = []
    win = None
    for op, k in case.ops:
        if op == 1:
            sequence.append(k)
            win = None
        else:
            if win is None:
                win = _win_table(sequence)
            answers.append(win[k - 1])
    return tuple(answers)
