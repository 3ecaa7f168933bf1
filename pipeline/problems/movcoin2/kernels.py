"""numba kernels of the movcoin2 `fast` stage, the fallback where native.c cannot be built
(imported lazily: importing numba is slow). The algorithm: docs/architecture.md, "The fast
kernel"; `bit_limit` caps the bits examined (63 trusted, 17 the published tester's).
"""

from __future__ import annotations

import numpy as np
from numba import njit

MOD = 1_000_000_007


@njit(cache=True)
def _apply(nodes, pd, po, a, e, center, center_odd, grundy, hist, table, low, residues,
           bit_limit):
    """g[u] ^= F(pd[i]) for u = nodes[i], i in a..e-1 (and g[center] ^= F(0) if center >= 0),

    where F(q) = XOR over the coins of (their distance + q); the coins are the positions j in
    a..e-1 with po[j] = 1 at distance pd[j], plus one at distance 0 if center_odd."""
    deepest = 0
    deepest_coin = 0 if center_odd else -1
    for i in range(a, e):
        d = pd[i]
        if d > deepest:
            deepest = d
        if po[i] and d > deepest_coin:
            deepest_coin = d
    reach = deepest_coin + deepest
    if deepest_coin < 0 or reach == 0:
        return
    bits = 0
    while (1 << bits) <= reach:
        bits += 1
    top = min(bits, bit_limit) - 1
    if top < 0:
        return
    for d in range(deepest_coin + 1):
        hist[d] = 0
    if center_odd:
        hist[0] = 1
    for i in range(a, e):
        if po[i]:
            hist[pd[i]] ^= 1
    # Bits below `low_bits` repeat with a period dividing `span` in q: compute them on
    # q < span only, then look them up; the others slide over every q up to `deepest`.
    span = 1
    low_bits = 0
    while span * 32 <= deepest + 1:
        span *= 2
        low_bits += 1
    for q in range(deepest + 1):
        table[q] = 0
    for q in range(span):
        low[q] = 0
    period = 2 << top
    for r in range(period):
        residues[r] = 0
    for d in range(deepest_coin + 1):
        residues[d & (period - 1)] ^= hist[d]
    for b in range(top, -1, -1):
        half = 1 << b
        period = 2 * half
        mask = period - 1
        if b < top:  # fold the residues mod 2^(b+2) down to residues mod 2^(b+1)
            for r in range(period):
                residues[r] ^= residues[r + period]
        parity = np.int64(0)
        for r in range(half, period):
            parity ^= residues[r]
        if b >= low_bits:
            for q in range(deepest + 1):
                table[q] |= parity * half
                parity ^= residues[(mask - q) & mask] ^ residues[(half - 1 - q) & mask]
        else:
            for q in range(span):
                low[q] |= parity * half
                parity ^= residues[(mask - q) & mask] ^ residues[(half - 1 - q) & mask]
    if low_bits > 0:
        for q in range(deepest + 1):
            table[q] |= low[q & (span - 1)]
    for i in range(a, e):
        grundy[nodes[i]] ^= table[pd[i]]
    if center >= 0:
        grundy[center] ^= table[0]


@njit(cache=True)
def _bfs_relabel(total, eu, ev, starts):
    """CSR adjacency with nodes renumbered in BFS order, test by test (ranges are kept).

    Returns (offs, adj, perm, parent): perm maps a new id to the old one, parent is the BFS
    parent in new ids (-1 at each test's first node)."""
    m = eu.shape[0]
    offs = np.zeros(total + 1, np.int32)
    for i in range(m):
        offs[eu[i] + 1] += 1
        offs[ev[i] + 1] += 1
    for i in range(total):
        offs[i + 1] += offs[i]
    fill = offs[:-1].copy()
    adj = np.empty(2 * m, np.int32)
    for i in range(m):
        a = eu[i]
        b = ev[i]
        adj[fill[a]] = b
        fill[a] += 1
        adj[fill[b]] = a
        fill[b] += 1
    perm = np.empty(total, np.int32)
    rank = np.full(total, -1, np.int32)
    parent = np.empty(total, np.int32)
    tail = 0
    for s in starts:
        head = tail
        perm[tail] = s
        rank[s] = tail
        parent[tail] = -1
        tail += 1
        while head < tail:
            u = perm[head]
            for k in range(offs[u], offs[u + 1]):
                w = adj[k]
                if rank[w] < 0:
                    rank[w] = tail
                    perm[tail] = w
                    parent[tail] = head
                    tail += 1
            head += 1
    new_offs = np.zeros(total + 1, np.int32)
    new_adj = np.empty(2 * m, np.int32)
    for x in range(total):
        u = perm[x]
        begin = new_offs[x]
        length = offs[u + 1] - offs[u]
        for k in range(length):
            new_adj[begin + k] = rank[adj[offs[u] + k]]
        new_offs[x + 1] = begin + length
    return new_offs, new_adj, perm, parent


