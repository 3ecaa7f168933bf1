/* cf103119g's native code: the quick parse path and the `fast` kernel (loaded by case.py
 * through pipeline.native).
 *
 * cf103119g_read validates a whole judge input in one pass over its tokens.
 * cf103119g_solve is the `fast` stage:
 * the lemma "only last occurrences can lose", last occurrences linked in decreasing order of
 * position, their states recomputed lazily when a query needs them after an append.
 */
#include <stdint.h>
#include <stdlib.h>

#include "uints.h"

#define MAX_N 200000
#define MAX_M 200000
#define MAX_VALUE 255

/* Returns the number of queries, or -1 when the quick path declines (anything that is not a
 * valid input, which the checked path then explains). tokens[0 .. *count) holds every token:
 * n, m, the n values, then op and k of each operation. */
int64_t cf103119g_read(const unsigned char *text, int64_t len, uint64_t *tokens, int64_t cap,
                       int64_t *count_out) {
    int64_t count = gb_scan_uints(text, len, tokens, cap);
    *count_out = count;
    if (count < 2) return -1;
    uint64_t n = tokens[0], m = tokens[1];
    if (n < 1 || n > MAX_N || m < 1 || m > MAX_M) return -1;
    if ((uint64_t)count != 2 + n + 2 * m) return -1;
    for (uint64_t i = 0; i < n; i++)
        if (tokens[2 + i] > MAX_VALUE) return -1;
    const uint64_t *ops = tokens + 2 + n;
    uint64_t length = n, queries = 0;
    for (uint64_t j = 0; j < m; j++) {
        uint64_t op = ops[2 * j], k = ops[2 * j + 1];
        if (op == 1) {
            if (k > MAX_VALUE) return -1;
            length++;
        } else if (op == 2) {
            if (k < 1 || k > length) return -1;
            queries++;
        } else {
            return -1;
        }
    }
    return (int64_t)queries;
}

/* out[q] = 1 when the q-th query's position wins (out has room for m answers). The
 * operations are valid (as read by cf103119g_read). Returns the number of queries, or -2
 * when memory ran out. */
int64_t cf103119g_solve(int64_t n, const uint64_t *values, int64_t m, const uint64_t *ops,
                        uint8_t *out) {
    uint8_t *seq = malloc((size_t)(n + m) + 1);
    if (seq == NULL) return -2;
    int64_t last[256];
    int next[257], prev[257];  /* values present, by decreasing last occurrence; 256 = head */
    uint8_t losing[256] = {0};
    for (int v = 0; v < 256; v++) last[v] = -1;
    next[256] = prev[256] = 256;
    int64_t length = 0, q = 0;
    int dirty = 1;
    for (int64_t t = 0; t < n + m; t++) {
        uint64_t op, x;
        if (t < n) {
            op = 1;
            x = values[t];
        } else {
            op = ops[2 * (t - n)];
            x = ops[2 * (t - n) + 1];
        }
        if (op == 1) {
            int v = (int)x;
            if (last[v] >= 0) {  /* unlink */
                next[prev[v]] = next[v];
                prev[next[v]] = prev[v];
            }
            int first = next[256];  /* link at the head: the rightmost last occurrence */
            next[v] = first;
            prev[v] = 256;
            prev[first] = v;
            next[256] = v;
            last[v] = length;
            seq[length++] = (uint8_t)v;
            dirty = 1;
        } else {
            int64_t i = (int64_t)x - 1;
            int v = seq[i];
            if (last[v] != i) {
                out[q] = 1;  /* an equal value later: winning by the lemma */
            } else {
                if (dirty) {
                    for (int u = next[256]; u != 256; u = next[u]) {
                        int lose = 1;
                        for (int b = 0; b < 8; b++) {
                            int w = u ^ (1 << b);
                            if (last[w] > last[u] && losing[w]) {
                                lose = 0;
                                break;
                            }
                        }
                        losing[u] = (uint8_t)lose;
                    }
                    dirty = 0;
                }
                out[q] = !losing[v];
            }
            q++;
        }
    }
    free(seq);
    return q;
}
