/* movcoin2's native code: the quick parse path and the kernel of the `fast` and `tester-17bit`
 * stages (loaded by case.py through pipeline.native).
 *
 * movcoin2_read validates a whole judge input in one pass over its tokens and packs it as one
 * forest (test k's nodes are starts[k] .. starts[k] + sizes[k] - 1, edges 0-based global).
 * movcoin2_solve is a level-synchronous centroid decomposition with per-bit sliding-window XOR
 * tables; the method: docs/architecture.md, "The fast kernel". `bit_limit` caps the bits
 * examined (63 trusted, 17 the published tester's).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "uints.h"

#define MAX_T 1000
#define MAX_N 300000
#define MAX_SUM_N 300000
#define MAX_C 16
#define MOD 1000000007LL

static int32_t find_root(int32_t *root, int32_t x) {
    while (root[x] != x) {
        root[x] = root[root[x]];
        x = root[x];
    }
    return x;
}

/* Returns the number of tests T, or -1 when the quick path declines (anything that is not a
 * valid input, which the checked path then explains), -2 when memory ran out. On success
 * tokens[0 .. *count) holds every token, and eu/ev (sum of N minus T entries), odd (sum of
 * N), starts and sizes (T entries) the forest; each needs room for min(cap, its maximum). */
int64_t movcoin2_read(const unsigned char *text, int64_t len, uint64_t *tokens, int64_t cap,
                      int64_t *count_out, int32_t *eu, int32_t *ev, uint8_t *odd,
                      int64_t *starts, int64_t *sizes) {
    int64_t count = gb_scan_uints(text, len, tokens, cap);
    if (count < 1) return -1;
    uint64_t t_count = tokens[0];
    if (t_count < 1 || t_count > MAX_T) return -1;
    /* Every node has a coin token, so the nodes number fewer than the tokens. */
    int32_t *root = malloc(sizeof(int32_t) * (size_t)(count < MAX_SUM_N ? count : MAX_SUM_N));
    if (root == NULL) return -2;
    int64_t pos = 1, total = 0, edges = 0, result = (int64_t)t_count;
    for (uint64_t t = 0; t < t_count && result > 0; t++) {
        if (pos >= count) { result = -1; break; }
        uint64_t n = tokens[pos];
        if (n < 1 || n > MAX_N || total + (int64_t)n > MAX_SUM_N) { result = -1; break; }
        int64_t edge_start = pos + 1;
        int64_t coin_start = edge_start + 2 * ((int64_t)n - 1);
        int64_t end = coin_start + (int64_t)n;
        if (end > count) { result = -1; break; }
        starts[t] = total;
        sizes[t] = (int64_t)n;
        for (int64_t i = 0; i < (int64_t)n; i++) root[total + i] = (int32_t)(total + i);
        for (int64_t j = 0; j + 1 < (int64_t)n; j++) {
            uint64_t u = tokens[edge_start + 2 * j], v = tokens[edge_start + 2 * j + 1];
            if (u < 1 || u > n || v < 1 || v > n || u == v) { result = -1; break; }
            int32_t a = find_root(root, (int32_t)(total + (int64_t)u - 1));
            int32_t b = find_root(root, (int32_t)(total + (int64_t)v - 1));
            if (a == b) { result = -1; break; }  /* a cycle */
            root[a] = b;
            eu[edges] = (int32_t)(total + (int64_t)u - 1);
            ev[edges] = (int32_t)(total + (int64_t)v - 1);
            edges++;
        }
        if (result < 0) break;
        for (int64_t i = 0; i < (int64_t)n; i++) {
            uint64_t c = tokens[coin_start + i];
            if (c > MAX_C) { result = -1; break; }
            odd[total + i] = (uint8_t)(c & 1u);
        }
        total += (int64_t)n;
        pos = end;
    }
    free(root);
    if (result > 0 && pos != count) result = -1;
    *count_out = count;
    return result;
}

/* g[u] ^= F(pd[i]) for u = nodes[i], i in a..e-1 (and g[center] ^= F(0) if center >= 0),
 * where F(q) = XOR over the coins of (their distance + q); the coins are the positions j in
 * a..e-1 with po[j] = 1 at distance pd[j], plus one at distance 0 if center_odd. */
