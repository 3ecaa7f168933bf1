"""cf103119g: Game on Sequence (Codeforces Gym 103119 G, ICPC Macau 2020).

The game
--------
A sequence A_1 .. A_L of bytes (0..255) grows by appends.  A token starts on position k; the
players (Grammy first, then Alice) alternately move it from position i to any later position
j > i whose value differs from A_i in at most one bit (popcount(A_i ^ A_j) <= 1, so equal
values are always compatible).  Whoever cannot move loses.  Each query `2 k` asks who wins on
the sequence as it stands at that moment; `1 k` appends k.

Every move goes right, so the positions form a DAG and, for a fixed sequence, position i wins
iff some compatible j > i loses.  The last position always loses.

Why the seed's monotonicity argument fails
------------------------------------------
The seed editorial claims that appending only adds options, so positions only ever go from
losing to winning.  Adding an option can indeed only help, but an append also changes the
*values* of existing options: a losing option can become winning, and a position whose only
losing option turns winning becomes losing.  Smallest instance (7 tokens, found by exhaustive
search by token count; no input with 6 or fewer tokens can show it, because such an input never
holds more than two elements, where the seed's method is exact):

    3 1 / 0 1 3 / 2 1          true answer Alice, seed's method Grammy

On 0 1: position 1 (value 0) moves to the last position and wins.  Appending 3 makes position 2
(value 1) winning (it moves to 3), and position 1 now only reaches winning positions (0 ^ 3 has
two bits), so it loses.  The official sample shows the same flip (its third answer).

The lemma behind the fast method
--------------------------------
(1) If the value v occurs at i and again at some j > i, position i wins.  If j loses, move to
    j.  If j wins, j has a losing option k > j with A_k compatible with A_j = v; then k > i and
    A_k is compatible with A_i = v, so i can move to k.
(2) Hence only the last occurrence of each value can lose.  Let p = last[v].  Its options
    j > p have values u != v (v does not occur after p); an option that loses is, by (1), the
    last occurrence of its value u.  So p wins iff some u with popcount(u ^ v) == 1 has
    last[u] > last[v] and the last occurrence of u loses.  Conversely any such u is an option.
(3) This decides the at most 256 last occurrences in decreasing order of position, each with
    8 neighbour lookups: O(256 * 8) per recomputation, independent of the length.

Stages
------
- `brute`: for every query, `GameSearch.is_winning` over the positions of the sequence as it is
  at that moment (moves: every compatible later position).  Nothing but the rules.
- `recompute`: after an append that a query follows, recompute the win/lose table of every
  position right to left (the plain DAG recurrence; the set of values of losing positions to
  the right answers "is there a losing compatible option" in 9 look-ups, so O(9 L) per
  recomputation instead of O(L^2); it does not use the lemma).
- `editorial`: the seed's incremental method as described: per-value buckets of losing
  positions; an appended position is losing and turns every earlier losing position in its
  9 compatible buckets winning, removing them for good.  The initial values go through the
  same append step (the seed's code skips that and calls every initial position losing).
  Wrong, see above.
- `fast`: the lemma, run by a numba kernel over all operations: last occurrences are kept in
  a linked list ordered by position (O(1) per append) and their states recomputed lazily, only
  when a query asks about a last occurrence after an append (a query on an earlier occurrence
  of its value is winning at once).  O((n + m) + 2048 * queries) worst case.
"""

from __future__ import annotations

import gc
import itertools
import random
import re
from dataclasses import dataclass

from pipeline.errors import InputError
from pipeline.games import GameSearch
from pipeline.problems.base import Problem, Recipe, Stage
from pipeline.problems.tokens import TokenReader, check_words

MAX_N = 200_000
MAX_M = 200_000
MAX_VALUE = 255

# Compatible values of each byte: itself and its 8 one-bit neighbours.
_COMPATIBLE: tuple[tuple[int, ...], ...] = tuple(
    (v,) + tuple(v ^ (1 << b) for b in range(8)) for v in range(256))

_INTEGER = re.compile(r"-?[0-9]+")


# --------------------------------------------------------------------------------------------
# Case
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Case:
    """The initial values and the operations, each `(1, value)` or `(2, position)`."""

    values: tuple[int, ...]
    ops: tuple[tuple[int, int], ...]

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def m(self) -> int:
        return len(self.ops)

    @property
    def appends(self) -> int:
        return sum(1 for op, _ in self.ops if op == 1)

    @property
    def queries(self) -> int:
        return sum(1 for op, _ in self.ops if op == 2)


