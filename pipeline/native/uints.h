/* Reading a judge file's integers in bulk, for the quick parse paths of the problems.
 *
 * gb_scan_uints reads every whitespace-separated token of `text` as a non-negative decimal
 * integer. It vouches only for what it can read exactly: it returns -1 ("decline") when the
 * text holds any byte other than the digits and ' ', '\t', '\n', '\r', a token with a leading
 * zero, a value of 2^63 - 1 or more, or more than `cap` tokens. A quick path that gets -1 hands the
 * text to the problem's checked (token by token) parser, which names the line of the error;
 * the declined inputs are exactly those the NumPy quick paths decline too.
 */
#ifndef GAMEBENCH_UINTS_H
#define GAMEBENCH_UINTS_H

#include <stdint.h>

static int64_t gb_scan_uints(const unsigned char *text, int64_t len, uint64_t *out,
                             int64_t cap) {
    int64_t count = 0;
    int64_t i = 0;
    while (i < len) {
        unsigned c = text[i];
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
            i++;
            continue;
        }
        if (c - '0' > 9u || count == cap) return -1;
        int64_t start = i;
        uint64_t value = 0;
        while (i < len && (unsigned)(text[i] - '0') <= 9u) {
            value = value * 10u + (uint64_t)(text[i] - '0');
            i++;
        }
        if (i - start > 19 || value >= INT64_MAX || (text[start] == '0' && i - start > 1))
            return -1;
        out[count++] = value;
    }
    return count;
}

#endif