static void apply_step(const int32_t *nodes, const int32_t *pd, const uint8_t *po, int32_t a,
                       int32_t e, int32_t center, int center_odd, int64_t *grundy,
                       uint8_t *hist, int64_t *table, int64_t *low, uint8_t *residues,
                       int64_t bit_limit) {
    int64_t deepest = 0, deepest_coin = center_odd ? 0 : -1;
    for (int32_t i = a; i < e; i++) {
        int64_t d = pd[i];
        if (d > deepest) deepest = d;
        if (po[i] && d > deepest_coin) deepest_coin = d;
    }
    int64_t reach = deepest_coin + deepest;
    if (deepest_coin < 0 || reach == 0) return;
    int64_t bits = 0;
    while ((1LL << bits) <= reach) bits++;
    int64_t top = (bits < bit_limit ? bits : bit_limit) - 1;
    if (top < 0) return;
    for (int64_t d = 0; d <= deepest_coin; d++) hist[d] = 0;
    if (center_odd) hist[0] = 1;
    for (int32_t i = a; i < e; i++)
        if (po[i]) hist[pd[i]] ^= 1;
    /* Bits below `low_bits` repeat with a period dividing `span` in q: compute them on
     * q < span only, then look them up; the others slide over every q up to `deepest`. */
    int64_t span = 1, low_bits = 0;
    while (span * 32 <= deepest + 1) {
        span *= 2;
        low_bits++;
    }
    for (int64_t q = 0; q <= deepest; q++) table[q] = 0;
    for (int64_t q = 0; q < span; q++) low[q] = 0;
    int64_t period = 2LL << top;
    for (int64_t r = 0; r < period; r++) residues[r] = 0;
    for (int64_t d = 0; d <= deepest_coin; d++) residues[d & (period - 1)] ^= hist[d];
    for (int64_t b = top; b >= 0; b--) {
        int64_t half = 1LL << b;
        period = 2 * half;
        int64_t mask = period - 1;
        if (b < top)  /* fold the residues mod 2^(b+2) down to residues mod 2^(b+1) */
            for (int64_t r = 0; r < period; r++) residues[r] ^= residues[r + period];
        int64_t parity = 0;
        for (int64_t r = half; r < period; r++) parity ^= residues[r];
        if (b >= low_bits) {
            for (int64_t q = 0; q <= deepest; q++) {
                table[q] |= parity * half;
                parity ^= residues[(mask - q) & mask] ^ residues[(half - 1 - q) & mask];
            }
        } else {
            for (int64_t q = 0; q < span; q++) {
                low[q] |= parity * half;
                parity ^= residues[(mask - q) & mask] ^ residues[(half - 1 - q) & mask];
            }
        }
    }
    if (low_bits > 0)
        for (int64_t q = 0; q <= deepest; q++) table[q] |= low[q & (span - 1)];
    for (int32_t i = a; i < e; i++) grundy[nodes[i]] ^= table[pd[i]];
    if (center >= 0) grundy[center] ^= table[0];
}

/* Position of a centroid of the component stored at positions a..e-1 (BFS order). */
static int32_t centroid(const int32_t *cur_par, int32_t *size, int32_t *biggest, int32_t a,
                        int32_t e) {
    int32_t count = e - a;
    for (int32_t i = a; i < e; i++) {
        size[i] = 1;
        biggest[i] = 0;
    }
    for (int32_t i = e - 1; i > a; i--) {
        int32_t p = cur_par[i];
        size[p] += size[i];
        if (size[i] > biggest[p]) biggest[p] = size[i];
    }
    for (int32_t i = a; i < e; i++) {
        int32_t rest = count - size[i];
        int32_t worst = biggest[i] > rest ? biggest[i] : rest;
        if (2 * (int64_t)worst <= count) return i;
    }
    return a;
}

typedef struct {
    const int32_t *offs, *adj;
    const uint8_t *odd;
    uint8_t *removed;
    int32_t *came_from, *size, *biggest, *pd;
    uint8_t *po;
    int64_t *grundy;
    uint8_t *hist;
    int64_t *table, *low;
    uint8_t *residues;
    int64_t bit_limit;
} work_t;

/* One level of the decomposition: every component of `cur_*` gets its centroid removed, its
 * branches become the next level's components in `nxt_*`; returns their number. */
