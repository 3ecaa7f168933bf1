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
parity cases, the options always contain every value below sg(n, m) and never sg(n, m) itself. (The seed's write-up skips showing that 0 is
reachable when n is odd and m even; the even-degree argument fills that gap.)

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

import random
import re
from dataclasses import dataclass
from functools import lru_cache

from pipeline.errors import InputError
from pipeline.games import GameSearch
from pipeline.problems.base import Problem, Recipe, Stage
from pipeline.problems.tokens import TokenReader

MOD = 1_000_000_007
MAX_N = 10**5
MAX_SIDE = 10**9

# brute limits (per graph) and the largest shape searched.
BRUTE_MAX_EDGES = 12
BRUTE_MAX_VERTICES = 10
BRUTE_MAX_N = 1000
BRUTE_MAX_STATES = 200_000

# sg-binomial limits.
BINOMIAL_MAX_EDGES = 10**6  # summed over the distinct shapes of one case


@dataclass(frozen=True)
class BattleCase:
    """N graphs as a tuple of (a_i, b_i) pairs, in input order."""

    graphs: tuple[tuple[int, int], ...]

    @property
    def n(self) -> int:
        return len(self.graphs)


# -- parsing and rendering --------------------------------------------------------------------

def parse(text: str) -> BattleCase:
    reader = TokenReader(text)
    n = reader.int("N", 1, MAX_N)
    try:
        values = reader.ints(2 * n, "a_i/b_i", 1, MAX_SIDE)
        reader.end()
    except InputError as fast_error:
        # Re-read slowly so that the error names the right a_i or b_i; the slow path must fail.
        _parse_slow(text)
        raise fast_error
    return BattleCase(tuple(zip(values[0::2], values[1::2])))


def _parse_slow(text: str) -> BattleCase:
    reader = TokenReader(text)
    n = reader.int("N", 1, MAX_N)
    graphs = []
    for i in range(1, n + 1):
        a = reader.int(f"a_{i}", 1, MAX_SIDE)
        b = reader.int(f"b_{i}", 1, MAX_SIDE)
        graphs.append((a, b))
    reader.end()
    return BattleCase(tuple(graphs))


def render(case: BattleCase) -> str:
    lines = [str(case.n)]
    lines.extend(f"{a} {b}" for a, b in case.graphs)
    return "\n".join(lines) + "\n"


def format_answer(case: BattleCase, answer: int) -> str:
    return f"{answer}\n"


_CANONICAL_INT = re.compile(r"0|[1-9][0-9]*")


def validate_answer(case: BattleCase, text: str) -> None:
    reader = TokenReader(text)
    if reader.remaining() == 0:
        raise InputError(1, "expected one integer (the count modulo 1000000007), found nothing",
                         rule="count")
    token = reader.tokens[0]
    if not _CANONICAL_INT.fullmatch(token):
        raise reader.error(0, f"answer should be a non-negative integer without sign or leading "
                           f"zeros, found {token!r}", rule="not-an-integer", with_column=True)
    if int(token) >= MOD:
        raise reader.error(0, f"answer = {token} is not below {MOD}", rule="range")
    reader.index = 1
    reader.end()


def size(case: BattleCase) -> int:
    return case.n


def size_columns(case: BattleCase) -> dict[str, int]:
    edges = sum(a * b for a, b in case.graphs)
    return {
        "graphs": case.n,
        "max_side": max(max(a, b) for a, b in case.graphs),
        "edge_bits": edges.bit_length(),  # sum a_i*b_i reaches 1e23: store its bit length
    }


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


@lru_cache(maxsize=None)
def drawing_grundy_values(a: int, b: int) -> tuple[int, ...]:
    """Grundy value of every drawing of K_{a,b}, indexed by edge mask (edge (i, j) = bit i*b+j)."""
    search = shape_search(a, b)
    full = (1 << (a + b)) - 1
    return tuple(search.grundy((full, emask)) for emask in range(1 << (a * b)))


@lru_cache(maxsize=None)
def _brute_distribution(a: int, b: int) -> tuple[tuple[int, int], ...]:
    counts: dict[int, int] = {}
    for value in drawing_grundy_values(a, b):
        counts[value] = counts.get(value, 0) + 1
    return tuple(sorted(counts.items()))


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


# -- editorial and fast -----------------------------------------------------------------------

def solve_editorial(case: BattleCase) -> int:
    parity = 0
    result = 1
    for i, (a, b) in enumerate(case.graphs):
        parity ^= (a & 1) ^ (b & 1)
        result = result * pow(2, a * b - (1 if i == 0 else 0), MOD) % MOD
    return 0 if parity else result


def solve_fast(case: BattleCase) -> int:
    graphs = case.graphs
    if sum(a + b for a, b in graphs) & 1:
        return 0
    edges = sum(a * b for a, b in graphs)  # exact, >= 1
    return pow(2, (edges - 1) % (MOD - 1), MOD)


# -- recipes ----------------------------------------------------------------------------------

