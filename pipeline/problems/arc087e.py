"""arc087e: Prefix-free Game (AtCoder ARC087 E, task arc087_c).

The game
--------
A set of binary strings is *good* when every string has length 1..L and no string is a prefix
of another. Starting from a good set S, the players alternately add one new string so that the
set stays good; whoever cannot add loses (normal play). Output `Alice` when the first player
wins.

Theory
------
Draw the binary strings of length <= L as the complete binary tree of depth L (the root is the
empty string, which is never a legal move). Put S in a trie. A trie node that is the end of
some s_i blocks its whole subtree, and every trie node above it is blocked too (it is a prefix
of s_i). What is left free is a union of *complete* subtrees: for each trie node v that is not
the end of a string (so v is the root or a strict prefix of some s_i) and each child slot of v
that the trie does not use, the whole subtree under that missing child is free. If v has depth
d, that free subtree has h = L - d levels. Moves in different free subtrees never interact, so
the position is a sum of games, one per missing child, and its Grundy value is the XOR of the
free subtrees' values G(h).

In a free subtree of height h, choosing the node at relative depth k (1 <= k <= h; k = 1 is the
subtree's root) blocks that node, its subtree and the path above it; what stays free are the
siblings of the path's nodes below the root, which are free subtrees of heights
h-1, h-2, ..., h-k+1. Hence

    G(h) = mex { G(h-1) ^ G(h-2) ^ ... ^ G(h-k+1) : k = 1..h }     (k = 1 gives 0).

This gives 1, 2, 1, 4, 1, 2, 1, 8, ..., i.e. G(h) = lowbit(h), the lowest set bit of h (checked
here for h up to the `grundy` stage's table, and for h <= 4 against the brute search itself).
Only the parity of the number of free subtrees of each height matters. A further shortcut used
by `fast`: at depth d the number of missing children is 2*I_d - C_{d+1}, where I_d counts the
trie nodes at depth d that are not string ends and C_{d+1} counts all trie nodes at depth d+1
(each has exactly one parent, which is not an end). So its parity is the parity of C_{d+1}, the
number of distinct prefixes of length d+1 among the s_i, and the answer is

    Alice  iff  XOR over d = 0..maxlen-1 with C_{d+1} odd of lowbit(L - d)  !=  0.

Stages
------
- `brute`: `GameSearch.is_winning` over the game's own states, the frozenset of strings; a move
  adds any binary string of length 1..L that keeps the set good. The states reachable from S are
  exactly the good supersets of S; their number is counted beforehand by a plain recursion over
  the depth-L tree (no game theory) and the stage refuses when L > 8 or that count exceeds
  20 000. All good sets with L <= 3 (676 at most) are within reach, and sparse ones with L = 4.
- `grundy` (middle oracle): builds the trie, collects the heights of the free subtrees, and
  takes their values from a table G(h) computed by the mex recursion above (no lowbit formula).
  The table is O(h) numpy work per height, cached; the stage refuses L > 10 000.
- `editorial`: the seed editorial's method, as described there: the trie walk collects the free
  subtree heights, heights occurring an even number of times cancel, and each remaining height
  gets its Grundy value by the editorial's repeated divide-by-4 rule (with v = h - 1: while
  v % 4 == 3 divide v by 4 and multiply the result by 4; then the value is 2 * that factor if
  v % 4 == 1, else the factor). The editorial's prose says choosing depth d leaves trees of
  heights "k, k-1, ..., k+1-d", which is off by one (it is k-1, ..., k-d in its own height
  convention; its worked example and its code use the right heights).
- `fast`: sorts the strings, gets C_{k} for every k from adjacent longest common prefixes with a
  difference array (a string with LCP l to its sorted predecessor adds one new trie node at
  each depth l+1..|s|), and XORs lowbit(L - d) over the depths d with C_{d+1} odd. O(total
  length + sort), pure Python.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from pipeline.errors import BeyondLimits, InputError
from pipeline.games import GameSearch
from pipeline.problems.base import Problem, Recipe, Stage
from pipeline.problems.tokens import TokenReader, check_words

MAX_N = 10**5
MAX_L = 10**18
MAX_TOTAL = 10**5


# ---------------------------------------------------------------------------------------------
# Case, parse, render
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Case:
    """One judge input: the length bound L and the strings s_1..s_N in input order."""

    L: int
    strings: tuple[str, ...]

    @property
    def n(self) -> int:
        return len(self.strings)


def _show(s: str) -> str:
    """A string for an error message, shortened when long."""
    if len(s) <= 32:
        return f'"{s}"'
    return f'"{s[:24]}..." (length {len(s)})'


def parse(text: str) -> Case:
    reader = TokenReader(text)
    n = reader.int("N", 1, MAX_N)
    big_l = reader.int("L", 1, MAX_L)
    start = reader.index
    strings = reader.tokens[start:start + n]
    if len(strings) == n and len(reader.tokens) == start + n and _quick_ok(strings, big_l):
        return Case(big_l, tuple(strings))
    return _parse_slow(reader, n, big_l)


def parse_slow(text: str) -> Case:
    """`parse` without the wholesale fast path (tests check both give the same case)."""
    reader = TokenReader(text)
    n = reader.int("N", 1, MAX_N)
    big_l = reader.int("L", 1, MAX_L)
    return _parse_slow(reader, n, big_l)


def _quick_ok(strings: list[str], big_l: int) -> bool:
    """All constraints hold (checked wholesale); False means "let the slow path find out"."""
    lengths = list(map(len, strings))
    if sum(lengths) > MAX_TOTAL or max(lengths) > big_l:
        return False
    joined = "".join(strings)
    if joined.count("0") + joined.count("1") != len(joined):
        return False
    if len(set(strings)) != len(strings):
        return False
    ordered = sorted(strings)
    # In sorted order a string that is a prefix of another is a prefix of its successor.
    return not any(b.startswith(a) for a, b in zip(ordered, ordered[1:]))


def _parse_slow(reader: TokenReader, n: int, big_l: int) -> Case:
    """Sequential validation: the first broken rule, in reading order, is the one reported."""
    # Trie over the strings read so far: children, the index of the string ending at a node
    # (-1 if none) and the index of one string passing through it.
    child0: list[int] = [-1]
    child1: list[int] = [-1]
    end: list[int] = [-1]
    through: list[int] = [-1]
    token_index: list[int] = []
    strings: list[str] = []
    total = 0
    for i in range(n):
        index = reader.index
        name = f"s_{i + 1}"
        s = reader.word(name)
        token_index.append(index)
        for offset, ch in enumerate(s):
            if ch != "0" and ch != "1":
                line, column = reader.locate(index)
                raise InputError(line, f"{name} = {_show(s)} has character {ch!r} outside "
                                 "{0, 1}", rule="alphabet", column=column + offset)
        if len(s) > big_l:
            raise reader.error(index, f"|{name}| = {len(s)} is above L = {big_l}", rule="range")
        total += len(s)
        if total > MAX_TOTAL:
            raise reader.error(index, f"|s_1| + ... + |{name}| = {total} is above {MAX_TOTAL}",
                               rule="sum-limit")
        node = 0
        created = False
        for ch in s:
            if end[node] >= 0:
                j = end[node]
                raise reader.error(index, f"{name} = {_show(s)} has s_{j + 1} = "
                                   f"{_show(strings[j])} (line {reader.line_of(token_index[j])})"
                                   " as a prefix", rule="prefix")
            children = child0 if ch == "0" else child1
            nxt = children[node]
            if nxt < 0:
                nxt = len(end)
                children[node] = nxt
                child0.append(-1)
                child1.append(-1)
                end.append(-1)
                through.append(i)
                created = True
            node = nxt
        if end[node] >= 0:
            j = end[node]
            raise reader.error(index, f"{name} = {_show(s)} duplicates s_{j + 1} (line "
                               f"{reader.line_of(token_index[j])})", rule="duplicate")
        if not created:
            j = through[node]
            raise reader.error(index, f"{name} = {_show(s)} is a prefix of s_{j + 1} = "
                               f"{_show(strings[j])} (line {reader.line_of(token_index[j])})",
                               rule="prefix")
        end[node] = i
        strings.append(s)
    reader.end()
    return Case(big_l, tuple(strings))


def render(case: Case) -> str:
    return f"{case.n} {case.L}\n" + "\n".join(case.strings) + "\n"


# ---------------------------------------------------------------------------------------------
# Answers and sizes
# ---------------------------------------------------------------------------------------------

def format_answer(case: Case, answer: bool) -> str:
    return "Alice\n" if answer else "Bob\n"


def validate_answer(case: Case, text: str) -> None:
    check_words(text, 1, ("Alice", "Bob"))


def size(case: Case) -> int:
    return sum(map(len, case.strings))


def size_columns(case: Case) -> dict[str, int]:
    lengths = list(map(len, case.strings))
    return {"strings": len(lengths), "total_length": sum(lengths), "max_length": max(lengths),
            "L_bits": case.L.bit_length()}


# ---------------------------------------------------------------------------------------------
# brute: search over sets of strings
# ---------------------------------------------------------------------------------------------

BRUTE_MAX_L = 8
BRUTE_MAX_STATES = 20_000


def good_superset_count(case: Case) -> int:
    """How many good sets contain S (= the states reachable from S), by direct counting."""
    chosen = set(case.strings)
    above = {s[:k] for s in case.strings for k in range(1, len(s))}
    big_l = case.L

    def ways(p: str) -> int:  # choices inside the subtree of p, given nothing above p is chosen
        if p in chosen:
            return 1
        below = ways(p + "0") * ways(p + "1") if len(p) < big_l else 1
        return below if p in above else below + 1

    return ways("0") * ways("1")


def _brute_refuses(case: Case) -> str | None:
    if case.L > BRUTE_MAX_L:
        return f"L = {case.L} is above {BRUTE_MAX_L}"
    count = good_superset_count(case)
    if count > BRUTE_MAX_STATES:
        return f"{count} reachable sets is above {BRUTE_MAX_STATES}"
    return None


@lru_cache(maxsize=None)
def _all_strings(big_l: int) -> tuple[str, ...]:
    out = []
    for length in range(1, big_l + 1):
        out.extend(format(x, f"0{length}b") for x in range(2 ** length))
    return tuple(out)


@lru_cache(maxsize=4096)
def _conflicts(s: str, big_l: int) -> frozenset[str]:
    """The strings (length 1..L) that cannot coexist with s in a good set: its prefixes,
    itself and its extensions."""
    return frozenset(t for t in _all_strings(big_l) if t.startswith(s) or s.startswith(t))


def _brute_search(big_l: int) -> GameSearch:
    candidates = _all_strings(big_l)

    def moves(state: frozenset[str]) -> Iterable[frozenset[str]]:
        blocked: set[str] = set()
        for s in state:
            blocked |= _conflicts(s, big_l)
        for t in candidates:
            if t not in blocked:
                yield state | {t}

    return GameSearch(moves, max_states=2 * BRUTE_MAX_STATES)


def solve_brute(case: Case) -> bool:
    return _brute_search(case.L).is_winning(frozenset(case.strings))


def brute_grundy(case: Case) -> int:
    """The Grundy value of the whole position by search (used to check the theory in tests)."""
    reason = _brute_refuses(case)
    if reason is not None:
        raise BeyondLimits(f"brute_grundy: {reason}")
    return _brute_search(case.L).grundy(frozenset(case.strings))


# ---------------------------------------------------------------------------------------------
# The trie decomposition shared by grundy and editorial
# ---------------------------------------------------------------------------------------------

def free_subtree_heights(case: Case) -> dict[int, int]:
    """height -> number of free complete subtrees of that height (one per missing child of a
    trie node that is not the end of a string; a missing child of a node at depth d has
    L - d levels)."""
    child0 = [-1]
    child1 = [-1]
    depth = [0]
    is_end = [False]
    for s in case.strings:
        node = 0
        for ch in s:
            children = child0 if ch == "0" else child1
            nxt = children[node]
            if nxt < 0:
                nxt = len(depth)
                children[node] = nxt
                child0.append(-1)
                child1.append(-1)
                depth.append(depth[node] + 1)
                is_end.append(False)
            node = nxt
        is_end[node] = True
    heights: dict[int, int] = {}
    big_l = case.L
    for node in range(len(depth)):
        if is_end[node]:
            continue
        missing = (child0[node] < 0) + (child1[node] < 0)
        if missing:
            h = big_l - depth[node]
            heights[h] = heights.get(h, 0) + missing
    return heights


# ---------------------------------------------------------------------------------------------
# grundy: mex recursion over heights of free subtrees
# ---------------------------------------------------------------------------------------------

GRUNDY_MAX_L = 10_000
_G_TABLE: list[int] = [0]  # _G_TABLE[h] = G(h); G(0) = 0 (an empty game) is never used


def grundy_table(limit: int) -> list[int]:
    """[G(0), G(1), ..., G(limit)] by the mex recursion over the free-subtree game."""
    import numpy as np

    table = _G_TABLE
    if len(table) > limit:
        return table[:limit + 1]
    # prefix[m] = G(1) ^ ... ^ G(m); the option "choose depth k" of height h has value
    # G(h-1) ^ ... ^ G(h-k+1) = prefix[h-1] ^ prefix[h-k], k = 1..h, i.e. prefix[h-1] ^ prefix[m]
    # for m = 0..h-1.
    prefix = np.zeros(limit + 1, dtype=np.int64)
    for m in range(1, len(table)):
        prefix[m] = prefix[m - 1] ^ table[m]
    for h in range(len(table), limit + 1):
        values = prefix[:h] ^ prefix[h - 1]
        seen = np.zeros(h + 2, dtype=bool)
        seen[values[values <= h + 1]] = True
        g = int(np.argmin(seen))
        table.append(g)
        prefix[h] = prefix[h - 1] ^ g
    return table[:limit + 1]


def _grundy_refuses(case: Case) -> str | None:
    if case.L > GRUNDY_MAX_L:
        return f"L = {case.L} is above {GRUNDY_MAX_L}"
    return None


def solve_grundy(case: Case) -> bool:
    heights = free_subtree_heights(case)
    table = grundy_table(case.L)
    total = 0
    for h, count in heights.items():
        if count & 1:
            total ^= table[h]
    return total != 0


# ---------------------------------------------------------------------------------------------
# editorial: divide-by-4 rule
# ---------------------------------------------------------------------------------------------

def editorial_value(h: int) -> int:
    """The seed's rule for the Grundy value of a free subtree with h >= 1 levels."""
    v = h - 1  # the editorial counts heights from 0 (a single node)
    factor = 1
    while v % 4 == 3:
        v //= 4
        factor *= 4
    return 2 * factor if v % 4 == 1 else factor