static int32_t level(work_t *w, const int32_t *cur_nodes, const int32_t *cur_par,
                     const int32_t *seg_a, const int32_t *seg_e, int32_t segments,
                     int32_t *nxt_nodes, int32_t *nxt_par, int32_t *nxt_a, int32_t *nxt_e) {
    int32_t fill = 0, nxt_count = 0;
    for (int32_t s = 0; s < segments; s++) {
        int32_t a = seg_a[s], e = seg_e[s];
        if (e - a == 1) continue;  /* a lone node: its only pair is with itself */
        int32_t center = cur_nodes[centroid(cur_par, w->size, w->biggest, a, e)];
        w->removed[center] = 1;
        int32_t first_branch = nxt_count, w0 = fill;
        for (int32_t k = w->offs[center]; k < w->offs[center + 1]; k++) {
            int32_t b = w->adj[k];
            if (w->removed[b]) continue;
            nxt_a[nxt_count] = fill;
            nxt_nodes[fill] = b;
            nxt_par[fill] = -1;
            w->pd[fill] = 1;
            w->po[fill] = w->odd[b];
            w->came_from[b] = center;
            int32_t head = fill;
            fill++;
            while (head < fill) {
                int32_t u = nxt_nodes[head];
                int32_t du = w->pd[head] + 1;
                for (int32_t kk = w->offs[u]; kk < w->offs[u + 1]; kk++) {
                    int32_t x = w->adj[kk];
                    if (x != w->came_from[u] && !w->removed[x]) {
                        w->came_from[x] = u;
                        nxt_nodes[fill] = x;
                        nxt_par[fill] = head;
                        w->pd[fill] = du;
                        w->po[fill] = w->odd[x];
                        fill++;
                    }
                }
                head++;
            }
            nxt_e[nxt_count] = fill;
            nxt_count++;
        }
        /* The whole component with the centroid, then each branch alone (cancelling pairs
         * that do not pass through the centroid). */
        apply_step(nxt_nodes, w->pd, w->po, w0, fill, center, w->odd[center], w->grundy,
                   w->hist, w->table, w->low, w->residues, w->bit_limit);
        for (int32_t j = first_branch; j < nxt_count; j++)
            apply_step(nxt_nodes, w->pd, w->po, nxt_a[j], nxt_e[j], -1, 0, w->grundy, w->hist,
                       w->table, w->low, w->residues, w->bit_limit);
    }
    return nxt_count;
}

/* Per-test answers (and, when grundy_out is not NULL, every node's Grundy value in input
 * order) of the forest with edges eu[i]-ev[i]; returns 0, or -2 when memory ran out.
 * Each component is a segment of node ids in BFS order with parent positions (sizes and
 * centroid need no new search); each branch's BFS from the centroid is the next level's
 * segment. Level arrays A and B alternate. */
