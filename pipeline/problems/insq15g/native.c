/* insq15g's native code: the quick parse path (see native.py). */
#include <stdint.h>

#include "uints.h"

#define MAX_SIDE 1000000000000000000ULL
#define MAX_PEOPLE 1000000

/* Returns P, or -1 when the quick path declines (anything that is not a valid input, which
 * the checked path then explains). tokens[0 .. *count) holds every token: N, M, P, then X_i
 * and Y_i. */
int64_t insq15g_read(const unsigned char *text, int64_t len, uint64_t *tokens, int64_t cap,
                     int64_t *count_out) {
    int64_t count = gb_scan_uints(text, len, tokens, cap);
    *count_out = count;
    if (count < 3) return -1;
    uint64_t n = tokens[0], m = tokens[1], p = tokens[2];
    if (n < 1 || n > MAX_SIDE || m < 1 || m > MAX_SIDE || p < 1 || p > MAX_PEOPLE) return -1;
    if ((uint64_t)count != 3 + 2 * p) return -1;
    for (int64_t i = 3; i < count; i += 2) {
        uint64_t x = tokens[i], y = tokens[i + 1];
        if (x < 1 || x > n || y < 1 || y > m) return -1;
    }
    return (int64_t)p;
}