# --------------------------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------------------------
def parse(text: str) -> Case:
    """Judge input -> Case; InputError naming the line and the rule for any violation."""
    gc_was_enabled = gc.isenabled()
    gc.disable()  # building 2e5 small tuples otherwise triggers many useless collections
    try:
        case = _parse_fast(text)
        if case is not None:
            return case
        return _parse_slow(text)
    finally:
        if gc_was_enabled:
            gc.enable()


_VECTORISE_FROM = 20_000  # operations; below this numpy's import costs more than it saves


def _parse_fast(text: str) -> Case | None:
    """The happy path: bulk conversion; None on any doubt (the slow path then explains)."""
    try:
        reader = TokenReader(text)
        tokens = reader.tokens
        if len(tokens) < 2:
            return None
        n = _read_int(reader, "n", 1, MAX_N)
        m = _read_int(reader, "m", 1, MAX_M)
        if len(tokens) != 2 + n + 2 * m:
            return None
        values = reader.ints(n, "A_i", 0, MAX_VALUE)
        flat = reader.ints(2 * m, "op or k")
    except (InputError, ValueError):
        return None
    kinds = flat[0::2]
    args = flat[1::2]
    if m >= _VECTORISE_FROM:
        if not _ops_valid_numpy(n, flat):
            return None
    else:
        length = n
        for op, k in zip(kinds, args):
            if op == 1:
                if not 0 <= k <= MAX_VALUE:
                    return None
                length += 1
            elif op == 2:
                if not 1 <= k <= length:
                    return None
            else:
                return None
    return Case(tuple(values), tuple(zip(kinds, args)))


def _ops_valid_numpy(n: int, flat: list[int]) -> bool:
    """The same checks as the loop of `_parse_fast`, vectorised."""
    import numpy as np

    if min(flat) < 0 or max(flat) > MAX_N + MAX_M:  # also keeps the int64 conversion safe
        return False
    array = np.array(flat, dtype=np.int64)
    kinds = array[0::2]
    args = array[1::2]
    appends = kinds == 1
    queries = kinds == 2
    if not (appends | queries).all() or not (args[appends] <= MAX_VALUE).all():
        return False
    # A query may ask about any position up to the length at that moment.
    lengths = n + np.cumsum(appends)
    return bool((args[queries] >= 1).all() and (args[queries] <= lengths[queries]).all())


def _read_int(reader: TokenReader, name: str, low: int | None, high: int | None) -> int:
    """One integer with a range check; absurdly long tokens are range errors, not crashes."""
    index = reader.index
    token = reader.word(name)
    if not _INTEGER.fullmatch(token):
        raise reader.error(index, f"{name} should be an integer, found {token!r}",
                           rule="not-an-integer", with_column=True)
    if len(token.lstrip("-").lstrip("0")) > 30:
        raise reader.error(index, f"{name} = {token[:12]}... ({len(token)} characters) is "
                           "out of range", rule="range")
    value = int(token)
    if low is not None and value < low:
        raise reader.error(index, f"{name} = {value} is below {low}", rule="range")
    if high is not None and value > high:
        raise reader.error(index, f"{name} = {value} is above {high}", rule="range")
    return value


def _parse_slow(text: str) -> Case:
    """Token by token, with a precise error for the first violation."""
    reader = TokenReader(text)
    n = _read_int(reader, "n", 1, MAX_N)
    m = _read_int(reader, "m", 1, MAX_M)
    values = tuple(_read_int(reader, f"A_{i + 1}", 0, MAX_VALUE) for i in range(n))
    ops = []
    length = n
    for j in range(m):
        index = reader.index
        op = _read_int(reader, f"op of operation {j + 1}", None, None)
        if op not in (1, 2):
            raise reader.error(index, f"operation {j + 1}: op = {op} is neither 1 nor 2",
                               rule="range")
        if op == 1:
            k = _read_int(reader, f"k of operation {j + 1} (append)", 0, MAX_VALUE)
            length += 1
        else:
            k = _read_int(reader, f"k of operation {j + 1} (query)", 1, None)
            if k > length:
                raise reader.error(reader.index - 1, f"operation {j + 1}: query position "
                                   f"k = {k} is above the current length {length}",
                                   rule="range")
        ops.append((op, k))
    reader.end()
    return Case(values, tuple(ops))


