"""The stages of insq15g: the oracles `brute` (a search over the multiset of positions) and
`grid` (the editorial's alternate approach, the setter's small-range program), the editorial's
large-range program (`editorial`, Staircase Nim over grouped cells) and its first idea
(`independent-people`, known wrong), and `fast` (the XOR of the head counts of the cells at
odd distance, by native code on a case read natively, else by NumPy; both the same)."""

from __future__ import annotations

from math import comb

from pipeline.games import GameSearch, mex
from pipeline.problems.base import Stage
from pipeline.problems.insq15g.case import Case, _cell_counts, _odd_mask, functions, parse

BRUTE_MAX_STATES = 50_000
GRID_MAX_CELLS = 250_000


# -- brute ------------------------------------------------------------------------------------
def _brute_state_bound(case: Case) -> int | None:
    """Upper bound on the states reachable (None: clearly huge): multisets of at most P
    people over the R - 1 non-corner cells of rows 1..max X, columns min Y..M."""
    if case.p == 0:
        return 1
    if case.p > 40:
        return None
    rows = int(case.xs.max())
    cols = case.m - int(case.ys.min()) + 1
    if rows > 10**6 or cols > 10**6 or rows * cols > 10**6:
        return None
    return comb(rows * cols - 1 + case.p, case.p)


def _brute_refuses(case: Case) -> str | None:
    bound = _brute_state_bound(case)
    if bound is None or bound > BRUTE_MAX_STATES:
        shown = "huge" if bound is None else str(bound)
        return (f"state bound {shown} exceeds {BRUTE_MAX_STATES} (multisets of P people over "
                "the box between the people and the corner)")
    return None


def _brute_search(m: int) -> GameSearch:
    """GameSearch over sorted tuples of the positions of the people not yet in the corner."""
    corner = (1, m)

    def moves(state: tuple[tuple[int, int], ...]):
        i = 0
        while i < len(state):
            cell = state[i]
            j = i
            while j < len(state) and state[j] == cell:
                j += 1
            count = j - i
            rest = state[:i] + state[j:]
            x, y = cell
            targets = []
            if x > 1:
                targets.append((x - 1, y))
            if y < m:
                targets.append((x, y + 1))
            for target in targets:
                for k in range(1, count + 1):
                    moved = [] if target == corner else [target] * k
                    yield tuple(sorted(rest + (cell,) * (count - k) + tuple(moved)))
            i = j

    return GameSearch(moves, max_states=4 * BRUTE_MAX_STATES)


def _brute_start(case: Case) -> tuple[tuple[int, int], ...]:
    corner = (1, case.m)
    return tuple(sorted(c for c in case.people() if c != corner))


def solve_brute(case: Case) -> bool:
    return _brute_search(case.m).is_winning(_brute_start(case))


def brute_grundy(case: Case) -> int:
    """Grundy value of the whole position by game search (used by the tests of the theory)."""
    return _brute_search(case.m).grundy(_brute_start(case))


# -- grid -------------------------------------------------------------------------------------
def _grid_refuses(case: Case) -> str | None:
    if case.n * case.m > GRID_MAX_CELLS:
        return f"N * M = {case.n * case.m} exceeds {GRID_MAX_CELLS}"
    return None


def solve_grid(case: Case) -> bool:
    n, m = case.n, case.m
    # Single-person Grundy values by mex, from the corner (1, m) outwards: row 1 first, each
    # row from right to left, so that the cell above and the cell to the right are known.
    value = [[0] * (m + 2) for _ in range(n + 2)]
    for i in range(1, n + 1):
        row, above = value[i], value[i - 1]
        for j in range(m, 0, -1):
            options = []
            if i > 1:
                options.append(above[j])
            if j < m:
                options.append(row[j + 1])
            row[j] = mex(options)
    heads = [[0] * (m + 1) for _ in range(n + 1)]
    for x, y in case.people():
        heads[x][y] += 1
    total = 0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            total ^= value[i][j] * heads[i][j]
    return total != 0


# -- editorial --------------------------------------------------------------------------------
def solve_editorial(case: Case) -> bool:
    people = sorted(case.people())
    corner_parity = (1 + case.m) % 2
    total = 0
    run = 1
    for i in range(1, len(people) + 1):
        if i < len(people) and people[i] == people[i - 1]:
            run += 1
            continue
        x, y = people[i - 1]
        if (x + y) % 2 != corner_parity:
            total ^= run
        run = 1
    return total != 0


# -- independent-people (known wrong) -----------------------------------------------------------
def solve_independent_people(case: Case) -> bool:
    corner_parity = (1 + case.m) % 2
    total = 0
    for x, y in case.people():
        total ^= int((x + y) % 2 != corner_parity)
    return total != 0


# -- fast -------------------------------------------------------------------------------------
def solve_fast(case: Case) -> bool:
    if case.packed is not None and functions() is not None:
        from pipeline.native.bulk import address

        result = functions().insq15g_solve(address(case.packed))
        if result == -2:
            raise MemoryError("insq15g: native fast stage ran out of memory")
        return result == 1
    return solve_numpy(case)


def solve_numpy(case: Case) -> bool:
    import numpy as np

    odd = _odd_mask(case.xs, case.ys, case.m)
    counts = _cell_counts(case.xs[odd], case.ys[odd])
    if counts.shape[0] == 0:
        return False
    return int(np.bitwise_xor.reduce(counts)) != 0


STAGES = (
    Stage("brute", solve_brute,
          "memoised game search over the multiset of positions of the people not yet "
          "in the corner; a move pushes 1..c people of one cell up or right",
          "O(states * moves), states <= C(R - 1 + P, P) for the box of R cells",
          limits=f"multiset state bound C(R - 1 + P, P) <= {BRUTE_MAX_STATES}, where R "
                 "counts the cells of rows 1..max X, columns min Y..M (e.g. 3x3 grid with 6 "
                 "people)",
          refuses=_brute_refuses),
    Stage("grid", solve_grid,
          "editorial's alternate approach on the setter's small-range grid: per-cell "
          "single-person Grundy values by mex from the corner, XOR of value * count",
          "O(N * M + P)",
          limits=f"N * M <= {GRID_MAX_CELLS}", refuses=_grid_refuses),
    Stage("editorial", solve_editorial,
          "sort the (X, Y) pairs, group equal cells, XOR the group sizes of cells "
          "whose X + Y parity differs from that of 1 + M (Staircase Nim)",
          "O(P log P)"),
    Stage("fast", solve_fast,
          "keep people at odd distance, count per distinct cell by sorting one "
          "key per person (native code on a parsed input, else numpy), XOR the counts",
          "O(P log P)",
          warm_up=lambda: solve_fast(parse("1 1 1\n1 1\n"))),  # loads the native code
    Stage("independent-people", solve_independent_people,
          "the editorial's first idea: each person an independent game of value 1 "
          "at odd distance, 0 at even distance; XOR over people",
          "O(P)",
          counterexample=lambda: Case.of(1, 2, [(1, 1), (1, 1)])),
)

