"""Bipartite Battle (Kattis `bipartitebattle`, ICPC Hanoi 2018 problem B).

The game, the theory (sg(n, m) = n mod 2 + 2 (m mod 2)) and what each stage computes:
docs/architecture.md.
"""

from __future__ import annotations

from pipeline.problems.base import Stage, case_functions, define_problem
from pipeline.problems.bipartitebattle import case, oracles
from pipeline.problems.bipartitebattle.bounds import BOUNDS
from pipeline.problems.bipartitebattle.editorial import solve_editorial
from pipeline.problems.bipartitebattle.fast import solve_fast
from pipeline.problems.bipartitebattle.recipes import RECIPES, growth_case
from pipeline.problems.bipartitebattle.shrink import MUTATIONS, SHRINKS

STAGES = (
    Stage("brute", oracles.solve_brute,
          "Grundy value of every edge subset of every K_{a,b} by GameSearch over "
          "(vertex set, edge set) deletion states, memo per shape; XOR convolution "
          "of the per-graph Grundy distributions counts the losing drawings",
          "per distinct shape: sum_{i<=a,j<=b} C(a,i)C(b,j)2^(ij) states; "
          "O(N * G^2) convolution",
          limits=f"every graph a*b <= {oracles.BRUTE_MAX_EDGES} and a+b <= "
                 f"{oracles.BRUTE_MAX_VERTICES}; N <= {oracles.BRUTE_MAX_N}",
          refuses=oracles.brute_refuses),
    Stage("sg-binomial", oracles.solve_sg_binomial,
          "sg(n, m) = n%2 + 2(m%2) per drawing (checked by search on small graphs); "
          "drawings counted per edge-count parity by summing binomials C(ab, m), "
          "XOR convolution over the four Grundy values",
          "O(sum of a*b over distinct shapes + N)",
          limits=f"sum of a*b over distinct shapes <= {oracles.BINOMIAL_MAX_EDGES}",
          refuses=oracles.binomial_refuses),
    Stage("editorial", solve_editorial,
          "seed program: parity of sum(a_i + b_i); product of 2^(a_i b_i) with "
          "the first exponent minus one, one modular power per graph",
          "O(N log(max a*b))"),
    Stage("fast", solve_fast,
          "0 if sum(a_i + b_i) is odd, else 2^((sum a_i b_i - 1) mod (p-1)) mod p "
          "with one modular power",
          "O(N) after parsing",
          warm_up=lambda: solve_fast(case.parse("1\n1 1\n"))),  # loads the native code
)

PROBLEM = define_problem(
    __file__, **case_functions(case), stages=STAGES, recipes=RECIPES, growth=growth_case,
    shrinks=SHRINKS, mutations=MUTATIONS, bounds=BOUNDS)
