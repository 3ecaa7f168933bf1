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
* `fast`: numpy. Keep the people at odd distance, count the people per distinct cell by sorting
  one 64-bit key per person (an exact packed key when the coordinates span less than 2^31,
  otherwise a mixed hash whose equal runs are verified against the real coordinates, with an
  exact lexicographic sort as fallback on a collision) and XOR the counts.
* `independent-people` (known wrong): the editorial's first idea, every person an independent
  game of value 0 or 1; it forgets that people sharing a cell can be pushed together.

Parsing
-------
`parse` first tries a vectorised path (`np.fromstring` over the whole text, ranges checked with
array reductions); on anything unusual (non-ASCII text, a sign, unparsed data, a count or range
failure) it falls back to the token-by-token validating path, which names the line of the error.
"""

from __future__ import annotations

import random
import warnings
from dataclasses import dataclass
from math import comb

import numpy as np

from pipeline.games import GameSearch, mex
from pipeline.problems.base import Problem, Recipe, Stage
from pipeline.problems.tokens import TokenReader, check_words

MAX_SIDE = 10**18
MAX_PEOPLE = 10**6
BRUTE_MAX_STATES = 50_000
GRID_MAX_CELLS = 250_000


# -- the case -----------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Case:
    """A grid of n rows and m columns with person i at row xs[i], column ys[i] (input order).

    `xs` and `ys` are read-only int64 arrays; equality and hashing compare their content.
    """

    n: int
    m: int
    xs: np.ndarray
    ys: np.ndarray

    def __post_init__(self) -> None:
        object.__setattr__(self, "n", int(self.n))
        object.__setattr__(self, "m", int(self.m))
        for name in ("xs", "ys"):
            array = np.array(getattr(self, name), dtype=np.int64).reshape(-1)
            array.setflags(write=False)
            object.__setattr__(self, name, array)
        if self.xs.shape != self.ys.shape:
            raise ValueError("xs and ys must have the same length")

    @classmethod
    def of(cls, n: int, m: int, people) -> Case:
        """A case from a list of (X, Y) pairs."""
        people = list(people)
        return cls(n, m, np.array([x for x, _ in people], dtype=np.int64),
                   np.array([y for _, y in people], dtype=np.int64))

    @property
    def p(self) -> int:
        return int(self.xs.shape[0])

    def people(self) -> list[tuple[int, int]]:
        return list(zip(self.xs.tolist(), self.ys.tolist()))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Case):
            return NotImplemented
        return (self.n == other.n and self.m == other.m
                and np.array_equal(self.xs, other.xs) and np.array_equal(self.ys, other.ys))

    def __hash__(self) -> int:
        return hash((self.n, self.m, self.xs.tobytes(), self.ys.tobytes()))

    def __repr__(self) -> str:
        if self.p <= 12:
            return f"Case(n={self.n}, m={self.m}, people={self.people()})"
        return f"Case(n={self.n}, m={self.m}, p={self.p}, people={self.people()[:6]}...)"


# -- parsing ------------------------------------------------------------------------------------
def parse(text: str) -> Case:
    """Judge input -> Case; raises InputError naming the line of the first broken rule."""
    case = _parse_fast(text)
    if case is None:
        case = _parse_slow(text)
    return case


def _parse_slow(text: str) -> Case:
    """Token-by-token validating parser: the reference for every accept/reject decision."""
    reader = TokenReader(text)
    n = reader.int("N", 1, MAX_SIDE)
    m = reader.int("M", 1, MAX_SIDE)
    p = reader.int("P", 1, MAX_PEOPLE)
    xs = [0] * p
    ys = [0] * p
    for i in range(p):
        index = reader.index
        x = reader.int(f"X_{i + 1}")
        if not 1 <= x <= n:
            raise reader.error(index, f"person {i + 1}: X = {x} is outside 1..N = {n}",
                               rule="range")
        index = reader.index
        y = reader.int(f"Y_{i + 1}")
        if not 1 <= y <= m:
            raise reader.error(index, f"person {i + 1}: Y = {y} is outside 1..M = {m}",
                               rule="range")
        xs[i] = x
        ys[i] = y
    reader.end()
    return Case(n, m, np.array(xs, dtype=np.int64), np.array(ys, dtype=np.int64))


def _parse_fast(text: str) -> Case | None:
    """The same result as `_parse_slow` for a valid input, or None when in any doubt.

    `np.fromstring(..., sep=' ')` reads whitespace-separated integers in C. It would accept a
    leading '+' or '-', saturates on overflow and may read a lone 0 from blank text, so: any
    sign, any non-ASCII character or unread data sends us to the slow path, and so does any
    value outside its range (which covers saturated values and spurious zeros, since every
    valid value is >= 1 and <= 10^18).
    """
    if not isinstance(text, str) or not text.isascii() or "-" in text or "+" in text:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            values = np.fromstring(text, dtype=np.int64, sep=" ")
    except (ValueError, Warning):
        return None
    if values.shape[0] < 3:
        return None
    n, m, p = (int(v) for v in values[:3])
    if not (1 <= n <= MAX_SIDE and 1 <= m <= MAX_SIDE and 1 <= p <= MAX_PEOPLE):
        return None
    if values.shape[0] != 3 + 2 * p:
        return None
    xs = values[3::2].copy()
    ys = values[4::2].copy()
    if int(xs.min()) < 1 or int(xs.max()) > n or int(ys.min()) < 1 or int(ys.max()) > m:
        return None
    return Case(n, m, xs, ys)


def render(case: Case) -> str:
    head = f"{case.n} {case.m} {case.p}\n"
    if case.p == 0:
        return head
    body = "\n".join(map("{} {}".format, case.xs.tolist(), case.ys.tolist()))
    return head + body + "\n"


# -- answers ------------------------------------------------------------------------------------
def format_answer(case: Case, answer: bool) -> str:
    return "Yes\n" if answer else "No\n"


def validate_answer(case: Case, text: str) -> None:
    check_words(text, 1, ("Yes", "No"))


# -- sizes --------------------------------------------------------------------------------------
def size(case: Case) -> int:
    return case.p


def size_columns(case: Case) -> dict[str, int]:
    odd = _odd_mask(case)
    return {
        "people": case.p,
        "distinct_cells": int(_cell_counts(case.xs, case.ys).shape[0]),
        "odd_people": int(np.count_nonzero(odd)),
        "n_digits": len(str(case.n)),
        "m_digits": len(str(case.m)),
    }


# -- stage: brute -------------------------------------------------------------------------------
def _brute_state_bound(case: Case) -> int | None:
    """Upper bound on the states reachable, or None when it is clearly huge.

    Everybody stays inside rows 1..max X and columns min Y..M; a state is a multiset of at
    most P people over the R - 1 cells of that box other than the corner: C(R - 1 + P, P).
    """
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


# -- stage: grid (editorial's alternate approach, setter's small-range program) ----------------
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


# -- stage: editorial ---------------------------------------------------------------------------
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


# -- stage: independent-people (known wrong) ----------------------------------------------------
def solve_independent_people(case: Case) -> bool:
    corner_parity = (1 + case.m) % 2
    total = 0
    for x, y in case.people():
        total ^= int((x + y) % 2 != corner_parity)
    return total != 0


# -- stage: fast --------------------------------------------------------------------------------
_MIX1 = np.uint64(0x9E3779B97F4A7C15)
_MIX2 = np.uint64(0xC2B2AE3D27D4EB4F)


def _odd_mask(case: Case) -> np.ndarray:
    """People at odd distance (X - 1) + (M - Y) from the corner."""
    return ((case.xs ^ case.ys) & 1) != ((case.m + 1) & 1)


def _run_lengths(sorted_keys: np.ndarray) -> np.ndarray:
    edges = np.flatnonzero(sorted_keys[1:] != sorted_keys[:-1]) + 1
    bounds = np.concatenate(([0], edges, [sorted_keys.shape[0]]))
    return np.diff(bounds)


def _cell_counts(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Number of people on each distinct cell (in no particular order)."""
    if xs.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    x_low, y_low = int(xs.min()), int(ys.min())
    if int(xs.max()) - x_low < 2**31 and int(ys.max()) - y_low < 2**31:
        keys = ((xs - x_low) << 32) | (ys - y_low)  # exact: distinct cells, distinct keys
        keys.sort()
        return _run_lengths(keys)
    ux, uy = xs.view(np.uint64), ys.view(np.uint64)
    with np.errstate(over="ignore"):
        h = ux * _MIX1
        h ^= h >> np.uint64(29)
        h += uy
        h *= _MIX2
        h ^= h >> np.uint64(32)
    order = np.argsort(h)
    h, sx, sy = h[order], xs[order], ys[order]
    same = h[1:] == h[:-1]
    if np.any(same & ((sx[1:] != sx[:-1]) | (sy[1:] != sy[:-1]))):
        order = np.lexsort((ys, xs))  # a hash collision: sort exactly instead
        sx, sy = xs[order], ys[order]
        same = (sx[1:] == sx[:-1]) & (sy[1:] == sy[:-1])
    edges = np.flatnonzero(~same) + 1
    bounds = np.concatenate(([0], edges, [xs.shape[0]]))
    return np.diff(bounds)


