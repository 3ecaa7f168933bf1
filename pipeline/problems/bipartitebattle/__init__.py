"""Bipartite Battle (Kattis `bipartitebattle`, ICPC Hanoi 2018 problem B).

The game, the theory (sg(n, m) = n mod 2 + 2 (m mod 2)) and what each stage computes:
docs/architecture.md.
"""

from __future__ import annotations

from pipeline.problems.base import Stage, define_problem
from pipeline.problems.bipartitebattle import native  # noqa: F401 (registers its native code)
from pipeline.problems.bipartitebattle.bounds import BOUNDS
from pipeline.problems.bipartitebattle.case import (
                                                    format_answer,
                                                    parse,
                                                    render,
                                                    size,
                                                    size_values,
                                                    validate_answer,
)
from pipeline.problems.bipartitebattle.editorial import solve_editorial
from pipeline.problems.bipartitebattle.fast import solve_fast
from pipeline.problems.bipartitebattle.oracles import (
                                                    BINOMIAL_MAX_EDGES,
                                                    BRUTE_MAX_EDGES,
                                                    BRUTE_MAX_N,
                                                    BRUTE_MAX_VERTICES,
                                                    binomial_refuses,
                                                    brute_refuses,
                                                    solve_brute,
                                                    solve_sg_binomial,
)
from pipeline.problems.bipartitebattle.recipes import RECIPES, growth_case
from pipeline.problems.bipartitebattle.shrink import MUTATIONS, SHRINKS

STAGES = (
    Stage(
        name="brute",
        solve=solve_brute,
        description="Grundy value of every edge subset of every K_{a,b} by GameSearch over "
                    "(vertex set, edge set) deletion states, memo per shape; XOR convolution "
                    "of the per-graph Grundy distributions counts the losing drawings",
        complexity="per distinct shape: sum_{i<=a,j<=b} C(a,i)C(b,j)2^(ij) states; "
                   "O(N * G^2) convolution",
        limits=f"every graph a*b <= {BRUTE_MAX_EDGES} and a+b <= {BRUTE_MAX_VERTICES}; "
               f"N <= {BRUTE_MAX_N}",
        refuses=brute_refuses,
    ),
    Stage(
        name="sg-binomial",
        solve=solve_sg_binomial,
        description="sg(n, m) = n%2 + 2(m%2) per drawing (checked by search on small graphs); "
                    "drawings counted per edge-count parity by summing binomials C(ab, m), "
                    "XOR convolution over the four Grundy values",
        complexity="O(sum of a*b over distinct shapes + N)",
        limits=f"sum of a*b over distinct shapes <= {BINOMIAL_MAX_EDGES}",
        refuses=binomial_refuses,
    ),
    Stage(
        name="editorial",
        solve=solve_editorial,
        description="seed program: parity of sum(a_i + b_i); product of 2^(a_i b_i) with "
                    "the first exponent minus one, one modular power per graph",
        complexity="O(N log(max a*b))",
    ),
    Stage(
        name="fast",
        solve=solve_fast,
        description="0 if sum(a_i + b_i) is odd, else 2^((sum a_i b_i - 1) mod (p-1)) mod p "
                    "with one modular power",
        complexity="O(N) after parsing",
        warm_up=lambda: solve_fast(parse("1\n1 1\n")),  # loads the native code
    ),
)

PROBLEM = define_problem(
    __file__, parse=parse, render=render, format_answer=format_answer,
    validate_answer=validate_answer, size=size, size_values=size_values, stages=STAGES,
    recipes=RECIPES, growth=growth_case, shrinks=SHRINKS, mutations=MUTATIONS, bounds=BOUNDS)