def solve_editorial(case: Case) -> bool:
    total = 0
    for h, count in free_subtree_heights(case).items():
        if count & 1:
            total ^= editorial_value(h)
    return total != 0


# ---------------------------------------------------------------------------------------------
# fast: parity of distinct prefixes per depth
# ---------------------------------------------------------------------------------------------

def solve_fast(case: Case) -> bool:
    ordered = sorted(case.strings)
    maxlen = max(map(len, ordered))
    diff = [0] * (maxlen + 2)
    prev = ""
    for s in ordered:
        n = min(len(prev), len(s))
        lcp = 0
        while lcp < n and prev[lcp] == s[lcp]:
            lcp += 1
        # s brings new trie nodes at depths lcp+1 .. |s|
        diff[lcp + 1] += 1
        diff[len(s) + 1] -= 1
        prev = s
    big_l = case.L
    nodes = 0
    total = 0
    for d in range(maxlen):
        nodes += diff[d + 1]  # trie nodes at depth d + 1
        if nodes & 1:
            h = big_l - d
            total ^= h & -h
    return total != 0


# ---------------------------------------------------------------------------------------------
# Recipes
# ---------------------------------------------------------------------------------------------

def _random_bits(rng: random.Random, length: int) -> str:
    if length <= 0:
        return ""
    return format(rng.getrandbits(length), f"0{length}b")


