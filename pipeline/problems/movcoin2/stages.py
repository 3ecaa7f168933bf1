"""The stages of movcoin2: brute (the game itself), quadratic, per-coin, the seed editorial,
and the compiled `fast` with the known-wrong `tester-17bit` (the centroid-decomposition kernel
of native.c; where it is unavailable these two refuse). All but brute compute
g(R) = XOR of dist(R, v) over odd-coin nodes v first."""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from pipeline.errors import BeyondLimits
from pipeline.games import GameSearch
from pipeline.problems.base import Stage
from pipeline.problems.movcoin2.case import (
    Forest,
    Movcoin2Case,
    TreeCase,
    answer_from_grundy,
    forest_of,
    functions,
    kernel_refuses,
    path_case,
)

if TYPE_CHECKING:  # numpy is imported by the stages that use it (not by `pipeline solve`)
    import numpy as np

def adjacency(test: TreeCase) -> list[list[int]]:
    """0-based neighbour lists."""
    adj: list[list[int]] = [[] for _ in range(test.n)]
    for u, v in test.edges:
        adj[u - 1].append(v - 1)
        adj[v - 1].append(u - 1)
    return adj


def bfs_distances(adj: list[list[int]], source: int) -> list[int]:
    dist = [-1] * len(adj)
    dist[source] = 0
    queue = deque([source])
    while queue:
        u = queue.popleft()
        du = dist[u] + 1
        for w in adj[u]:
            if dist[w] < 0:
                dist[w] = du
                queue.append(w)
    return dist


def subtree_sizes(order: list[int], parent: list[int]) -> list[int]:
    """The size of every node's subtree, from an order that lists parents first."""
    size = [1] * len(order)
    for u in reversed(order[1:]):
        size[parent[u]] += size[u]
    return size


def bfs_tree(adj: list[list[int]], root: int) -> tuple[list[int], list[int]]:
    """(the nodes in BFS order from `root`, the parent of each node; the root's is -1)."""
    parent = [-1] * len(adj)
    seen = [False] * len(adj)
    seen[root] = True
    order = [root]
    queue = deque([root])
    while queue:
        u = queue.popleft()
        for w in adj[u]:
            if not seen[w]:
                seen[w] = True
                parent[w] = u
                order.append(w)
                queue.append(w)
    return order, parent


# -- brute ------------------------------------------------------------------------------------
BRUTE_BUDGET = 200_000


def brute_estimate(test: TreeCase, cap: int = BRUTE_BUDGET) -> int:
    """n roots times comb(n - 1 + C, C) coin configurations per game, built factor by factor
    and stopped past `cap` (then cap + 1), so a huge case costs nothing to refuse."""
    coins = sum(test.coins)
    k = min(coins, test.n - 1)
    estimate = test.n
    for i in range(1, k + 1):  # comb(n - 1 + C, k) grows with every factor
        estimate = estimate * (test.n - 1 + coins - k + i) // i
        if estimate > cap:
            return cap + 1
    return estimate


def brute_refuses(case: Movcoin2Case) -> str | None:
    estimate = 0
    for test in case.tests:
        estimate += brute_estimate(test)
        if estimate > BRUTE_BUDGET:
            return (f"sum over tests of n * comb(n - 1 + coins, coins) is above "
                    f"{BRUTE_BUDGET}")
    return None


def brute_test(test: TreeCase) -> int:
    """Play every game g(T, R) by memoised search over coin configurations."""
    n = test.n
    adj = adjacency(test)
    bob_wins = []
    for root in range(n):
        # toward[v]: the nodes after v on the path v .. root (root included).
        order, parent = bfs_tree(adj, root)
        toward: list[tuple[int, ...]] = [()] * n
        for v in order[1:]:  # parents first
            toward[v] = (parent[v], *toward[parent[v]])

        def moves(state: tuple[int, ...], root=root, toward=toward):
            for v in range(n):
                if v != root and state[v]:
                    for w in toward[v]:
                        nxt = list(state)
                        nxt[v] -= 1
                        if w != root:  # a coin reaching R is out of the game for good
                            nxt[w] += 1
                        yield tuple(nxt)

        start = list(test.coins)
        start[root] = 0
        search = GameSearch(moves, max_states=10 * BRUTE_BUDGET)
        bob_wins.append(not search.is_winning(tuple(start)))
    return answer_from_grundy([0 if win else 1 for win in bob_wins])


