"""Bipartite Battle (Kattis `bipartitebattle`, ICPC Hanoi 2018 problem B).

The game
--------
Socket draws N bipartite graphs; graph i has a_i labelled vertices on one side, b_i on the
other, and any subset of the a_i * b_i possible edges. Then Bash (first) and Socket alternate.
A move picks a graph that still has something in it and deletes either one edge, or one vertex
together with all its edges. Whoever cannot move loses. We count the drawings (one edge subset
per graph) that Socket, the second player, wins, modulo 1e9+7.

Theory
------
The graphs are independent games, so by Sprague-Grundy the drawing is lost for the first player
exactly when the XOR of the graphs' Grundy values is 0. The key fact is that a bipartite graph
with n vertices and m edges (isolated vertices count) has Grundy value

    sg(n, m) = (n mod 2) + 2 * (m mod 2),

whatever its shape. Induction on n + m: with no edges only single-vertex deletions remain, so the
value is n mod 2. With m > 0 an edge deletion flips the "2" bit, a vertex deletion flips the
"1" bit and flips the "2" bit iff the vertex has odd degree. Parity of degree sums inside one
side of a bipartite graph decides which kinds of vertices exist: if m is odd some vertex has odd
degree (the degrees on one side sum to m); if n is odd some vertex has even degree (were all
degrees odd, each side's size would have the parity of m, making n even). Checking the four
parity cases, the options always contain every value below sg(n, m) and never sg(n, m) itself. (The
seed's write-up skips showing that 0 is reachable when n is odd and m even; the even-degree argument
fills that gap.)

So the XOR of all graphs is 0 iff the total vertex count and the total edge count are both even.
The vertex count is fixed by the input. Toggling one fixed edge is a bijection between drawings
with an even and an odd total edge count, so, with E = sum a_i * b_i >= 1, the answer is

    0 if sum(a_i + b_i) is odd, else 2^(E - 1) mod 1e9+7.

E reaches 1e23; Python integers handle it, and since 2 is invertible mod the prime p the
exponent may be reduced mod p - 1 (Fermat).

Stages
------
- `brute`: only the rules. For each graph shape it searches the deletion game itself with
  `GameSearch.grundy` over states (remaining vertex set, remaining edge set) as bitmasks, for every
  edge subset of K_{a,b}, with one memo per shape shared by all subsets (and by all graphs of the
  same shape; a and b are swapped into order, which is only a relabelling of the vertices). That
  gives, per graph, how many drawings have each Grundy value; an XOR convolution of these
  distributions (sum theorem) counts the drawings with total 0. No use of sg(n, m).
- `sg-binomial` (middle oracle): assumes sg(n, m) (checked against search over all small graphs in
  the tests) but counts the drawings independently of the "half are even" argument: per graph it
  sums binomial coefficients C(a*b, m) over even and odd m, then XOR-convolves over the four
  possible Grundy values. Reaches graphs with millions of potential edges.
- `editorial`: the seed's program: XOR the parities of a_i + b_i, multiply 2^(a_i*b_i) over the
  graphs with the first exponent lowered by one, one modular power per graph.
- `fast`: one pass for the parity and the exact edge total, then a single modular power with the
  exponent reduced mod p - 1. The cost is dominated by parsing 2N integers.
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