def _insertion_set(rng: random.Random, big_l: int, attempts: int, max_len: int) -> list[str]:
    """A random good set: try random strings, keep those compatible with the ones kept."""
    kept: list[str] = []
    for _ in range(attempts):
        t = _random_bits(rng, rng.randint(1, max_len))
        if all(not (t.startswith(s) or s.startswith(t)) for s in kept):
            kept.append(t)
    if not kept:
        kept.append(_random_bits(rng, rng.randint(1, max_len)))
    return kept


def _tree_set(rng: random.Random, max_len: int, budget: int, p_leaf: float,
              p_missing: float) -> list[str]:
    """A random good set grown top-down: each slot is a string, left empty, or split.

    The total length stays within `budget`; the set is never empty."""
    out: list[str] = []
    total = 0
    stack = ["1", "0"]
    while stack:
        p = stack.pop()
        r = rng.random()
        if total + len(p) > budget or r < p_missing:
            continue
        if len(p) == max_len or r < p_missing + p_leaf:
            out.append(p)
            total += len(p)
        else:
            stack.append(p + "1")
            stack.append(p + "0")
    if not out:
        out.append(_random_bits(rng, rng.randint(1, max_len)))
    return out


def _pick_l(rng: random.Random, low: int) -> int:
    """A bound L >= low: often the minimum, a power of two or near one, or huge."""
    kind = rng.randrange(7)
    if kind == 0:
        return low
    if kind == 1:
        return low + rng.randint(1, 5)
    if kind == 2:
        return MAX_L
    if kind == 3:
        k = rng.randint(max(low, 1).bit_length(), 59)
        return min(MAX_L, max(low, (1 << k) + rng.choice((-1, 0, 1))))
    if kind == 4:
        return rng.randint(low, MAX_L)
    if kind == 5:
        return rng.randint(low, low + 1000)
    return max(low, MAX_L - rng.randint(0, 10))