def brute(case: Movcoin2Case) -> list[int]:
    return [brute_test(test) for test in case.tests]


# -- quadratic --------------------------------------------------------------------------------
QUADRATIC_MAX_N = 4000
QUADRATIC_BUDGET = 40_000_000


def quadratic_refuses(case: Movcoin2Case) -> str | None:
    biggest = max(test.n for test in case.tests)
    if biggest > QUADRATIC_MAX_N:
        return f"a test has n = {biggest} > {QUADRATIC_MAX_N} (n x n distance matrix)"
    work = sum(test.n * test.n for test in case.tests)
    if work > QUADRATIC_BUDGET:
        return f"sum of n^2 = {work} is above {QUADRATIC_BUDGET}"
    return None


def quadratic_grundy(test: TreeCase) -> np.ndarray:
    """Distance rows of every root, each derived from its parent's row, then XOR over coins.
    Columns are nodes in preorder, so a subtree is an interval: moving the root from p to a
    child v gives row_v = row_p + 1, minus 2 on v's interval. Row 1 comes from a BFS."""
    import numpy as np

    n = test.n
    adj = adjacency(test)
    parent = [-1] * n
    order = []
    stack = [0]
    seen = [False] * n
    seen[0] = True
    while stack:  # iterative preorder
        u = stack.pop()
        order.append(u)
        for w in reversed(adj[u]):
            if not seen[w]:
                seen[w] = True
                parent[w] = u
                stack.append(w)
    tin = [0] * n
    for i, u in enumerate(order):
        tin[u] = i
    size = subtree_sizes(order, parent)
    dist = np.empty((n, n), dtype=np.int32)
    root_row = np.array(bfs_distances(adj, 0), dtype=np.int32)
    dist[0] = root_row[np.array(order, dtype=np.int64)]
    for u in order[1:]:
        row = dist[u]
        np.add(dist[parent[u]], 1, out=row)
        row[tin[u]:tin[u] + size[u]] -= 2
    columns = np.array([tin[v - 1] for v in test.coin_nodes], dtype=np.int64)
    if len(columns) == 0:
        return np.zeros(n, dtype=np.int64)
    return np.bitwise_xor.reduce(dist[:, columns], axis=1)


def quadratic(case: Movcoin2Case) -> list[int]:
    return [answer_from_grundy(quadratic_grundy(test).tolist()) for test in case.tests]


# -- per-coin ---------------------------------------------------------------------------------
PER_COIN_BUDGET = 6_000_000


def per_coin_refuses(case: Movcoin2Case) -> str | None:
    work = sum(test.n * max(1, len(test.coin_nodes)) for test in case.tests)
    if work > PER_COIN_BUDGET:
        return f"sum over tests of n * (odd-coin nodes) = {work} is above {PER_COIN_BUDGET}"
    return None


def per_coin_grundy(test: TreeCase) -> np.ndarray:
    """One BFS from each odd-coin node; XOR of the distance arrays."""
    import numpy as np

    adj = adjacency(test)
    grundy = np.zeros(test.n, dtype=np.int64)
    for v in test.coin_nodes:
        grundy ^= np.array(bfs_distances(adj, v - 1), dtype=np.int64)
    return grundy


def per_coin(case: Movcoin2Case) -> list[int]:
    return [answer_from_grundy(per_coin_grundy(test).tolist()) for test in case.tests]


# -- editorial --------------------------------------------------------------------------------
EDITORIAL_MAX_SUM_N = 30_000


def editorial_refuses(case: Movcoin2Case) -> str | None:
    total = sum(test.n for test in case.tests)
    if total > EDITORIAL_MAX_SUM_N:
        return f"sum of n = {total} is above {EDITORIAL_MAX_SUM_N} (pure Python)"
    return None


