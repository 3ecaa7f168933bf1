"""The `fast` stage of arc087e: the parity of distinct prefixes per depth, from adjacent
longest common prefixes of the sorted strings."""

from __future__ import annotations

from pipeline.problems.arc087e.case import Case


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