def solve_fast(case: Case) -> bool:
    odd = _odd_mask(case)
    counts = _cell_counts(case.xs[odd], case.ys[odd])
    if counts.shape[0] == 0:
        return False
    return int(np.bitwise_xor.reduce(counts)) != 0


# -- recipes ------------------------------------------------------------------------------------
def _case(n: int, m: int, people) -> Case:
    return Case.of(n, m, people)


def _cell(rng: random.Random, n: int, m: int) -> tuple[int, int]:
    return rng.randint(1, n), rng.randint(1, m)


def _near_corner(rng: random.Random, n: int, m: int, reach: int) -> tuple[int, int]:
    """A random cell within `reach` steps (up to) of the corner."""
    dx = rng.randint(0, min(reach, n - 1))
    dy = rng.randint(0, min(reach - dx, m - 1))
    return 1 + dx, m - dy


def make_tiny(rng: random.Random) -> Case:
    n, m = rng.randint(1, 3), rng.randint(1, 3)
    p = rng.randint(1, 4)
    if rng.random() < 0.15:
        n, m, p = rng.randint(1, 4), rng.randint(1, 4), rng.randint(1, 3)
    if rng.random() < 0.3:  # crowd a few cells so that head counts matter
        cells = [_cell(rng, n, m) for _ in range(rng.randint(1, 2))]
        people = [rng.choice(cells) for _ in range(p)]
    else:
        people = [_cell(rng, n, m) for _ in range(p)]
    return _case(n, m, people)