class DistTracker:
    """A multiset of distances that can all be shifted by +-1 at once; keeps their XOR.

    Per bit x (period M = 2^(x+1)), bit x is set when value mod M lies in [2^x, M). Values are
    stored by residue (d - shift) mod M, so a shift slides that zone one step over them and only
    the residues entering and leaving it change the count: O(bits) per shift or insert."""

    def __init__(self, num_bits: int) -> None:
        self.num_bits = num_bits
        self.shift = 0
        self.counts = [[0] * (2 << x) for x in range(num_bits)]
        self.ones = [0] * num_bits  # how many tracked values have bit x set
        self.grundy = 0

    def insert_dist(self, distance: int) -> None:
        for x in range(self.num_bits):
            period = 2 << x
            self.counts[x][(distance - self.shift) % period] += 1
            if distance % period >= (1 << x):
                self.ones[x] += 1
                self.grundy ^= 1 << x

    def add_to_all_dists(self, step: int) -> None:
        shift = self.shift
        for x in range(self.num_bits):
            period = 2 << x
            half = 1 << x
            counts = self.counts[x]
            if step == 1:  # values half-1 -> half enter, values period-1 -> 0 leave
                delta = counts[(half - 1 - shift) % period] - counts[(period - 1 - shift) % period]
            else:  # values half -> half-1 leave, values 0 -> period-1 enter
                delta = counts[(-shift) % period] - counts[(half - shift) % period]
            if delta:
                before = self.ones[x]
                self.ones[x] = before + delta
                if (before ^ self.ones[x]) & 1:
                    self.grundy ^= half
        self.shift = shift + step

    def grundy_number(self) -> int:
        return self.grundy


def editorial_grundy(test: TreeCase) -> list[int]:
    """Centroid decomposition; per centroid two sweeps over its branches with a DistTracker."""
    n = test.n
    adj = adjacency(test)
    has_coin = [bool(c & 1) for c in test.coins]
    grundy = [0] * n
    removed = [False] * n
    size = [0] * n
    pending = [0]
    while pending:
        start = pending.pop()
        # The component of `start`: BFS order, subtree sizes, centroid.
        order = [start]
        parent = {start: -1}
        for u in order:
            for w in adj[u]:
                if not removed[w] and w != parent[u]:
                    parent[w] = u
                    order.append(w)
        for u in order:
            size[u] = 1
        for u in reversed(order[1:]):
            size[parent[u]] += size[u]
        total = len(order)
        centroid = start
        for u in order:
            biggest = total - size[u]
            for w in adj[u]:
                if not removed[w] and w != parent[u]:
                    biggest = max(biggest, size[w])
            if 2 * biggest <= total:
                centroid = u
                break
        removed[centroid] = True
        branches = [w for w in adj[centroid] if not removed[w]]
        # Distances from the centroid bound every tracked value by 2 * depth.
        depth = max((d for b in branches for _, d in _depths(adj, removed, centroid, b)),
                    default=0)
        num_bits = max(1, (2 * depth).bit_length())

        forward = DistTracker(num_bits)
        if has_coin[centroid]:
            forward.insert_dist(0)  # propagates the centroid's coin to every branch
        for b in branches:
            _propagate(adj, removed, centroid, b, forward, grundy)
            _collect(adj, removed, centroid, b, forward, has_coin)
        grundy[centroid] ^= forward.grundy_number()  # every coin of the component
        backward = DistTracker(num_bits)
        for b in reversed(branches):
            _propagate(adj, removed, centroid, b, backward, grundy)
            _collect(adj, removed, centroid, b, backward, has_coin)
        pending.extend(branches)
    return grundy


def _depths(adj, removed, centroid, branch):
    """(node, distance from the centroid) of every node of one branch, depth first."""
    stack = [(branch, centroid, 1)]
    while stack:
        u, p, d = stack.pop()
        yield u, d
        for w in adj[u]:
            if w != p and not removed[w]:
                stack.append((w, u, d + 1))


def _propagate(adj, removed, centroid, branch, tracker: DistTracker, grundy) -> None:
    """DFS over one branch: +1 on entering a node, -1 after leaving it."""
    stack = [(branch, centroid, False)]
    while stack:
        u, p, leaving = stack.pop()
        if leaving:
            tracker.add_to_all_dists(-1)
            continue
        tracker.add_to_all_dists(1)
        grundy[u] ^= tracker.grundy_number()
        stack.append((u, p, True))
        for w in adj[u]:
            if w != p and not removed[w]:
                stack.append((w, u, False))


