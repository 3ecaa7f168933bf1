"""movcoin2: Move the Coins 2 (CodeChef MOVCOIN2).

The game. A tree of N nodes carries c_v coins on node v. For every root R a separate game is
played: a move takes one coin from a node other than R and puts it on any other node of the
path from that node to R (R included). Whoever cannot move (every coin on R) loses. We print,
per test, the sum of 2^R (mod 1e9+7) over the roots R where the second player (Bob) wins.

The theory. The coins never interact: moving a coin from v to a node w on the path to R
changes its distance to R from dist(v, R) to any smaller value, so each coin is a Nim pile of
size dist(v, R), and the game is the Nim sum of these piles. Bob wins iff

    g(R) = XOR over coins of dist(coin's node, R) = 0,

and two coins on the same node cancel, so only the nodes with an odd c_v matter. The whole
problem is computing g(R) for every R at once.

The stages.
- `brute`: plays each game g(T, R) by a memoised win/lose search over coin configurations
  (how many coins sit on each node; coins that reached R are dropped since they can never move
  again). It uses none of the theory above: it checks it.
- `quadratic`: the distance row of every root, each derived from its parent's row in O(N)
  numpy (moving the root to a child brings that child's subtree, a preorder interval, one step
  closer and the rest one step further), then g(R) = XOR of the row over odd-coin nodes.
- `per-coin`: one BFS from each odd-coin node, XOR of the distance arrays: O(N * K), good for
  huge trees with few coins (a 300,000-node path with a coin at one end).
- `editorial`: the seed editorial's method in pure Python. Centroid decomposition; for each
  centroid C, a sweep over its branches in order and one in reverse order with a DistTracker:
  a DFS over a branch shifts all tracked distances by +1 on entering a node (and reads the
  tracker's XOR into that node's g) and by -1 on leaving it, then the branch's odd-coin nodes
  are inserted at their distance from C. The tracker keeps, per bit x, how many tracked values
  lie in the "one zone" [2^x, 2^(x+1)) modulo 2^(x+1); a shift slides that zone by one residue,
  so it costs O(bits). The bit count comes from the component's depth (distances reach
  N-1 = 299,999, i.e. 19 bits), not the tester's fixed 17. O(N log^2 N).
- `fast`: a compiled kernel (native.c, built at installation; numba's JIT in kernels.py
  where no compiler is available). Centroid decomposition again (level by level: the BFS of
  each branch from a centroid is also the next level's component), but per component it
  builds the table F(q) = XOR over coin nodes v of (d(v) + q) for all q with one sliding
  window per bit, adds F(d(u)) to every node u, and cancels the same-branch pairs by running
  the same step on each branch alone. All tests run as one forest in one kernel call.
  O(N log^2 N) worst case. A max input is read and validated natively in ~20 ms and handed
  to the kernel packed (0.02-0.4 s); the tuples of the case are never built.
- `tester-17bit` (known wrong): `fast` with the published tester's fixed 17 bits. Every
  distance is below 2^17 while N <= 131,072, so its first failure is a path of 131,073 nodes
  with one coin at an end: g = 131,072 at the other end reads as 0.
"""

from __future__ import annotations

from pipeline.problems.base import Stage, define_problem
from pipeline.problems.movcoin2 import oracles
from pipeline.problems.movcoin2.bounds import BOUNDS
from pipeline.problems.movcoin2.case import (
                                             format_answer,
                                             parse,
                                             path_case,
                                             render,
                                             size,
                                             size_values,
                                             validate_answer,
)
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
          "O(N log^2 N)", warm_up=lambda: fast(parse("1\n2\n1 2\n1 0\n"))),
    # Below 131,073 nodes every distance, hence every XOR, is < 2^17 and the cut is harmless;
    # on this path the far end has g = 2^17, which 17 bits read as 0.
    Stage("tester-17bit", tester_17bit,
          "fast with the published tester's fixed MAX_BITS = 17",
          "O(N log^2 N)", warm_up=lambda: tester_17bit(parse("1\n2\n1 2\n1 0\n")),
          counterexample=lambda: path_case(131_073, (1,))),
)

PROBLEM = define_problem(
    __file__, parse=parse, render=render, format_answer=format_answer,
    validate_answer=validate_answer, size=size, size_values=size_values, stages=STAGES,
    recipes=RECIPES, growth=growth_case, shrinks=SHRINKS, mutations=MUTATIONS, bounds=BOUNDS)
