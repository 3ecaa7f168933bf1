/* bipartitebattle's native code: the quick parse path (see native.py). */
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