def _collect(adj, removed, centroid, branch, tracker: DistTracker, has_coin) -> None:
    for u, d in _depths(adj, removed, centroid, branch):
        if has_coin[u]:
            tracker.insert_dist(d)


def editorial(case: Movcoin2Case) -> list[int]:
    return [answer_from_grundy(editorial_grundy(test)) for test in case.tests]


# -- fast and tester-17bit: the compiled kernel (native.c) ------------------------------------
def _forest(case: Movcoin2Case) -> Forest:
    return case.forest if case.forest is not None else forest_of(case.tests)


def fast_grundy(case: Movcoin2Case):
    """Grundy values of all nodes (tests concatenated in order) as a NumPy array; BeyondLimits
    where the kernel is unavailable."""
    import numpy as np

    if (reason := kernel_refuses(case)) is not None:
        raise BeyondLimits(f"fast_grundy: {reason}")
    _, grundy = solve_native(_forest(case), 63, with_grundy=True)
    return np.frombuffer(grundy, dtype=np.int64).copy()


def fast(case: Movcoin2Case) -> list[int]:
    return solve_native(_forest(case), 63)


def tester_17bit(case: Movcoin2Case) -> list[int]:
    return solve_native(_forest(case), 17)


def solve_native(forest: Forest, bit_limit: int, with_grundy: bool = False):
    """Per-test answers (a list), and every node's Grundy value too when `with_grundy`."""
    from pipeline.native.bulk import address, zeroed

    library = functions()
    answers = zeroed("q", len(forest.sizes))
    grundy = zeroed("q", forest.total) if with_grundy else None
    status = library.movcoin2_solve(forest.total, address(forest.eu), address(forest.ev),
                                    address(forest.odd), address(forest.starts),
                                    address(forest.sizes), len(forest.sizes), bit_limit,
                                    address(answers),
                                    address(grundy) if grundy is not None else None)
    if status == -2:
        raise MemoryError("movcoin2: native kernel ran out of memory")
    return (answers.tolist(), grundy) if with_grundy else answers.tolist()


STAGES = (
    Stage("brute", brute,
          "memoised win/lose search over coin configurations, one game per root",
          "O(N * configurations * moves)",
          limits=f"sum over tests of n * comb(n - 1 + coins, coins) <= {BRUTE_BUDGET}",
          refuses=brute_refuses),
    Stage("quadratic", quadratic,
          "distance row of every root (rerooted in numpy), XOR over odd-coin nodes",
          "O(N^2)",
          limits=f"every n <= {QUADRATIC_MAX_N} and sum of n^2 <= "
                 f"{QUADRATIC_BUDGET}",
          refuses=quadratic_refuses),
    Stage("per-coin", per_coin,
          "one BFS per odd-coin node, XOR of the distance arrays",
          "O(N * K), K = odd-coin nodes",
          limits=f"sum over tests of n * max(1, K) <= {PER_COIN_BUDGET}",
          refuses=per_coin_refuses),
    Stage("editorial", editorial,
          "centroid decomposition + per-bit DistTracker sweeps, pure Python (seed editorial)",
          "O(N log^2 N)",
          limits=f"sum of n <= {EDITORIAL_MAX_SUM_N}",
          refuses=editorial_refuses),
    Stage("fast", fast,
          "compiled (C) centroid decomposition with per-bit sliding-window XOR tables",
          "O(N log^2 N)", limits="native.c available", refuses=kernel_refuses),
    # Below 131,073 nodes every distance, hence every XOR, is < 2^17 and the cut is harmless;
    # on this path the far end has g = 2^17, which 17 bits read as 0.
    Stage("tester-17bit", tester_17bit,
          "fast with the published tester's fixed MAX_BITS = 17",
          "O(N log^2 N)", limits="native.c available", refuses=kernel_refuses,
          counterexample=lambda: path_case(131_073, (1,))),
)