def render(case: Case) -> str:
    lines = [f"{case.n} {case.m}", " ".join(map(str, case.values))]
    lines.extend(f"{op} {k}" for op, k in case.ops)
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# Answers
# --------------------------------------------------------------------------------------------
def format_answer(case: Case, answer: tuple[bool, ...]) -> str:
    """One line per query: Grammy (first player wins) or Alice; "" when there is no query."""
    if not answer:
        return ""
    return "\n".join("Grammy" if win else "Alice" for win in answer) + "\n"


def validate_answer(case: Case, text: str) -> None:
    check_words(text, case.queries, ("Grammy", "Alice"))


# --------------------------------------------------------------------------------------------
# Sizes
# --------------------------------------------------------------------------------------------
def size(case: Case) -> int:
    return case.n + case.m


def size_columns(case: Case) -> dict[str, int]:
    appends = case.appends
    return {"initial": case.n, "operations": case.m, "appends": appends,
            "queries": case.m - appends, "final_length": case.n + appends}


# --------------------------------------------------------------------------------------------
# Stages
# --------------------------------------------------------------------------------------------
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
        wins = False
        for u in _COMPATIBLE[v]:
            if losing_value[u]:
                wins = True
                break
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


_KERNEL = None


def _kernel():
    """The numba kernel (numba imported and the cached compile loaded on first use)."""
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
    import numpy as np

    run = _kernel()
    values = np.array(case.values, dtype=np.int64)
    flat = np.fromiter(itertools.chain.from_iterable(case.ops), dtype=np.int64,
                       count=2 * case.m)
    queries = int(np.count_nonzero(flat[0::2] == 2))
    return tuple(run(values, flat, queries).tolist())


_EDITORIAL_WRONG = ("Assumes positions only go losing -> winning as the sequence grows, but an "
                    "append can turn a losing option winning and so a winning position losing: "
                    "on 3 1 / 0 1 3 / 2 1 it answers Grammy, the truth is Alice.")

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
          "O(9 (n + m)) amortised", known_wrong=_EDITORIAL_WRONG),
    Stage("fast", _fast,
          "lemma: only last occurrences can lose; a last occurrence of v loses iff no "
          "one-bit neighbour u with a later last occurrence loses; numba kernel, lazy "
          "recomputation over the <= 256 last occurrences",
          "O(n + m + 2048 * queries)", warm_up=lambda: _fast(parse("2 2\n1 3\n1 7\n2 1\n"))),
)


# --------------------------------------------------------------------------------------------
# Recipes
# --------------------------------------------------------------------------------------------
# An induced 16-cycle of the 8-cube (a "coil"): consecutive values differ in one bit, others in
# at least two.  Walking it, each append flips the state of every last occurrence on it.
COIL = (0, 1, 3, 7, 15, 31, 63, 127, 255, 254, 252, 248, 240, 224, 192, 128)
GRAY = tuple(i ^ (i >> 1) for i in range(256))


def _small_pool(rng: random.Random) -> list[int]:
    kind = rng.randrange(5)
    if kind == 0:
        return list(range(4))
    if kind == 1:
        return list(range(8))
    if kind == 2:  # a random 3-dimensional subcube
        base = rng.randrange(256)
        bits = rng.sample(range(8), 3)
        return sorted({base ^ sum(1 << bits[b] for b in range(3) if mask >> b & 1)
                       for mask in range(8)})
    if kind == 3:  # a stretch of the coil
        start = rng.randrange(16)
        return [COIL[(start + i) % 16] for i in range(rng.randint(3, 6))]
    return rng.sample(range(16), rng.randint(2, 6))


def _random_ops(rng: random.Random, values: list[int], m: int, pool: list[int],
                p_append: float, p_last: float = 0.5) -> list[tuple[int, int]]:
    """m operations; queries hit the last occurrence of some value with probability p_last."""
    last = {v: i for i, v in enumerate(values)}
    length = len(values)
    ops = []
    for _ in range(m):
        if rng.random() < p_append:
            v = rng.choice(pool)
            ops.append((1, v))
            last[v] = length
            length += 1
        elif rng.random() < p_last:
            ops.append((2, last[rng.choice(list(last))] + 1))
        else:
            ops.append((2, rng.randint(1, length)))
    return ops


def _make_random(rng: random.Random, n: int, m: int, pool: list[int],
                 p_append: float) -> Case:
    values = [rng.choice(pool) for _ in range(n)]
    return Case(tuple(values), tuple(_random_ops(rng, values, m, pool, p_append)))


