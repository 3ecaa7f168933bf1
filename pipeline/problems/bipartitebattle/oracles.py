"""The oracles of bipartitebattle: `brute` (a search of the deletion game of every drawing)
and `sg-binomial` (sg(n, m) per drawing, the drawings counted by binomial sums)."""

from __future__ import annotations

from collections import Counter
from functools import cache

from pipeline.games import GameSearch
from pipeline.problems.bipartitebattle.case import MOD, BattleCase

# brute limits (per graph) and the largest shape searched.
BRUTE_MAX_EDGES = 12
BRUTE_MAX_VERTICES = 10
BRUTE_MAX_N = 1000
BRUTE_MAX_STATES = 200_000

# sg-binomial limits.
BINOMIAL_MAX_EDGES = 10**6  # summed over the distinct shapes of one case


# -- brute: search the deletion game of every drawing ----------------------------------------
def _incidence(a: int, b: int) -> list[int]:
    """Edge masks at each vertex: left vertex i is 0..a-1, right vertex j is a+j; edge i*b+j."""
    incident = [0] * (a + b)
    for i in range(a):
        for j in range(b):
            bit = 1 << (i * b + j)
            incident[i] |= bit
            incident[a + j] |= bit
    return incident


def shape_search(a: int, b: int) -> GameSearch:
    """A GameSearch over states (vertex mask, edge mask) of subgraphs of K_{a,b}."""
    incident = _incidence(a, b)
    vertices = a + b

    def moves(state: tuple[int, int]):
        vmask, emask = state
        rest = emask
        while rest:  # delete one edge
            low = rest & -rest
            yield (vmask, emask ^ low)
            rest ^= low
        for v in range(vertices):  # delete one vertex with its edges
            if vmask >> v & 1:
                yield (vmask ^ (1 << v), emask & ~incident[v])

    return GameSearch(moves, max_states=BRUTE_MAX_STATES)


@cache
def drawing_grundy_values(a: int, b: int) -> tuple[int, ...]:
    """Grundy value of every drawing of K_{a,b}, indexed by edge mask (edge (i, j) = bit i*b+j)."""
    search = shape_search(a, b)
    full = (1 << (a + b)) - 1
    return tuple(search.grundy((full, emask)) for emask in range(1 << (a * b)))


@cache
def _brute_distribution(a: int, b: int) -> tuple[tuple[int, int], ...]:
    return tuple(sorted(Counter(drawing_grundy_values(a, b)).items()))


def _xor_convolve(total: dict[int, int], dist) -> dict[int, int]:
    out: dict[int, int] = {}
    for x, cx in total.items():
        for y, cy in dist:
            key = x ^ y
            out[key] = (out.get(key, 0) + cx * cy) % MOD
    return out


def brute_refuses(case: BattleCase) -> str | None:
    if case.n > BRUTE_MAX_N:
        return f"N = {case.n} > {BRUTE_MAX_N}"
    for i, (a, b) in enumerate(case.graphs, 1):
        if a * b > BRUTE_MAX_EDGES or a + b > BRUTE_MAX_VERTICES:
            return (f"graph {i} is {a}x{b}; brute needs a*b <= {BRUTE_MAX_EDGES} and "
                    f"a+b <= {BRUTE_MAX_VERTICES}")
    return None


def solve_brute(case: BattleCase) -> int:
    total = {0: 1}
    for a, b in case.graphs:
        total = _xor_convolve(total, _brute_distribution(min(a, b), max(a, b)))
    return total.get(0, 0) % MOD


# -- sg-binomial: sg(n, m) per drawing, drawings counted by binomial sums ---------------------
def _binomial_parity_sums(edges: int) -> tuple[int, int]:
    """(sum of C(edges, m) over even m, over odd m), mod p, by walking the row of Pascal."""
    inverse = [0] * (edges + 2)
    inverse[1] = 1
    for i in range(2, edges + 1):
        inverse[i] = (MOD - (MOD // i) * inverse[MOD % i] % MOD) % MOD
    sums = [0, 0]
    c = 1
    for m in range(edges + 1):
        sums[m & 1] += c
        c = c * (edges - m) % MOD * inverse[m + 1] % MOD if m < edges else 0
    return sums[0] % MOD, sums[1] % MOD


def sg_formula(n_vertices: int, n_edges: int) -> int:
    """The editorial's Grundy value of a bipartite graph with n vertices and m edges."""
    return (n_vertices & 1) + 2 * (n_edges & 1)


def binomial_refuses(case: BattleCase) -> str | None:
    shapes = {(min(a, b), max(a, b)) for a, b in case.graphs}
    edges = sum(a * b for a, b in shapes)
    if edges > BINOMIAL_MAX_EDGES:
        return f"distinct shapes have {edges} potential edges in all > {BINOMIAL_MAX_EDGES}"
    return None


def solve_sg_binomial(case: BattleCase) -> int:
    cache: dict[tuple[int, int], tuple[tuple[int, int], ...]] = {}
    total = {0: 1}
    for a, b in case.graphs:
        key = (min(a, b), max(a, b))
        dist = cache.get(key)
        if dist is None:
            even, odd = _binomial_parity_sums(a * b)
            dist = cache[key] = ((sg_formula(a + b, 0), even), (sg_formula(a + b, 1), odd))
        total = _xor_convolve(total, dist)
    return total.get(0, 0) % MOD