def _case(rng: random.Random, strings: list[str], big_l: int) -> Case:
    strings = list(strings)
    rng.shuffle(strings)
    return Case(big_l, tuple(strings))


def _make_tiny(rng: random.Random) -> Case:
    for _ in range(50):
        big_l = rng.choice((1, 2, 2, 3, 3, 3, 4, 4, 4, 5, 6))
        if rng.random() < 0.5:
            strings = _insertion_set(rng, big_l, rng.randint(1, 3 * big_l), big_l)
        else:
            strings = _tree_set(rng, big_l, 10**9, rng.uniform(0.1, 0.6), rng.uniform(0, 0.4))
        case = _case(rng, strings, big_l)
        if _brute_refuses(case) is None:
            return case
    return _case(rng, _insertion_set(rng, 3, 6, 3), 3)


def _make_l1(rng: random.Random) -> Case:
    return _case(rng, rng.choice((["0"], ["1"], ["0", "1"])), 1)


def _make_l_huge(rng: random.Random) -> Case:
    max_len = rng.choice((1, 3, 8, 40))
    strings = _insertion_set(rng, MAX_L, rng.randint(1, 3), max_len)
    return _case(rng, strings, MAX_L)


def _make_single(rng: random.Random) -> Case:
    length = rng.randint(1, 8)
    big_l = length + rng.choice((0, 0, 1, 2, 3)) if rng.random() < 0.7 else _pick_l(rng, length)
    return Case(big_l, (_random_bits(rng, length),))


