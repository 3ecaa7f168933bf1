"""The stages of arc087e: the oracles `brute` (a search over sets of strings) and `grundy` (the
free subtrees' values by the mex recursion over heights), the seed `editorial`'s divide-by-4
rule over the same subtrees, and `fast` (the parity of distinct prefixes per depth)."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache, lru_cache

from pipeline.errors import BeyondLimits
from pipeline.games import GameSearch
from pipeline.problems.arc087e.case import Case
from pipeline.problems.base import Stage


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


# -- brute: search over sets of strings -------------------------------------------------------
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


@cache
def _all_strings(big_l: int) -> tuple[str, ...]:
    return tuple(format(x, f"0{length}b") for length in range(1, big_l + 1)
                 for x in range(2 ** length))


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


# -- grundy: mex recursion over heights of free subtrees -----------------------------------
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


# -- editorial: the seed's divide-by-4 rule ----------------------------------------------------
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


# -- fast: adjacent longest common prefixes of the sorted strings ------------------------------
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


STAGES = (
    Stage("brute", solve_brute,
          "memoised win/lose search over the set of strings; a move adds any string of length "
          "1..L keeping the set prefix-free",
          "O(R * 2^L * |S|) for R reachable good supersets",
          limits=f"L <= {BRUTE_MAX_L} and at most {BRUTE_MAX_STATES} good "
                 "supersets of S (every case with L <= 3)",
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

