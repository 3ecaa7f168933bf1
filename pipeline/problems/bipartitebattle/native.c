/* bipartitebattle's native code: the quick parse path and the `fast` stage (loaded by case.py
 * through pipeline.native). */
#include <stdint.h>

#include "uints.h"

#define MAX_N 100000
#define MAX_SIDE 1000000000ULL

/* Returns N, or -1 when the quick path declines (anything that is not a valid input, which
 * the checked path then explains). tokens[0 .. *count) holds every token: N, then a_i, b_i. */
int64_t bipartitebattle_read(const unsigned char *text, int64_t len, uint64_t *tokens,
                             int64_t cap, int64_t *count_out) {
    int64_t count = gb_scan_uints(text, len, tokens, cap);
    *count_out = count;
    if (count < 1) return -1;
    uint64_t n = tokens[0];
    if (n < 1 || n > MAX_N || (uint64_t)count != 1 + 2 * n) return -1;
    for (int64_t i = 1; i < count; i++)
        if (tokens[i] < 1 || tokens[i] > MAX_SIDE) return -1;
    return (int64_t)n;
}

/* What fast.py computes, on the tokens of a valid input (as read by bipartitebattle_read):
 * 0 when the vertex total sum(a_i + b_i) is odd, else 2^((E - 1) mod (p - 1)) mod p with
 * E = sum a_i * b_i exactly (below 10^23, so in 128 bits). */
int64_t bipartitebattle_solve(const uint64_t *tokens) {
    const uint64_t mod = 1000000007ULL;
    uint64_t n = tokens[0], parity = 0;
    unsigned __int128 edges = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t a = tokens[1 + 2 * i], b = tokens[2 + 2 * i];
        parity ^= (a ^ b) & 1u;
        edges += (unsigned __int128)a * b;
    }
    if (parity) return 0;
    uint64_t exponent = (uint64_t)((edges - 1) % (mod - 1));
    uint64_t result = 1, base = 2;
    for (; exponent; exponent >>= 1) {
        if (exponent & 1u) result = result * base % mod;
        base = base * base % mod;
    }
    return (int64_t)result;
}
