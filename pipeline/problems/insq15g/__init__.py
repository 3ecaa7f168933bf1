"""insq15g: people pushed towards the top-right corner of a grid (CodeChef INSQ15_G).

The game
--------
A grid has N rows and M columns (row 1 on top, column 1 on the left), with N, M up to 10^18.
P people stand on cells, several possibly on one cell. A move picks a cell holding at least one
person and pushes any positive number k of its people one step, all in the same direction: up
(row - 1) or right (column + 1), without leaving the grid. Everybody ends in the corner (1, M),
where nobody can move any more; the player who cannot move loses. Dassu moves first; we print
`Yes` when he wins.

The theory
----------
Give every cell its distance d = (X - 1) + (M - Y) to the corner. Every move takes k people
from one cell to a neighbouring cell whose distance is exactly one less, which is Staircase Nim
played on a graded graph instead of a single staircase: let S be the XOR, over the cells at
odd distance, of the number of people on the cell.

* A move out of an odd cell changes that cell's count; a move out of an even cell (d >= 2) adds
  k to a single odd cell. Either way exactly one term of S changes, so S changes.
* From S != 0, Nim says some odd cell can drop from c to c XOR S < c; pushing the difference one
  step lands it on an even cell, which is not part of S, so S becomes 0. Pushing from odd cells
  even reaches every value below S.

By induction the Grundy value of a position is exactly S (the tests check this against the
brute force), and the first player wins iff S != 0. People on cells at even distance, and in
particular on the corner, never matter. Parity of d is the parity of X + Y + M + 1, i.e. the
editorial's test "(X + Y) and (1 + M) have different parities".

Stages
------
* `brute`: memoised game search (GameSearch) over the multiset of positions, written straight
  from the rules: a state is the sorted tuple of the people not yet in the corner, a move takes
  1..c people from a cell with c people up or right. Refuses cases whose multiset state bound
  exceeds 20 000 states.
* `grid`: the editorial's "alternate approach" with the setter's small-range program: the
  single-person Grundy value of each cell by mex over the whole grid, from the corner outwards,
  and the XOR of (value x head count) over the cells. Limited to N * M <= 250 000.
* `editorial`: what the editorial's large-range program does: sort the (X, Y) pairs, group equal
  cells and XOR the group sizes of the cells whose X + Y parity differs from that of 1 + M.
  Pure Python, no limit (a few seconds at P = 10^6).
* `fast`: keep the people at odd distance, count the people per distinct cell by sorting
  one key per person, and XOR the counts. On a case read natively, native code does it on the
  input's tokens (native.cpp: a radix sort of the packed cell when the coordinates span less
  than 2^32, else std::sort of the (X, Y) pairs); on any other case, numpy (an exact packed
  key when the coordinates span less than 2^31, otherwise a mixed hash whose equal runs are
  verified against the real coordinates, with an exact lexicographic sort as fallback on a
  collision).
* `independent-people` (known wrong): the editorial's first idea, every person an independent
  game of value 0 or 1; it forgets that people sharing a cell can be pushed together.

Parsing
-------
`parse` first tries a bulk path: native code (native.cpp) reading the text in place, or,
where it is unavailable, `np.fromstring` over the whole text with ranges checked by array
reductions; on anything unusual (non-ASCII text, a sign, unparsed data, a count or range
failure) it falls back to the token-by-token validating path, which names the line of the error.
"""

from __future__ import annotations

from pipeline.problems.base import Stage, define_problem
from pipeline.problems.insq15g import native  # noqa: F401 (registers its native code)
from pipeline.problems.insq15g.bounds import BOUNDS
from pipeline.problems.insq15g.case import (
                                            Case,
                                            format_answer,
                                            parse,
                                            render,
                                            size,
                                            size_values,
                                            validate_answer,
)
from pipeline.problems.insq15g.editorial import solve_editorial, solve_independent_people
from pipeline.problems.insq15g.fast import solve_fast
from pipeline.problems.insq15g.oracles import (
                                            BRUTE_MAX_STATES,
                                            GRID_MAX_CELLS,
                                            _brute_refuses,
                                            _grid_refuses,
                                            solve_brute,
                                            solve_grid,
)
from pipeline.problems.insq15g.recipes import RECIPES, growth_case
from pipeline.problems.insq15g.shrink import MUTATIONS, SHRINKS

STAGES = (
    Stage(
        name="brute",
        solve=solve_brute,
        description="memoised game search over the multiset of positions of the people not yet "
                    "in the corner; a move pushes 1..c people of one cell up or right",
        complexity="O(states * moves), states <= C(R - 1 + P, P) for the box of R cells",
        limits=f"multiset state bound C(R - 1 + P, P) <= {BRUTE_MAX_STATES}, where R counts the "
               "cells of rows 1..max X, columns min Y..M (e.g. 3x3 grid with 6 people)",
        refuses=_brute_refuses,
    ),
    Stage(
        name="grid",
        solve=solve_grid,
        description="editorial's alternate approach on the setter's small-range grid: per-cell "
                    "single-person Grundy values by mex from the corner, XOR of value * count",
        complexity="O(N * M + P)",
        limits=f"N * M <= {GRID_MAX_CELLS}",
        refuses=_grid_refuses,
    ),
    Stage(
        name="editorial",
        solve=solve_editorial,
        description="sort the (X, Y) pairs, group equal cells, XOR the group sizes of cells "
                    "whose X + Y parity differs from that of 1 + M (Staircase Nim)",
        complexity="O(P log P)",
    ),
    Stage(
        name="fast",
        solve=solve_fast,
        description="keep people at odd distance, count per distinct cell by sorting one "
                    "key per person (native code on a parsed input, else numpy), XOR the "
                    "counts",
        complexity="O(P log P)",
        warm_up=lambda: solve_fast(parse("1 1 1\n1 1\n")),  # loads the native code
    ),
    Stage(
        name="independent-people",
        solve=solve_independent_people,
        description="the editorial's first idea: each person an independent game of value 1 "
                    "at odd distance, 0 at even distance; XOR over people",
        complexity="O(P)",
        counterexample=lambda: Case.of(1, 2, [(1, 1), (1, 1)]),
    ),
)

PROBLEM = define_problem(
    __file__, parse=parse, render=render, format_answer=format_answer,
    validate_answer=validate_answer, size=size, size_values=size_values, stages=STAGES,
    recipes=RECIPES, growth=growth_case, shrinks=SHRINKS, mutations=MUTATIONS, bounds=BOUNDS)
