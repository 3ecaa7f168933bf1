"""The stages of bipartitebattle: the oracles `brute` (a search of the deletion game of every
drawing) and `sg-binomial` (sg(n, m) per drawing, the drawings counted by binomial sums), the
seed's program (`editorial`) and `fast` (one modular power of the exact edge total)."""

from __future__ import annotations

from collections import Counter
from functools import cache

from pipeline.games import GameSearch
from pipeline.problems.base import Stage
from pipeline.problems.bipartitebattle.case import MOD, BattleCase, functions, parse

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


# -- editorial: the seed's program, one modular power per graph -------------------------------
def solve_editorial(case: BattleCase) -> int:
    parity = 0
    result = 1
    for i, (a, b) in enumerate(case.graphs):
        parity ^= (a & 1) ^ (b & 1)
        result = result * pow(2, a * b - (1 if i == 0 else 0), MOD) % MOD
    return 0 if parity else result


# -- fast: the parity of the vertex total, then one modular power of the exact edge total -----
def solve_fast(case: BattleCase) -> int:
    """A case read natively is solved by native code on its tokens (the same sums, the edge
    total in 128 bits); any other by `solve_python`."""
    if case.packed is not None and functions() is not None:
        from pipeline.native.bulk import address

        return functions().bipartitebattle_solve(address(case.packed))
    return solve_python(case)
def solve_python(case: BattleCase) -> int:
    graphs = case.graphs
    if sum(a + b for a, b in graphs) & 1:
        return 0
    edges = sum(a * b for a, b in graphs)  # exact, >= 1
    return pow(2, (edges - 1) % (MOD - 1), MOD)


STAGES = (
    Stage("brute", solve_brute,
          "Grundy value of every edge subset of every K_{a,b} by GameSearch over "
          "(vertex set, edge set) deletion states, memo per shape; XOR convolution "
          "of the per-graph Grundy distributions counts the losing drawings",
          "per distinct shape: sum_{i<=a,j<=b} C(a,i)C(b,j)2^(ij) states; "
          "O(N * G^2) convolution",
          limits=f"every graph a*b <= {BRUTE_MAX_EDGES} and a+b <= "
                 f"{BRUTE_MAX_VERTICES}; N <= {BRUTE_MAX_N}",
          refuses=brute_refuses),
    Stage("sg-binomial", solve_sg_binomial,
          "sg(n, m) = n%2 + 2(m%2) per drawing (checked by search on small graphs); "
          "drawings counted per edge-count parity by summing binomials C(ab, m), "
          "XOR convolution over the four Grundy values",
          "O(sum of a*b over distinct shapes + N)",
          limits=f"sum of a*b over distinct shapes <= {BINOMIAL_MAX_EDGES}",
          refuses=binomial_refuses),
    Stage("editorial", solve_editorial,
          "seed program: parity of sum(a_i + b_i); product of 2^(a_i b_i) with "
          "the first exponent minus one, one modular power per graph",
          "O(N log(max a*b))"),
    Stage("fast", solve_fast,
          "0 if sum(a_i + b_i) is odd, else 2^((sum a_i b_i - 1) mod (p-1)) mod p "
          "with one modular power",
          "O(N) after parsing",
          warm_up=lambda: solve_fast(parse("1\n1 1\n"))),  # loads the native code
)