def _complete_code(rng: random.Random, max_len: int) -> list[str]:
    """A random complete prefix code: every trie node that is not an end has two children."""
    out = []
    stack = ["1", "0"]
    while stack:
        p = stack.pop()
        if len(p) == max_len or rng.random() < 0.35:
            out.append(p)
        else:
            stack.extend((p + "1", p + "0"))
    return out


def _make_full_level(rng: random.Random) -> Case:
    if rng.random() < 0.5:
        m = rng.randint(1, 8)
        return _case(rng, [format(x, f"0{m}b") for x in range(2 ** m)], m)
    strings = _complete_code(rng, rng.randint(1, 8))
    low = max(map(len, strings))
    big_l = low + rng.choice((0, 0, 1, 2)) if rng.random() < 0.6 else _pick_l(rng, low)
    return _case(rng, strings, big_l)


def _make_random_medium(rng: random.Random) -> Case:
    if rng.random() < 0.5:
        max_len = rng.choice((10, 30, 60, 200))
        strings = _tree_set(rng, max_len, rng.randint(50, 3000), rng.uniform(0.05, 0.4),
                            rng.uniform(0.0, 0.4))
    else:
        max_len = rng.choice((5, 20, 100, 1000))
        strings = _insertion_set(rng, MAX_L, rng.randint(1, 60), max_len)
    low = max(map(len, strings))
    big_l = _pick_l(rng, low) if rng.random() < 0.6 else rng.randint(low, GRUNDY_MAX_L)
    return _case(rng, strings, big_l)