def _tiny(rng: random.Random) -> Case:
    pool = _small_pool(rng)
    return _make_random(rng, rng.randint(1, 8), rng.randint(1, 10), pool, rng.random())


def _queries_only(rng: random.Random) -> Case:
    n = rng.randint(1, 14)
    values = [rng.choice(_small_pool(rng)) for _ in range(n)]
    ops = [(2, k) for k in range(1, n + 1)]
    ops += [(2, rng.randint(1, n)) for _ in range(rng.randint(0, 5))]
    return Case(tuple(values), tuple(ops))


def _all_equal(rng: random.Random) -> Case:
    v = rng.randrange(256)
    n = rng.randint(1, 10)
    return _make_random(rng, n, rng.randint(1, 20), [v], 0.5)


def _single_element(rng: random.Random) -> Case:
    pool = _small_pool(rng)
    v = rng.choice(pool)
    if rng.random() < 0.3:
        return Case((v,), ((2, 1),))
    return Case((v,), tuple(_random_ops(rng, [v], rng.randint(1, 12), pool, 0.5)))


def _no_queries(rng: random.Random) -> Case:
    pool = _small_pool(rng)
    n = rng.randint(1, 10)
    return Case(tuple(rng.choice(pool) for _ in range(n)),
                tuple((1, rng.choice(pool)) for _ in range(rng.randint(1, 10))))


def _coil_walk(rng: random.Random, n: int, m: int) -> Case:
    """Values walk the coil; after every append, query the last occurrences of coil values."""
    start = rng.randrange(16)
    values = [COIL[(start + i) % 16] for i in range(n)]
    last = {v: i for i, v in enumerate(values)}
    step = n
    ops: list[tuple[int, int]] = []
    length = n
    while len(ops) < m:
        v = COIL[(start + step) % 16]
        step += 1
        ops.append((1, v))
        last[v] = length
        length += 1
        for _ in range(rng.randint(1, 3)):
            if len(ops) < m:
                ops.append((2, last[rng.choice(list(last))] + 1))
    return Case(tuple(values), tuple(ops[:m]))


def _coil_flip(rng: random.Random) -> Case:
    return _coil_walk(rng, rng.randint(1, 17), rng.randint(1, 40))


def _alternating(rng: random.Random, n: int, m: int, pool: list[int]) -> Case:
    values = [rng.choice(pool) for _ in range(n)]
    last = {v: i for i, v in enumerate(values)}
    length = n
    ops: list[tuple[int, int]] = []
    for t in range(m):
        if t % 2 == 0:
            v = rng.choice(pool)
            ops.append((1, v))
            last[v] = length
            length += 1
        elif rng.random() < 0.5:
            ops.append((2, last[rng.choice(list(last))] + 1))
        else:
            ops.append((2, rng.randint(1, length)))
    return Case(tuple(values), tuple(ops))


def _family_alternating(rng: random.Random) -> Case:
    base = rng.randrange(256)
    bits = rng.sample(range(8), rng.randint(3, 6))
    pool = sorted({base ^ sum(1 << b for i, b in enumerate(bits) if mask >> i & 1)
                   for mask in range(1 << len(bits))})
    return _alternating(rng, rng.randint(50, 400), rng.randint(100, 800), pool)


def _family_dense(rng: random.Random) -> Case:
    return _make_random(rng, rng.randint(100, 1000), rng.randint(100, 1000),
                        list(range(16)), rng.uniform(0.2, 0.8))


def _family_coil(rng: random.Random) -> Case:
    return _coil_walk(rng, rng.randint(20, 300), rng.randint(100, 600))


def _np_rng(rng: random.Random):
    import numpy as np

    return np.random.default_rng(rng.getrandbits(64))


