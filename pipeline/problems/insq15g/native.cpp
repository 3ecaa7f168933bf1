/* insq15g's native code: the quick parse path and the `fast` stage (loaded by case.py through
 * pipeline.native).
 *
 * insq15g_read validates a whole judge input in one pass over its tokens. insq15g_solve
 * computes what fast.py computes with NumPy (the XOR, over the cells at odd distance from the
 * corner, of their head counts): it keeps the people at odd distance, sorts one key per person
 * (the packed cell when the coordinates span less than 2^32, with a radix sort that skips the
 * digits all keys share; else the (X, Y) pair with std::sort) and XORs the lengths of the runs
 * of equal keys.
 */
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

#include "uints.h"

namespace {

const uint64_t MAX_SIDE = 1000000000000000000ULL;
const uint64_t MAX_PEOPLE = 1000000;

// Sorts keys[0..n) (scratch has room for n) by 16-bit digits, least significant first.
void radix_sort(uint64_t *keys, uint64_t *scratch, size_t n) {
    std::vector<size_t> count(1 << 16);
    for (int shift = 0; shift < 64; shift += 16) {
        std::fill(count.begin(), count.end(), 0);
        for (size_t i = 0; i < n; i++) count[(keys[i] >> shift) & 0xFFFF]++;
        if (count[(keys[0] >> shift) & 0xFFFF] == n) continue;  // one digit value: in order
        size_t sum = 0;
        for (size_t &c : count) {
            size_t here = c;
            c = sum;
            sum += here;
        }
        for (size_t i = 0; i < n; i++) scratch[count[(keys[i] >> shift) & 0xFFFF]++] = keys[i];
        std::memcpy(keys, scratch, n * sizeof(uint64_t));
    }
}

template <typename T>
uint64_t xor_of_run_lengths(const std::vector<T> &sorted) {
    uint64_t total = 0, run = 1;
    for (size_t i = 1; i <= sorted.size(); i++) {
        if (i < sorted.size() && sorted[i] == sorted[i - 1]) {
            run++;
        } else {
            total ^= run;
            run = 1;
        }
    }
    return total;
}

}  // namespace

extern "C" {

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

/* 1 when the first player wins the valid input in tokens (as read by insq15g_read), 0 when
 * he loses, -2 when memory ran out. */
int64_t insq15g_solve(const uint64_t *tokens) {
    try {
        uint64_t m = tokens[1], p = tokens[2];
        const uint64_t *people = tokens + 3;
        uint64_t far = (m + 1) & 1;  // (X - 1) + (M - Y) is odd iff (X ^ Y) & 1 != (M + 1) & 1
        uint64_t x_low = UINT64_MAX, x_high = 0, y_low = UINT64_MAX, y_high = 0, odd = 0;
        for (uint64_t i = 0; i < p; i++) {
            uint64_t x = people[2 * i], y = people[2 * i + 1];
            if (((x ^ y) & 1) == far) continue;
            odd++;
            x_low = std::min(x_low, x), x_high = std::max(x_high, x);
            y_low = std::min(y_low, y), y_high = std::max(y_high, y);
        }
        if (odd == 0) return 0;
        uint64_t total;
        if (x_high - x_low < (1ULL << 32) && y_high - y_low < (1ULL << 32)) {
            std::vector<uint64_t> keys, scratch(odd);
            keys.reserve(odd);
            for (uint64_t i = 0; i < p; i++) {
                uint64_t x = people[2 * i], y = people[2 * i + 1];
                if (((x ^ y) & 1) != far) keys.push_back((x - x_low) << 32 | (y - y_low));
            }
            radix_sort(keys.data(), scratch.data(), keys.size());
            total = xor_of_run_lengths(keys);
        } else {
            std::vector<std::pair<uint64_t, uint64_t>> cells;
            cells.reserve(odd);
            for (uint64_t i = 0; i < p; i++) {
                uint64_t x = people[2 * i], y = people[2 * i + 1];
                if (((x ^ y) & 1) != far) cells.emplace_back(x, y);
            }
            std::sort(cells.begin(), cells.end());
            total = xor_of_run_lengths(cells);
        }
        return total != 0;
    } catch (const std::bad_alloc &) {
        return -2;
    }
}

}  // extern "C"
