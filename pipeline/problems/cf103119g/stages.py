"""The stages of cf103119g: the oracles `brute` (a GameSearch over the positions of each
snapshot queried) and `recompute` (the plain DAG recurrence, right to left, after each append a
query follows), the seed's known-wrong `editorial` and `fast` (the lemma that only last
occurrences can lose, run by a compiled kernel: native.c where available, else numba's)."""

from __future__ import annotations

import itertools

from pipeline.games import GameSearch
from pipeline.problems.base import Stage
from pipeline.problems.cf103119g.case import _COMPATIBLE, Case, Packed, functions, pack, parse

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


# -- fast: the lemma, by native code or numba's kernel ----------------------------------------
_KERNEL = None


def _kernel():
    """The numba kernel (compiled, or loaded from numba's cache, on first use)."""
    global _KERNEL
    if _KERNEL is None:
        import numpy as np
        from numba import njit

        @njit(cache=True)
        def run(values, flat, queries):
            n = values.shape[0]
            m = flat.shape[0] // 2
            seq = np.empty(n + m, np.int64)
            last = np.full(256, -1, np.int64)
            # Values present, linked in decreasing order of last occurrence; 256 = head.
            nxt = np.full(257, -1, np.int64)
            prv = np.full(257, -1, np.int64)
            nxt[256] = 256
            prv[256] = 256
            losing = np.zeros(256, np.bool_)
            out = np.empty(queries, np.bool_)
            length = 0
            dirty = True
            q = 0
            for t in range(n + m):
                if t < n:
                    op = 1
                    x = values[t]
                else:
                    op = flat[2 * (t - n)]
                    x = flat[2 * (t - n) + 1]
                if op == 1:
                    if last[x] >= 0:  # unlink
                        nxt[prv[x]] = nxt[x]
                        prv[nxt[x]] = prv[x]
                    first = nxt[256]  # link at the head (the rightmost last occurrence)
                    nxt[x] = first
                    prv[x] = 256
                    prv[first] = x
                    nxt[256] = x
                    last[x] = length
                    seq[length] = x
                    length += 1
                    dirty = True
                else:
                    i = x - 1
                    v = seq[i]
                    if last[v] != i:
                        out[q] = True  # an equal value later: winning by the lemma
                    else:
                        if dirty:
                            u = nxt[256]
                            while u != 256:
                                lu = last[u]
                                lose = True
                                for b in range(8):
                                    w = u ^ (1 << b)
                                    if last[w] > lu and losing[w]:
                                        lose = False
                                        break
                                losing[u] = lose
                                u = nxt[u]
                            dirty = False
                        out[q] = not losing[v]
                    q += 1
            return out

        _KERNEL = run
    return _KERNEL


def _fast(case: Case) -> tuple[bool, ...]:
    if functions() is not None:
        packed = case.packed if case.packed is not None else pack(case.values, case.ops)
        return solve_native(packed)
    return jit_fast(case)


def jit_fast(case: Case) -> tuple[bool, ...]:
    """The answers from the numba kernel (the fallback; tests compare it with native code)."""
    import numpy as np

    run = _kernel()
    values = np.array(case.values, dtype=np.int64)
    flat = np.fromiter(itertools.chain.from_iterable(case.ops), dtype=np.int64,
                       count=2 * case.m)
    queries = int(np.count_nonzero(flat[0::2] == 2))
    return tuple(run(values, flat, queries).tolist())


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
          "one-bit neighbour u with a later last occurrence loses; compiled kernel (C; "
          "numba fallback), lazy recomputation over the <= 256 last occurrences",
          "O(n + m + 2048 * queries)",
          warm_up=lambda: _fast(parse("2 2\n1 3\n1 7\n2 1\n"))),
)

