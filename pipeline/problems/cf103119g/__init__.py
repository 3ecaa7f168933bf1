"""cf103119g: Game on Sequence (Codeforces Gym 103119 G, ICPC Macau 2020).

The game
--------
A sequence A_1 .. A_L of bytes (0..255) grows by appends.  A token starts on position k; the
players (Grammy first, then Alice) alternately move it from position i to any later position
j > i whose value differs from A_i in at most one bit (popcount(A_i ^ A_j) <= 1, so equal
values are always compatible).  Whoever cannot move loses.  Each query `2 k` asks who wins on
the sequence as it stands at that moment; `1 k` appends k.

Every move goes right, so the positions form a DAG and, for a fixed sequence, position i wins
iff some compatible j > i loses.  The last position always loses.

Why the seed's monotonicity argument fails
------------------------------------------
The seed editorial claims that appending only adds options, so positions only ever go from
losing to winning.  Adding an option can indeed only help, but an append also changes the
*values* of existing options: a losing option can become winning, and a position whose only
losing option turns winning becomes losing.  Smallest instance (7 tokens, found by exhaustive
search by token count; no input with 6 or fewer tokens can show it, because such an input never
holds more than two elements, where the seed's method is exact):

    3 1 / 0 1 3 / 2 1          true answer Alice, seed's method Grammy

On 0 1: position 1 (value 0) moves to the last position and wins.  Appending 3 makes position 2
(value 1) winning (it moves to 3), and position 1 now only reaches winning positions (0 ^ 3 has
two bits), so it loses.  The official sample shows the same flip (its third answer).

The lemma behind the fast method
--------------------------------
(1) If the value v occurs at i and again at some j > i, position i wins.  If j loses, move to
    j.  If j wins, j has a losing option k > j with A_k compatible with A_j = v; then k > i and
    A_k is compatible with A_i = v, so i can move to k.
(2) Hence only the last occurrence of each value can lose.  Let p = last[v].  Its options
    j > p have values u != v (v does not occur after p); an option that loses is, by (1), the
    last occurrence of its value u.  So p wins iff some u with popcount(u ^ v) == 1 has
    last[u] > last[v] and the last occurrence of u loses.  Conversely any such u is an option.
(3) This decides the at most 256 last occurrences in decreasing order of position, each with
    8 neighbour lookups: O(256 * 8) per recomputation, independent of the length.

Stages
------
- `brute`: for every query, `GameSearch.is_winning` over the positions of the sequence as it is
  at that moment (moves: every compatible later position).  Nothing but the rules.
- `recompute`: after an append that a query follows, recompute the win/lose table of every
  position right to left (the plain DAG recurrence; the set of values of losing positions to
  the right answers "is there a losing compatible option" in 9 look-ups, so O(9 L) per
  recomputation instead of O(L^2); it does not use the lemma).
- `editorial`: the seed's incremental method as described: per-value buckets of losing
  positions; an appended position is losing and turns every earlier losing position in its
  9 compatible buckets winning, removing them for good.  The initial values go through the
  same append step (the seed's code skips that and calls every initial position losing).
  Wrong, see above.
- `fast`: the lemma, run by a compiled kernel over all operations (native.c, built at
  installation; numba's JIT in fast.py where no compiler is available): last occurrences are
  kept in a linked list ordered by position (O(1) per append) and their states recomputed
  lazily, only when a query asks about a last occurrence after an append (a query on an
  earlier occurrence of its value is winning at once).  O((n + m) + 2048 * queries) worst case.
"""

from __future__ import annotations

from pipeline.problems.base import Stage, define_problem
from pipeline.problems.cf103119g.bounds import BOUNDS
from pipeline.problems.cf103119g.case import (
                                              format_answer,
                                              parse,
                                              render,
                                              size,
                                              size_values,
                                              validate_answer,
)
from pipeline.problems.cf103119g.editorial import _editorial
from pipeline.problems.cf103119g.fast import _fast
from pipeline.problems.cf103119g.oracles import (
                                              BRUTE_MAX_SIZE,
                                              RECOMPUTE_MAX_WORK,
                                              _brute,
                                              _brute_refuses,
                                              _recompute,
                                              _recompute_refuses,
)
from pipeline.problems.cf103119g.recipes import RECIPES, growth_case
from pipeline.problems.cf103119g.shrink import MUTATIONS, SHRINKS

STAGES = (
    Stage("brute", _brute,
          "GameSearch.is_winning over the positions of the sequence at each query "
          "(moves: every later position whose value differs in at most one bit)",
          "O(L^2) per distinct snapshot queried",
          limits=f"n + m <= {BRUTE_MAX_SIZE}", refuses=_brute_refuses),
    Stage("recompute", _recompute,
          "after an append that a query follows, recompute win/lose of every position right "
          "to left with the DAG recurrence (values of losing positions to the right)",
          "O(9 L) per recomputation",
          limits=f"sum of recomputed lengths <= {RECOMPUTE_MAX_WORK}",
          refuses=_recompute_refuses),
    Stage("editorial", _editorial,
          "seed editorial: per-value buckets of losing positions; an append is losing and "
          "turns the losing positions in its 9 compatible buckets winning for good",
          "O(9 (n + m)) amortised",
          counterexample=lambda: parse("3 1\n0 1 3\n2 1\n")),
    Stage("fast", _fast,
          "lemma: only last occurrences can lose; a last occurrence of v loses iff no "
          "one-bit neighbour u with a later last occurrence loses; compiled kernel (C; "
          "numba fallback), lazy "
          "recomputation over the <= 256 last occurrences",
          "O(n + m + 2048 * queries)", warm_up=lambda: _fast(parse("2 2\n1 3\n1 7\n2 1\n"))),
)

PROBLEM = define_problem(
    __file__, parse=parse, render=render, format_answer=format_answer,
    validate_answer=validate_answer, size=size, size_values=size_values, stages=STAGES,
    recipes=RECIPES, growth=growth_case, shrinks=SHRINKS, mutations=MUTATIONS, bounds=BOUNDS)