BRUTE_SHAPES = tuple((a, b) for a in range(1, BRUTE_MAX_VERTICES) for b in range(1, BRUTE_MAX_VERTICES)
                     if a * b <= BRUTE_MAX_EDGES and a + b <= BRUTE_MAX_VERTICES)


def _small_graph(rng: random.Random) -> tuple[int, int]:
    if rng.random() < 0.6:  # mostly the cheap shapes
        while True:
            a, b = rng.randint(1, 3), rng.randint(1, 3)
            if (a, b) in BRUTE_SHAPES:
                return a, b
    return rng.choice(BRUTE_SHAPES)


def _big_graph(rng: random.Random, high: int = MAX_SIDE) -> tuple[int, int]:
    return rng.randint(1, high), rng.randint(1, high)


def _flip_parity(graph: tuple[int, int]) -> tuple[int, int]:
    """The same graph with b moved by one (within [1, 1e9]): a+b changes parity."""
    a, b = graph
    return a, (b - 1 if b > 1 else b + 1)


def make_tiny(rng: random.Random) -> BattleCase:
    return BattleCase(tuple(_small_graph(rng) for _ in range(rng.randint(1, 3))))


def make_single_edge(rng: random.Random) -> BattleCase:
    return BattleCase(((1, 1),))


def make_all_ones(rng: random.Random) -> BattleCase:
    return BattleCase(((1, 1),) * rng.randint(1, BRUTE_MAX_N))


def make_huge(rng: random.Random) -> BattleCase:
    return BattleCase(((MAX_SIDE, MAX_SIDE),) * rng.randint(1, 20))


def make_all_equal(rng: random.Random) -> BattleCase:
    graph = _small_graph(rng) if rng.random() < 0.5 else _big_graph(rng)
    return BattleCase((graph,) * rng.randint(1, 50))


def make_odd_total(rng: random.Random) -> BattleCase:
    small = rng.random() < 0.5
    graphs = [_small_graph(rng) if small else _big_graph(rng) for _ in range(rng.randint(1, 5))]
    if sum(a + b for a, b in graphs) % 2 == 0:
        if small:
            last_parity = (sum(a + b for a, b in graphs[:-1]) + 1) % 2
            graphs[-1] = rng.choice([s for s in BRUTE_SHAPES if sum(s) % 2 == last_parity])
        else:
            graphs[-1] = _flip_parity(graphs[-1])
    return BattleCase(tuple(graphs))


def make_medium(rng: random.Random) -> BattleCase:
    """Up to 30 graphs with sides up to 100, total vertex count even (non-zero answer)."""
    graphs = [_big_graph(rng, 100) for _ in range(rng.randint(1, 30))]
    if sum(a + b for a, b in graphs) % 2:
        graphs[-1] = _flip_parity(graphs[-1])
    return BattleCase(tuple(graphs))


def make_large_random(rng: random.Random) -> BattleCase:
    return BattleCase(tuple(_big_graph(rng) for _ in range(rng.randint(1, 1000))))


def make_max_huge(rng: random.Random) -> BattleCase:
    return BattleCase(((MAX_SIDE, MAX_SIDE),) * MAX_N)


def make_max_random(rng: random.Random) -> BattleCase:
    r = rng.randint
    return BattleCase(tuple((r(1, MAX_SIDE), r(1, MAX_SIDE)) for _ in range(MAX_N)))


# -- the problem ------------------------------------------------------------------------------

PROBLEM = Problem(
    id="bipartitebattle",
    title="Bipartite Battle",
    source="Kattis bipartitebattle (ICPC Asia Hanoi Regional 2018, problem B)",
    time_limit_s=1.0,
    parse=parse,
    render=render,
    format_answer=format_answer,
    validate_answer=validate_answer,
    size=size,
    size_columns=size_columns,
    size_measure="N (number of graphs)",
    stages=(
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
        ),
    ),
    recipes=(
        Recipe("tiny", "tiny", "1..3 graphs whose shapes brute can search", make_tiny),
        Recipe("single-edge", "edge", "one 1x1 graph (sample 1)", make_single_edge),
        Recipe("all-ones", "edge", f"1..{BRUTE_MAX_N} graphs, all 1x1", make_all_ones),
        Recipe("huge", "edge", "1..20 graphs, all 1e9 x 1e9", make_huge),
        Recipe("all-equal", "edge", "1..50 copies of one graph (small or up to 1e9)",
               make_all_equal),
        Recipe("odd-total", "edge", "1..5 graphs with sum(a_i + b_i) odd: answer 0",
               make_odd_total),
        Recipe("medium", "family", "1..30 graphs, sides up to 100, even vertex total",
               make_medium),
        Recipe("large-random", "family", "1..1000 graphs, sides up to 1e9", make_large_random),
        Recipe("max-huge", "max", "N = 1e5 graphs, all 1e9 x 1e9", make_max_huge),
        Recipe("max-random", "max", "N = 1e5 graphs, sides uniform in [1, 1e9]",
               make_max_random),
    ),
)
