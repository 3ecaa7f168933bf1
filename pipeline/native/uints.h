/* Reading a judge file's integers in bulk, for the quick parse paths of the problems.
 *
 * gb_scan_uints reads every whitespace-separated token of `text` as a non-negative decimal
 * integer. It vouches only for what it can read exactly: it returns -1 ("decline") when the
 * text holds any byte other than the digits and ' ', '\n', '\r' (the separators every
 * problem's format allows; a tab declines, so the checked parser decides on it), a token with
 * a leading zero, a value of 2^63 - 1 or more, or more than `cap` tokens. A quick path that gets
 * -1 hands the text to the problem's checked (token by token) parser, which names the line of
 * the error; the declined inputs are exactly those `numpy_uints` (bulk.py) declines too.
 */
#ifndef GAMEBENCH_UINTS_H
#define GAMEBENCH_UINTS_H

#include <stdint.h>
#include <string.h>

/* The value of the 8 decimal digits at p (p[0] the most significant), by SWAR arithmetic:
 * pairs, then quadruples, then the whole in three multiplications instead of a chain of 8. */
static inline uint64_t gb_eight_digits(const unsigned char *p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, p, 8);
    v -= 0x3030303030303030ULL;
    v = v * 10 + (v >> 8);
    return (((v & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))) +
            (((v >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))) >> 32;
#else
    uint64_t v = 0;
    for (int k = 0; k < 8; k++) v = v * 10u + (uint64_t)(p[k] - '0');
    return v;
#endif
}

static int64_t gb_scan_uints(const unsigned char *text, int64_t len, uint64_t *out,
                             int64_t cap) {
    int64_t count = 0;
    int64_t i = 0;
    while (i < len) {
        unsigned c = text[i];
        if (c == ' ' || c == '\n' || c == '\r') {
            i++;
            continue;
        }
        if (c - '0' > 9u || count == cap) return -1;
        int64_t start = i;
        while (i < len && (unsigned)(text[i] - '0') <= 9u) i++;
        int64_t digits = i - start;
        if (digits > 19 || (c == '0' && digits > 1)) return -1;
        const unsigned char *p = text + start;
        uint64_t value = 0;
        for (; digits >= 8; digits -= 8, p += 8)
            value = value * 100000000u + gb_eight_digits(p);
        for (; digits > 0; digits--, p++) value = value * 10u + (uint64_t)(*p - '0');
        if (value >= INT64_MAX) return -1;
        out[count++] = value;
    }
    return count;
}

#endif