def make_one_at_target(rng: random.Random) -> Case:
    n = rng.choice([1, 2, 5, rng.randint(1, 10**18)])
    m = rng.choice([1, 2, 5, rng.randint(1, 10**18)])
    p = rng.randint(1, 5)
    people = [(1, m)] * p
    if rng.random() < 0.5:  # plus one person a step or two away
        people.append(_near_corner(rng, n, m, 2))
        rng.shuffle(people)
    return _case(n, m, people)


def make_all_on_one_cell(rng: random.Random) -> Case:
    n, m = rng.randint(1, 4), rng.randint(1, 4)
    p = rng.randint(1, 7)
    cell = _near_corner(rng, n, m, 2) if rng.random() < 0.7 else _cell(rng, n, m)
    if rng.random() < 0.2:
        n, m = rng.randint(1, 10**18), rng.randint(1, 10**18)
        cell = _cell(rng, n, m)
    return _case(n, m, [cell] * p)


def make_single_row(rng: random.Random) -> Case:
    m = rng.randint(1, 7)
    p = rng.randint(1, 4)
    return _case(1, m, [(1, rng.randint(1, m)) for _ in range(p)])


def make_single_column(rng: random.Random) -> Case:
    n = rng.randint(1, 7)
    p = rng.randint(1, 4)
    return _case(n, 1, [(rng.randint(1, n), 1) for _ in range(p)])


