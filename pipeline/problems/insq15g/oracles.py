"""The oracles of insq15g: `brute` (a search over the multiset of positions) and `grid` (the
editorial's alternate approach, the setter's small-range program)."""

from __future__ import annotations

from math import comb

from pipeline.games import GameSearch, mex
from pipeline.problems.insq15g.case import Case

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
