"""movcoin2: Move the Coins 2 (CodeChef MOVCOIN2).

The game, its Nim theory (g(R) = XOR of coin distances) and what each stage computes:
docs/architecture.md.
"""

from __future__ import annotations

from pipeline.problems.base import Stage, case_functions, define_problem
from pipeline.problems.movcoin2 import case, oracles
from pipeline.problems.movcoin2.bounds import BOUNDS
from pipeline.problems.movcoin2.compiled import fast, tester_17bit
from pipeline.problems.movcoin2.recipes import RECIPES, growth_case
from pipeline.problems.movcoin2.shrink import MUTATIONS, SHRINKS

STAGES = (
    Stage("brute", oracles.brute,
          "memoised win/lose search over coin configurations, one game per root",
          "O(N * configurations * moves)",
          limits=f"sum over tests of n * comb(n - 1 + coins, coins) <= {oracles.BRUTE_BUDGET}",
          refuses=oracles.brute_refuses),
    Stage("quadratic", oracles.quadratic,
          "distance row of every root (rerooted in numpy), XOR over odd-coin nodes",
          "O(N^2)",
          limits=f"every n <= {oracles.QUADRATIC_MAX_N} and sum of n^2 <= "
                 f"{oracles.QUADRATIC_BUDGET}",
          refuses=oracles.quadratic_refuses),
    Stage("per-coin", oracles.per_coin,
          "one BFS per odd-coin node, XOR of the distance arrays",
          "O(N * K), K = odd-coin nodes",
          limits=f"sum over tests of n * max(1, K) <= {oracles.PER_COIN_BUDGET}",
          refuses=oracles.per_coin_refuses),
    Stage("editorial", oracles.editorial,
          "centroid decomposition + per-bit DistTracker sweeps, pure Python (seed editorial)",
          "O(N log^2 N)",
          limits=f"sum of n <= {oracles.EDITORIAL_MAX_SUM_N}",
          refuses=oracles.editorial_refuses),
    Stage("fast", fast,
          "compiled (C; numba fallback) centroid decomposition with per-bit sliding-window "
          "XOR tables",
          "O(N log^2 N)", warm_up=lambda: fast(case.parse("1\n2\n1 2\n1 0\n"))),
    # Below 131,073 nodes every distance, hence every XOR, is < 2^17 and the cut is harmless;
    # on this path the far end has g = 2^17, which 17 bits read as 0.
    Stage("tester-17bit", tester_17bit,
          "fast with the published tester's fixed MAX_BITS = 17",
          "O(N log^2 N)", warm_up=lambda: tester_17bit(case.parse("1\n2\n1 2\n1 0\n")),
          counterexample=lambda: case.path_case(131_073, (1,))),
)

PROBLEM = define_problem(
    __file__, **case_functions(case), stages=STAGES, recipes=RECIPES, growth=growth_case,
    shrinks=SHRINKS, mutations=MUTATIONS, bounds=BOUNDS)