def make_huge_grid(rng: random.Random) -> Case:
    n = m = MAX_SIDE
    p = rng.randint(1, 4)
    if rng.random() < 0.6:
        people = [_near_corner(rng, n, m, 3) for _ in range(p)]
    else:
        people = [rng.choice([(n, 1), (1, 1), (n, m), _cell(rng, n, m)]) for _ in range(p)]
    return _case(n, m, people)


def make_two_steps_away(rng: random.Random) -> Case:
    n = rng.choice([1, 2, 3, 4, MAX_SIDE])
    m = rng.choice([1, 2, 3, 4, MAX_SIDE])
    if n + m < 4:
        n = 3
    cells = [(1 + dx, m - (2 - dx)) for dx in range(3) if dx <= n - 1 and 2 - dx <= m - 1]
    p = rng.randint(1, 5)
    people = [rng.choice(cells) for _ in range(p)]
    if rng.random() < 0.4:  # and sometimes a few people on the corner
        people += [(1, m)] * rng.randint(1, 2)
    return _case(n, m, people)


def make_random_medium(rng: random.Random) -> Case:
    n = rng.choice([rng.randint(1, 400), rng.randint(1, 10**18)])
    m = rng.choice([rng.randint(1, 400), rng.randint(1, 10**18)])
    p = rng.randint(1, 3000)
    return _case(n, m, [_cell(rng, n, m) for _ in range(p)])


def make_clustered_medium(rng: random.Random) -> Case:
    """Few distinct cells with many people each, so that the XOR of head counts decides."""
    n = rng.choice([rng.randint(1, 300), rng.randint(1, 10**18)])
    m = rng.choice([rng.randint(1, 300), rng.randint(1, 10**18)])
    cells = [_cell(rng, n, m) for _ in range(rng.randint(1, 8))]
    p = rng.randint(1, 3000)
    return _case(n, m, [rng.choice(cells) for _ in range(p)])


def _np_rng(rng: random.Random) -> np.random.Generator:
    return np.random.default_rng(rng.getrandbits(64))


def _huge_side(rng: random.Random) -> int:
    return rng.choice([MAX_SIDE, rng.randint(10**17, MAX_SIDE)])