def _comb(rng: random.Random, k: int, with_end: bool) -> list[str]:
    """Teeth spine[:i] + flipped spine[i] for i < k, plus the spine itself if `with_end`."""
    spine = _random_bits(rng, k)
    flip = {"0": "1", "1": "0"}
    teeth = [spine[:i] + flip[spine[i]] for i in range(k)]
    if with_end:
        teeth.append(spine)
    return teeth


def _make_comb(rng: random.Random) -> Case:
    k = rng.randint(1, 150)
    strings = _comb(rng, k, rng.random() < 0.3)
    low = max(map(len, strings))
    big_l = _pick_l(rng, low) if rng.random() < 0.5 else rng.randint(low, min(GRUNDY_MAX_L,
                                                                               low + 3000))
    return _case(rng, strings, big_l)


def _make_balanced(rng: random.Random) -> Case:
    m = rng.randint(1, 11)
    everything = [format(x, f"0{m}b") for x in range(2 ** m)]
    strings = everything if rng.random() < 0.3 else rng.sample(everything,
                                                                rng.randint(1, 2 ** m))
    big_l = _pick_l(rng, m) if rng.random() < 0.5 else rng.randint(m, GRUNDY_MAX_L)
    return _case(rng, strings, big_l)


def _max_one_long(rng: random.Random, big_l: int | None) -> Case:
    s = _random_bits(rng, MAX_TOTAL)
    return Case(MAX_TOTAL if big_l is None else big_l, (s,))


def _max_comb(rng: random.Random, big_l: int | None) -> Case:
    k = 446  # 446 * 447 / 2 = 99 681 <= 10^5
    strings = _comb(rng, k, False)
    return _case(rng, strings, k if big_l is None else big_l)


def _max_balanced(rng: random.Random, big_l: int | None) -> Case:
    m = 13  # 7692 strings of length 13 (of 8192), total 99 996
    count = MAX_TOTAL // m
    strings = [format(x, f"0{m}b") for x in rng.sample(range(2 ** m), count)]
    return _case(rng, strings, m if big_l is None else big_l)


