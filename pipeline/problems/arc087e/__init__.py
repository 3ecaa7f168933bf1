"""arc087e: Prefix-free Game (AtCoder ARC087 E, task arc087_c).

The game, the Grundy theory (G(h) = lowbit(h)) and what each stage computes: docs/architecture.md.
"""

from __future__ import annotations

from pipeline.problems.arc087e import case, oracles
from pipeline.problems.arc087e.bounds import BOUNDS
from pipeline.problems.arc087e.editorial import solve_editorial
from pipeline.problems.arc087e.fast import solve_fast
from pipeline.problems.arc087e.recipes import RECIPES, growth_case
from pipeline.problems.arc087e.shrink import MUTATIONS, SHRINKS
from pipeline.problems.base import Stage, case_functions, define_problem

STAGES = (
    Stage("brute", oracles.solve_brute,
          "memoised win/lose search over the set of strings; a move adds any string of length "
          "1..L keeping the set prefix-free",
          "O(R * 2^L * |S|) for R reachable good supersets",
          limits=f"L <= {oracles.BRUTE_MAX_L} and at most {oracles.BRUTE_MAX_STATES} good "
                 "supersets of S (every case with L <= 3)",
          refuses=oracles._brute_refuses),
    Stage("grundy", oracles.solve_grundy,
          "trie; each missing child of a non-end node is a free complete subtree; its Grundy "
          "value G(h) from the mex recursion over heights (table, cached)",
          "O(total length + L^2) (numpy rows)",
          limits=f"L <= {oracles.GRUNDY_MAX_L}", refuses=oracles._grundy_refuses),
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
    __file__, **case_functions(case), stages=STAGES, recipes=RECIPES, growth=growth_case,
    shrinks=SHRINKS, mutations=MUTATIONS, bounds=BOUNDS)
