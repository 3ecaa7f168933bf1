"""insq15g: people pushed towards the top-right corner of a grid (CodeChef INSQ15_G).

The game, its Staircase Nim theory, what each stage computes and how `parse` reads:
docs/architecture.md.
"""

from __future__ import annotations

from pipeline.problems.base import Stage, case_functions, define_problem
from pipeline.problems.insq15g import case, oracles
from pipeline.problems.insq15g.bounds import BOUNDS
from pipeline.problems.insq15g.editorial import solve_editorial, solve_independent_people
from pipeline.problems.insq15g.fast import solve_fast
from pipeline.problems.insq15g.recipes import RECIPES, growth_case
from pipeline.problems.insq15g.shrink import MUTATIONS, SHRINKS

STAGES = (
    Stage("brute", oracles.solve_brute,
          "memoised game search over the multiset of positions of the people not yet "
          "in the corner; a move pushes 1..c people of one cell up or right",
          "O(states * moves), states <= C(R - 1 + P, P) for the box of R cells",
          limits=f"multiset state bound C(R - 1 + P, P) <= {oracles.BRUTE_MAX_STATES}, where R "
                 "counts the cells of rows 1..max X, columns min Y..M (e.g. 3x3 grid with 6 "
                 "people)",
          refuses=oracles._brute_refuses),
    Stage("grid", oracles.solve_grid,
          "editorial's alternate approach on the setter's small-range grid: per-cell "
          "single-person Grundy values by mex from the corner, XOR of value * count",
          "O(N * M + P)",
          limits=f"N * M <= {oracles.GRID_MAX_CELLS}", refuses=oracles._grid_refuses),
    Stage("editorial", solve_editorial,
          "sort the (X, Y) pairs, group equal cells, XOR the group sizes of cells "
          "whose X + Y parity differs from that of 1 + M (Staircase Nim)",
          "O(P log P)"),
    Stage("fast", solve_fast,
          "keep people at odd distance, count per distinct cell by sorting one "
          "key per person (native code on a parsed input, else numpy), XOR the counts",
          "O(P log P)",
          warm_up=lambda: solve_fast(case.parse("1 1 1\n1 1\n"))),  # loads the native code
    Stage("independent-people", solve_independent_people,
          "the editorial's first idea: each person an independent game of value 1 "
          "at odd distance, 0 at even distance; XOR over people",
          "O(P)",
          counterexample=lambda: case.Case.of(1, 2, [(1, 1), (1, 1)])),
)

PROBLEM = define_problem(
    __file__, **case_functions(case), stages=STAGES, recipes=RECIPES, growth=growth_case,
    shrinks=SHRINKS, mutations=MUTATIONS, bounds=BOUNDS)
