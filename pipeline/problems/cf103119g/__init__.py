"""cf103119g: Game on Sequence (Codeforces Gym 103119 G, ICPC Macau 2020).

The game, why the seed's monotonicity argument fails, the lemma behind `fast` and what each
stage computes: docs/architecture.md.
"""

from __future__ import annotations

from pipeline.problems.base import Stage, case_functions, define_problem
from pipeline.problems.cf103119g import case, oracles
from pipeline.problems.cf103119g.bounds import BOUNDS
from pipeline.problems.cf103119g.editorial import _editorial
from pipeline.problems.cf103119g.fast import _fast
from pipeline.problems.cf103119g.recipes import RECIPES, growth_case
from pipeline.problems.cf103119g.shrink import MUTATIONS, SHRINKS

STAGES = (
    Stage("brute", oracles._brute,
          "GameSearch.is_winning over the positions of the sequence at each query "
          "(moves: every later position whose value differs in at most one bit)",
          "O(L^2) per distinct snapshot queried",
          limits=f"n + m <= {oracles.BRUTE_MAX_SIZE}", refuses=oracles._brute_refuses),
    Stage("recompute", oracles._recompute,
          "after an append that a query follows, recompute win/lose of every position right "
          "to left with the DAG recurrence (values of losing positions to the right)",
          "O(9 L) per recomputation",
          limits=f"sum of recomputed lengths <= {oracles.RECOMPUTE_MAX_WORK}",
          refuses=oracles._recompute_refuses),
    Stage("editorial", _editorial,
          "seed editorial: per-value buckets of losing positions; an append is losing and "
          "turns the losing positions in its 9 compatible buckets winning for good",
          "O(9 (n + m)) amortised",
          counterexample=lambda: case.parse("3 1\n0 1 3\n2 1\n")),
    Stage("fast", _fast,
          "lemma: only last occurrences can lose; a last occurrence of v loses iff no "
          "one-bit neighbour u with a later last occurrence loses; compiled kernel (C; "
          "numba fallback), lazy recomputation over the <= 256 last occurrences",
          "O(n + m + 2048 * queries)",
          warm_up=lambda: _fast(case.parse("2 2\n1 3\n1 7\n2 1\n"))),
)

PROBLEM = define_problem(
    __file__, **case_functions(case), stages=STAGES, recipes=RECIPES, growth=growth_case,
    shrinks=SHRINKS, mutations=MUTATIONS, bounds=BOUNDS)
