"""The stages of cf103119g: the oracles `brute` (a GameSearch over the positions of each
snapshot queried) and `recompute` (the plain DAG recurrence, right to left, after each append a
query follows), the seed's known-wrong `editorial` and `fast` (the lemma that only last
occurrences can lose, run by native.c's kernel; where it is unavailable `fast` refuses)."""

from __future__ import annotations

from pipeline.games import GameSearch
from pipeline.problems.base import Stage
from pipeline.problems.cf103119g.case import (
    _COMPATIBLE,
    Case,
    Packed,
    functions,
    kernel_refuses,
    pack,
    parse,
)

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


# -- editorial (known wrong): the seed's buckets, assuming losing -> winning only --------------
def _editorial(case: Case) -> tuple[bool, ...]:
    """The seed's buckets of losing positions, assuming losing -> winning only."""
    winning: list[bool] = []
    buckets: list[list[int]] = [[] for _ in range(256)]

    def append(x: int) -> None:
        i = len(winning)
        winning.append(False)  # nothing after it yet
        for u in _COMPATIBLE[x]:
            bucket = buckets[u]
            for j in bucket:  # every earlier losing compatible position can move to i
                winning[j] = True
            bucket.clear()
        buckets[x].append(i)

    for v in case.values:
        append(v)
    answers = []
    for op, k in case.ops:
        if op == 1:
            append(k)
        else:
            answers.append(winning[k - 1])
    return tuple(answers)


# -- fast: the lemma, by native.c's kernel ---------------------------------------------------
def _fast(case: Case) -> tuple[bool, ...]:
    return solve_native(case.packed if case.packed is not None else pack(case.values, case.ops))


def solve_native(packed: Packed) -> tuple[bool, ...]:
    """Whether the position of each query wins, in order."""
    from pipeline.native.bulk import address, zeroed

    library = functions()
    out = zeroed("B", packed.m)
    base = address(packed.tokens)
    queries = library.cf103119g_solve(packed.n, base + 8 * 2, packed.m,
                                      base + 8 * (2 + packed.n), address(out))
    if queries == -2:
        raise MemoryError("cf103119g: native kernel ran out of memory")
    return tuple(map(bool, out[:queries]))


STAGES = (
    Stage("brute", _brute,
          "GameSearch.is_winning over the positions of the sequence at each query "
          "(moves: every later position whose value differs in at most one bit)",
          "O(L^2) per distinct snapshot queried",
          limits=f"n + m <= {BRUTE_MAX_SIZE}", refuses=_brute_refuses),
    Stage("recompute", _recompute,
          "after an append that a query follows, recompute win/lose of every position right "
          "to left with the DAG recurrence (values of losing positions to the right)",
          "O(9 L) per recomputation",
          limits=f"sum of recomputed lengths <= {RECOMPUTE_MAX_WORK}",
          refuses=_recompute_refuses),
    Stage("editorial", _editorial,
          "seed editorial: per-value buckets of losing positions; an append is losing and "
          "turns the losing positions in its 9 compatible buckets winning for good",
          "O(9 (n + m)) amortised",
          counterexample=lambda: parse("3 1\n0 1 3\n2 1\n")),
    Stage("fast", _fast,
          "lemma: only last occurrences can lose; a last occurrence of v loses iff no "
          "one-bit neighbour u with a later last occurrence loses; compiled kernel (C), lazy "
          "recomputation over the <= 256 last occurrences",
          "O(n + m + 2048 * queries)", limits="native.c available", refuses=kernel_refuses),
)