def _alternating_ops(rng: random.Random, values: list[int], m: int, gen) -> list:
    """Appends of random bytes alternating with queries (half on last occurrences)."""
    appended = gen.integers(0, 256, (m + 1) // 2).tolist()
    last = [-1] * 256
    for i, v in enumerate(values):
        last[v] = i
    length = len(values)
    ops = []
    a = 0
    for t in range(m):
        if t % 2 == 0:
            v = appended[a]
            a += 1
            ops.append((1, v))
            last[v] = length
            length += 1
        elif rng.random() < 0.5:
            v = rng.randrange(256)
            while last[v] < 0:
                v = rng.randrange(256)
            ops.append((2, last[v] + 1))
        else:
            ops.append((2, rng.randint(1, length)))
    return ops


def _max_alternating_case(rng: random.Random) -> Case:
    gen = _np_rng(rng)
    values = gen.integers(0, 256, MAX_N).tolist()
    return Case(tuple(values), tuple(_alternating_ops(rng, values, MAX_M, gen)))


def _max_adversarial(rng: random.Random) -> Case:
    """All 256 values present (Gray-code walks); appends walk the coil, each flipping every
    coil value, and every query asks about a last occurrence, forcing a full recomputation."""
    shift = rng.randrange(256)
    values = [GRAY[(shift + i) % 256] for i in range(MAX_N)]
    last = [0] * 256
    for i, v in enumerate(values):
        last[v] = i
    length = MAX_N
    start = rng.randrange(16)
    ops = []
    for t in range(MAX_M):
        if t % 2 == 0:
            v = COIL[(start + t // 2) % 16]
            ops.append((1, v))
            last[v] = length
            length += 1
        else:
            v = COIL[rng.randrange(16)] if rng.random() < 0.5 else rng.randrange(256)
            ops.append((2, last[v] + 1))
    return Case(tuple(values), tuple(ops))


def _max_all_equal(rng: random.Random) -> Case:
    v = rng.randrange(256)
    length = MAX_N
    ops = []
    for t in range(MAX_M):
        if t % 2 == 0:
            ops.append((1, v))
            length += 1
        elif rng.random() < 0.5:
            ops.append((2, length))
        else:
            ops.append((2, rng.randint(1, length)))
    return Case((v,) * MAX_N, tuple(ops))


def _max_queries_only(rng: random.Random) -> Case:
    gen = _np_rng(rng)
    values = gen.integers(0, 16, MAX_N).tolist()
    last = {v: i for i, v in enumerate(values)}
    present = sorted(last)
    ops = []
    for _ in range(MAX_M):
        if rng.random() < 0.5:
            ops.append((2, last[rng.choice(present)] + 1))
        else:
            ops.append((2, rng.randint(1, MAX_N)))
    return Case(tuple(values), tuple(ops))


RECIPES = (
    Recipe("tiny", "tiny", "n <= 8, m <= 10, values from a small pool (0..3, 0..7, a 3-cube, "
           "a stretch of the coil, a few of 0..15), random appends and queries", _tiny),
    Recipe("queries-only", "edge", "no appends: every position queried, then a few more",
           _queries_only),
    Recipe("all-equal", "edge", "one value everywhere, appends of it and queries", _all_equal),
    Recipe("single-element", "edge", "n = 1, sometimes the single query 2 1", _single_element),
    Recipe("no-queries", "edge", "appends only: the output is empty", _no_queries),
    Recipe("coil-flip", "edge", "values walk an induced 16-cycle of the cube; each append "
           "flips every last occurrence on it (winning -> losing too)", _coil_flip),
    Recipe("alternating", "family", "n <= 400, m <= 800, append/query alternating, values in "
           "a random 3..6-dimensional subcube", _family_alternating),
    Recipe("values-dense", "family", "n, m <= 1000, values 0..15, random mix", _family_dense),
    Recipe("coil-walk", "family", "n <= 300, m <= 600 walking the 16-cycle, queries on last "
           "occurrences", _family_coil),
    Recipe("max-alternating", "max", "n = m = 2e5, random bytes, append/query alternating",
           _max_alternating_case),
    Recipe("max-adversarial", "max", "n = m = 2e5, all 256 values present, appends walk the "
           "coil (each flips 16 states), every query on a last occurrence", _max_adversarial),
    Recipe("max-all-equal", "max", "n = m = 2e5, one value, append/query alternating",
           _max_all_equal),
    Recipe("max-queries-only", "max", "n = m = 2e5, values 0..15, queries only",
           _max_queries_only),
)

PROBLEM = Problem(
    id="cf103119g",
    title="Game on Sequence",
    source="Codeforces Gym 103119 G (ICPC Macau 2020)",
    time_limit_s=4.0,
    parse=parse,
    render=render,
    format_answer=format_answer,
    validate_answer=validate_answer,
    size=size,
    size_columns=size_columns,
    size_measure="n + m (initial length plus number of operations)",
    stages=STAGES,
    recipes=RECIPES,
)