RECIPES = (
    Recipe("tiny", "tiny", "L <= 6 (mostly <= 4), random good sets within brute's state budget",
           _make_tiny),
    Recipe("l-one", "edge", "L = 1: {0}, {1} or {0, 1}", _make_l1),
    Recipe("l-huge", "edge", "L = 10^18 with one to three short or medium strings",
           _make_l_huge),
    Recipe("single-string", "edge", "N = 1, a string of length <= 8, L near its length or any",
           _make_single),
    Recipe("full-level", "edge", "all 2^m strings of length m with L = m, or a random complete "
           "prefix code (no free subtree at all: Bob)", _make_full_level),
    Recipe("random-medium", "family", "random good sets (total length up to 3000, strings up "
           "to 1000 long), L from the minimum to 10^18", _make_random_medium),
    Recipe("comb", "family", "teeth branching off a random spine of length <= 150",
           _make_comb),
    Recipe("balanced", "family", "a random subset (or all) of the strings of one length <= 11",
           _make_balanced),
    Recipe("max-one-long", "max", "one random string of length 10^5, L = 10^18",
           lambda rng: _max_one_long(rng, MAX_L)),
    Recipe("max-one-long-min-l", "max", "one random string of length 10^5, L = 10^5",
           lambda rng: _max_one_long(rng, None)),
    Recipe("max-comb", "max", "446 teeth off a random spine (total 99 681), L = 10^18",
           lambda rng: _max_comb(rng, MAX_L)),
    Recipe("max-comb-min-l", "max", "446 teeth off a random spine (total 99 681), L = 446",
           lambda rng: _max_comb(rng, None)),
    Recipe("max-balanced", "max", "7692 random strings of length 13 (total 99 996), L = 10^18",
           lambda rng: _max_balanced(rng, MAX_L)),
    Recipe("max-balanced-min-l", "max", "7692 random strings of length 13 (total 99 996), "
           "L = 13", lambda rng: _max_balanced(rng, None)),
)


# ---------------------------------------------------------------------------------------------
# The problem
# ---------------------------------------------------------------------------------------------

STAGES = (
    Stage("brute", solve_brute,
          "memoised win/lose search over the set of strings; a move adds any string of length "
          "1..L keeping the set prefix-free",
          "O(R * 2^L * |S|) for R reachable good supersets",
          limits=f"L <= {BRUTE_MAX_L} and at most {BRUTE_MAX_STATES} good supersets of S "
                 "(every case with L <= 3)",
          refuses=_brute_refuses),
    Stage("grundy", solve_grundy,
          "trie; each missing child of a non-end node is a free complete subtree; its Grundy "
          "value G(h) from the mex recursion over heights (table, cached)",
          "O(total length + L^2) (numpy rows)",
          limits=f"L <= {GRUNDY_MAX_L}", refuses=_grundy_refuses),
    Stage("editorial", solve_editorial,
          "trie walk collecting free subtree heights; odd-count heights XORed with the "
          "editorial's divide-by-4 Grundy rule",
          "O(total length + (#heights) * log L)"),
    Stage("fast", solve_fast,
          "sort, adjacent LCPs -> parity of trie nodes per depth; XOR lowbit(L - d) over depths "
          "d whose next level has an odd number of nodes",
          "O(total length + sort)"),
)

PROBLEM = Problem(
    id="arc087e",
    title="Prefix-free Game",
    source="AtCoder ARC087 E (arc087_c)",
    time_limit_s=2.0,
    parse=parse,
    render=render,
    format_answer=format_answer,
    validate_answer=validate_answer,
    size=size,
    size_columns=size_columns,
    size_measure="total length of the strings",
    stages=STAGES,
    recipes=RECIPES,
)
