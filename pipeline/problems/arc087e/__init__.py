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

from pipeline.problems.arc087e.bounds import BOUNDS
from pipeline.problems.arc087e.case import (
                                            format_answer,
                                            parse,
                                            render,
                                            size,
                                            size_values,
                                            validate_answer,
)
from pipeline.problems.arc087e.editorial import solve_editorial
from pipeline.problems.arc087e.fast import solve_fast
from pipeline.problems.arc087e.oracles import (
                                            BRUTE_MAX_L,
                                            BRUTE_MAX_STATES,
                                            GRUNDY_MAX_L,
                                            _brute_refuses,
                                            _grundy_refuses,
                                            solve_brute,
                                            solve_grundy,
)
from pipeline.problems.arc087e.recipes import RECIPES, growth_case
from pipeline.problems.arc087e.shrink import MUTATIONS, SHRINKS
from pipeline.problems.base import Stage, define_problem

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

PROBLEM = define_problem(
    __file__, parse=parse, render=render, format_answer=format_answer,
    validate_answer=validate_answer, size=size, size_values=size_values, stages=STAGES,
    recipes=RECIPES, growth=growth_case, shrinks=SHRINKS, mutations=MUTATIONS, bounds=BOUNDS)
