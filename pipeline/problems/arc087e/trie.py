"""The trie decomposition shared by the `grundy` and `editorial` stages of arc087e."""

from __future__ import annotations

from pipeline.problems.arc087e.case import Case


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