@njit(cache=True)
def _centroid(cur_par, size, biggest, a, e):
    """Position of a centroid of the component stored at positions a..e-1 (BFS order)."""
    count = e - a
    for i in range(a, e):
        size[i] = 1
        biggest[i] = 0
    for i in range(e - 1, a, -1):
        p = cur_par[i]
        size[p] += size[i]
        if size[i] > biggest[p]:
            biggest[p] = size[i]
    for i in range(a, e):
        if 2 * max(biggest[i], count - size[i]) <= count:
            return i
    return a


@njit(cache=True)
def _level(offs, adj, odd, removed, came_from, size, biggest, cur_nodes, cur_par, seg_a,
           seg_e, segments, nxt_nodes, nxt_par, nxt_a, nxt_e, pd, po, grundy, hist, table,
           low, residues, bit_limit):
    """One level of the decomposition: every component of `cur_*` gets its centroid removed,
    its branches become the next level's components in `nxt_*`. Returns their number."""
    w = 0
    nxt_count = 0
    for sidx in range(segments):
        a = seg_a[sidx]
        e = seg_e[sidx]
        if e - a == 1:
            continue  # a lone node: its only pair is with itself, at distance 0
        center = cur_nodes[_centroid(cur_par, size, biggest, a, e)]
        removed[center] = True
        first_branch = nxt_count
        w0 = w
        for k in range(offs[center], offs[center + 1]):
            b = adj[k]
            if removed[b]:
                continue
            nxt_a[nxt_count] = w
            nxt_nodes[w] = b
            nxt_par[w] = -1
            pd[w] = 1
            po[w] = odd[b]
            came_from[b] = center
            head = w
            w += 1
            while head < w:
                u = nxt_nodes[head]
                du = pd[head] + 1
                for kk in range(offs[u], offs[u + 1]):
                    x = adj[kk]
                    if x != came_from[u] and not removed[x]:
                        came_from[x] = u
                        nxt_nodes[w] = x
                        nxt_par[w] = head
                        pd[w] = du
                        po[w] = odd[x]
                        w += 1
                head += 1
            nxt_e[nxt_count] = w
            nxt_count += 1
        # The whole component with the centroid, then each branch alone (cancelling pairs
        # that do not pass through the centroid).
        _apply(nxt_nodes, pd, po, w0, w, center, odd[center], grundy, hist, table, low,
               residues, bit_limit)
        for j in range(first_branch, nxt_count):
            _apply(nxt_nodes, pd, po, nxt_a[j], nxt_e[j], -1, 0, grundy, hist, table, low,
                   residues, bit_limit)
    return nxt_count


@njit(cache=True)
def forest_answers(total, eu, ev, odd_old, starts, sizes, bit_limit):
    """Per-test answers (and all Grundy values) of the forest with edges eu[i]-ev[i].

    Level-synchronous centroid decomposition: each component is a segment of node ids in BFS
    order with parent positions (sizes and centroid need no new search); each branch's BFS from
    the centroid is the next level's segment. Level arrays A and B alternate."""
    offs, adj, perm, first_parent = _bfs_relabel(total, eu, ev, starts)
    odd = np.empty(total, np.uint8)
    for x in range(total):
        odd[x] = odd_old[perm[x]]
    removed = np.zeros(total, np.bool_)
    grundy = np.zeros(total, np.int64)
    came_from = np.empty(total, np.int32)
    size = np.empty(total, np.int32)
    biggest = np.empty(total, np.int32)
    pd = np.empty(total, np.int32)
    po = np.empty(total, np.uint8)
    hist = np.empty(total + 1, np.uint8)
    table = np.empty(total + 1, np.int64)
    low = np.empty(total + 1, np.int64)
    residues = np.empty(4 * total + 8, np.uint8)
    nodes_a = np.arange(total).astype(np.int32)
    par_a = first_parent
    segs_a = np.empty(total, np.int32)
    ends_a = np.empty(total, np.int32)
    nodes_b = np.empty(total, np.int32)
    par_b = np.empty(total, np.int32)
    segs_b = np.empty(total, np.int32)
    ends_b = np.empty(total, np.int32)
    segments = starts.shape[0]
    for t in range(segments):
        segs_a[t] = starts[t]
        ends_a[t] = starts[t] + sizes[t]
    level = 0
    while segments > 0:
        if level % 2 == 0:
            segments = _level(offs, adj, odd, removed, came_from, size, biggest, nodes_a, par_a,
                              segs_a, ends_a, segments, nodes_b, par_b, segs_b, ends_b, pd, po,
                              grundy, hist, table, low, residues, bit_limit)
        else:
            segments = _level(offs, adj, odd, removed, came_from, size, biggest, nodes_b, par_b,
                              segs_b, ends_b, segments, nodes_a, par_a, segs_a, ends_a, pd, po,
                              grundy, hist, table, low, residues, bit_limit)
        level += 1

    result = np.empty(total, np.int64)
    for x in range(total):
        result[perm[x]] = grundy[x]
    answers = np.empty(sizes.shape[0], np.int64)
    for t in range(sizes.shape[0]):
        acc = 0
        power = 1
        for r in range(starts[t], starts[t] + sizes[t]):
            power = power * 2 % MOD
            if result[r] == 0:
                acc += power
        answers[t] = acc % MOD
    return answers, result