def _make_distinct(p: int):
    def make(rng: random.Random) -> Case:
        gen = _np_rng(rng)
        if rng.random() < 0.5:  # a huge grid
            n, m = _huge_side(rng), _huge_side(rng)
            xs = gen.integers(1, n, size=p, endpoint=True, dtype=np.int64)
            ys = gen.integers(1, m, size=p, endpoint=True, dtype=np.int64)
            if _cell_counts(xs, ys).shape[0] != p:  # practically never: drop repeats, top up
                seen: set[tuple[int, int]] = set()
                for cell in zip(xs.tolist(), ys.tolist()):
                    seen.add(cell)
                while len(seen) < p:
                    seen.add(_cell(rng, n, m))
                cells = sorted(seen)
                xs = np.array([x for x, _ in cells], dtype=np.int64)
                ys = np.array([y for _, y in cells], dtype=np.int64)
            order = gen.permutation(p)
            return Case(n, m, xs[order], ys[order])
        # a tight grid with barely more cells than people: P distinct cells out of N * M
        n = rng.randint(1, p)
        m = -(-p // n) + rng.randint(0, 3)
        chosen = gen.choice(n * m, size=p, replace=False).astype(np.int64)
        return Case(n, m, chosen // m + 1, chosen % m + 1)
    return make


def _make_one_cell(p: int):
    def make(rng: random.Random) -> Case:
        n, m = _huge_side(rng), _huge_side(rng)
        x, y = _cell(rng, n, m)
        return Case(n, m, np.full(p, x, dtype=np.int64), np.full(p, y, dtype=np.int64))
    return make


def make_max_random(rng: random.Random) -> Case:
    """10^6 people in a huge grid: uniform cells, or drawn from a pool of repeated cells."""
    gen = _np_rng(rng)
    n, m = _huge_side(rng), _huge_side(rng)
    p = MAX_PEOPLE
    if rng.random() < 0.5:
        xs = gen.integers(1, n, size=p, endpoint=True, dtype=np.int64)
        ys = gen.integers(1, m, size=p, endpoint=True, dtype=np.int64)
    else:
        pool = rng.choice([1, 2, 100, 10_000, 300_000])
        px = gen.integers(1, n, size=pool, endpoint=True, dtype=np.int64)
        py = gen.integers(1, m, size=pool, endpoint=True, dtype=np.int64)
        pick = gen.integers(0, pool, size=p)
        xs, ys = px[pick], py[pick]
    return Case(n, m, xs, ys)


# -- the problem --------------------------------------------------------------------------------
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
        description="numpy: keep people at odd distance, count per distinct cell by sorting a "
                    "packed or verified-hash 64-bit key, XOR the counts",
        complexity="O(P log P), vectorised",
    ),
    Stage(
        name="independent-people",
        solve=solve_independent_people,
        description="the editorial's first idea: each person an independent game of value 1 "
                    "at odd distance, 0 at even distance; XOR over people",
        complexity="O(P)",
        known_wrong="people sharing a cell are not independent games (several can be pushed "
                    "in one move): two people on (1, 1) of a 1x2 grid is a first-player win",
    ),
)

RECIPES = (
    Recipe("tiny", "tiny", "grids up to 3x3 (sometimes 4x4), 1..4 people, sometimes crowded",
           make_tiny),
    Recipe("one-at-target", "edge", "people on the corner (1, M), sometimes plus one near it",
           make_one_at_target),
    Recipe("all-on-one-cell", "edge", "up to 7 people on one cell", make_all_on_one_cell),
    Recipe("single-row", "edge", "N = 1, M up to 7", make_single_row),
    Recipe("single-column", "edge", "M = 1, N up to 7", make_single_column),
    Recipe("huge-grid", "edge", "N = M = 10^18 with 1..4 people, mostly near the corner",
           make_huge_grid),
    Recipe("two-steps-away", "edge", "everyone two steps from the corner (or on it): always No",
           make_two_steps_away),
    Recipe("random-medium", "family", "up to 3000 people on uniform cells of a small or huge "
           "grid", make_random_medium),
    Recipe("clustered-medium", "family", "up to 3000 people on at most 8 distinct cells",
           make_clustered_medium),
    Recipe("max-1e5-distinct", "max", "10^5 people on distinct cells of a huge or tight grid",
           _make_distinct(10**5)),
    Recipe("max-1e5-one-cell", "max", "10^5 people on one cell of a huge grid",
           _make_one_cell(10**5)),
    Recipe("max-1e6-distinct", "max", "10^6 people on distinct cells of a huge or tight grid",
           _make_distinct(MAX_PEOPLE)),
    Recipe("max-1e6-one-cell", "max", "10^6 people on one cell of a huge grid",
           _make_one_cell(MAX_PEOPLE)),
    Recipe("max-1e6-random", "max", "10^6 people on uniform cells of a huge grid, or drawn "
           "from a pool of repeated cells", make_max_random),
)

PROBLEM = Problem(
    id="insq15g",
    title="People on a grid (Staircase Nim)",
    source="CodeChef INSQ15_G",
    time_limit_s=1.0,
    parse=parse,
    render=render,
    format_answer=format_answer,
    validate_answer=validate_answer,
    size=size,
    size_columns=size_columns,
    size_measure="P (number of people)",
    stages=STAGES,
    recipes=RECIPES,
)