int64_t movcoin2_solve(int64_t total64, const int32_t *eu, const int32_t *ev,
                       const uint8_t *odd_old, const int64_t *starts, const int64_t *sizes,
                       int64_t tests, int64_t bit_limit, int64_t *answers,
                       int64_t *grundy_out) {
    int32_t total = (int32_t)total64;
    int32_t m = (int32_t)(total64 - tests);
    int32_t *offs = calloc((size_t)total + 1, sizeof(int32_t));
    int32_t *adj = malloc(sizeof(int32_t) * (2 * (size_t)m + 1));
    int32_t *fillp = malloc(sizeof(int32_t) * ((size_t)total + 1));
    int32_t *perm = malloc(sizeof(int32_t) * ((size_t)total + 1));
    int32_t *rank = malloc(sizeof(int32_t) * ((size_t)total + 1));
    int32_t *parent = malloc(sizeof(int32_t) * ((size_t)total + 1));
    int32_t *new_offs = calloc((size_t)total + 1, sizeof(int32_t));
    int32_t *new_adj = malloc(sizeof(int32_t) * (2 * (size_t)m + 1));
    uint8_t *odd = malloc((size_t)total + 1);
    uint8_t *removed = calloc((size_t)total + 1, 1);
    int64_t *grundy = calloc((size_t)total + 1, sizeof(int64_t));
    int32_t *came_from = malloc(sizeof(int32_t) * ((size_t)total + 1));
    int32_t *size = malloc(sizeof(int32_t) * ((size_t)total + 1));
    int32_t *biggest = malloc(sizeof(int32_t) * ((size_t)total + 1));
    int32_t *pd = malloc(sizeof(int32_t) * ((size_t)total + 1));
    uint8_t *po = malloc((size_t)total + 1);
    uint8_t *hist = malloc((size_t)total + 1);
    int64_t *table = malloc(sizeof(int64_t) * ((size_t)total + 1));
    int64_t *low = malloc(sizeof(int64_t) * ((size_t)total + 1));
    uint8_t *residues = malloc(4 * (size_t)total + 8);
    int32_t *nodes_a = malloc(sizeof(int32_t) * ((size_t)total + 1));
    int32_t *segs_a = malloc(sizeof(int32_t) * ((size_t)total + 1));
    int32_t *ends_a = malloc(sizeof(int32_t) * ((size_t)total + 1));
    int32_t *nodes_b = malloc(sizeof(int32_t) * ((size_t)total + 1));
    int32_t *par_b = malloc(sizeof(int32_t) * ((size_t)total + 1));
    int32_t *segs_b = malloc(sizeof(int32_t) * ((size_t)total + 1));
    int32_t *ends_b = malloc(sizeof(int32_t) * ((size_t)total + 1));
    void *blocks[] = {offs, adj, fillp, perm, rank, parent, new_offs, new_adj, odd, removed,
                      grundy, came_from, size, biggest, pd, po, hist, table, low, residues,
                      nodes_a, segs_a, ends_a, nodes_b, par_b, segs_b, ends_b};
    int64_t status = 0;
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
        if (blocks[i] == NULL) status = -2;
    if (status == 0) {
        /* CSR adjacency, then nodes renumbered in BFS order test by test. */
        for (int32_t i = 0; i < m; i++) {
            offs[eu[i] + 1]++;
            offs[ev[i] + 1]++;
        }
        for (int32_t i = 0; i < total; i++) offs[i + 1] += offs[i];
        memcpy(fillp, offs, sizeof(int32_t) * (size_t)total);
        for (int32_t i = 0; i < m; i++) {
            int32_t a = eu[i], b = ev[i];
            adj[fillp[a]++] = b;
            adj[fillp[b]++] = a;
        }
        for (int32_t i = 0; i < total; i++) rank[i] = -1;
        int32_t tail = 0;
        for (int64_t t = 0; t < tests; t++) {
            int32_t s = (int32_t)starts[t];
            int32_t head = tail;
            perm[tail] = s;
            rank[s] = tail;
            parent[tail] = -1;
            tail++;
            while (head < tail) {
                int32_t u = perm[head];
                for (int32_t k = offs[u]; k < offs[u + 1]; k++) {
                    int32_t x = adj[k];
                    if (rank[x] < 0) {
                        rank[x] = tail;
                        perm[tail] = x;
                        parent[tail] = head;
                        tail++;
                    }
                }
                head++;
            }
        }
        for (int32_t x = 0; x < total; x++) {
            int32_t u = perm[x];
            int32_t begin = new_offs[x], length = offs[u + 1] - offs[u];
            for (int32_t k = 0; k < length; k++) new_adj[begin + k] = rank[adj[offs[u] + k]];
            new_offs[x + 1] = begin + length;
        }
        for (int32_t x = 0; x < total; x++) odd[x] = odd_old[perm[x]];
        for (int32_t x = 0; x < total; x++) nodes_a[x] = x;
        int32_t segments = (int32_t)tests;
        for (int32_t t = 0; t < segments; t++) {
            segs_a[t] = (int32_t)starts[t];
            ends_a[t] = (int32_t)(starts[t] + sizes[t]);
        }
        work_t w = {new_offs, new_adj, odd, removed, came_from, size, biggest, pd, po, grundy,
                    hist, table, low, residues, bit_limit};
        int32_t *par_a = parent;
        int depth = 0;
        while (segments > 0) {
            if (depth % 2 == 0)
                segments = level(&w, nodes_a, par_a, segs_a, ends_a, segments, nodes_b, par_b,
                                 segs_b, ends_b);
            else
                segments = level(&w, nodes_b, par_b, segs_b, ends_b, segments, nodes_a, par_a,
                                 segs_a, ends_a);
            depth++;
        }
        /* Back to input order (reusing `table` for the values), then the answers. */
        int64_t *result = grundy_out != NULL ? grundy_out : table;
        for (int32_t x = 0; x < total; x++) result[perm[x]] = grundy[x];
        for (int64_t t = 0; t < tests; t++) {
            int64_t acc = 0, power = 1;
            for (int64_t r = starts[t]; r < starts[t] + sizes[t]; r++) {
                power = power * 2 % MOD;
                if (result[r] == 0) acc += power;
            }
            answers[t] = acc % MOD;
        }
    }
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) free(blocks[i]);
    return status;
}
