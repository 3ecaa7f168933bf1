// insq15g - people on a grid (CodeChef INSQ15_G)
// Staircase Nim: a cell at distance (X-1)+(M-Y) from the corner (1,M) is a pile of its head
// count; only cells at odd distance matter. First player wins iff the XOR of the head counts
// of odd-distance cells is non-zero. Cells are grouped by sorting (X,Y). O(P log P).
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <utility>
using namespace std;

static char buf[1 << 16];
static size_t bl = 0, bp = 0;
static inline int gc() {
    if (bp == bl) { bl = fread(buf, 1, sizeof buf, stdin); bp = 0; if (!bl) return -1; }
    return buf[bp++];
}
static inline unsigned long long rd() {
    int c = gc();
    while (c < '0' || c > '9') { if (c == -1) return 0; c = gc(); }
    unsigned long long x = 0;
    while (c >= '0' && c <= '9') { x = x * 10 + (unsigned)(c - '0'); c = gc(); }
    return x;
}

int main() {
    unsigned long long N = rd(), M = rd();
    (void)N;
    long long P = (long long)rd();
    vector<pair<unsigned long long, unsigned long long>> cells;
    cells.reserve(P);
    for (long long i = 0; i < P; i++) {
        unsigned long long x = rd(), y = rd();
        // parity of (x-1)+(M-y) without overflow concerns
        if (((x - 1) ^ (M - y)) & 1ULL) cells.emplace_back(x, y);
    }
    sort(cells.begin(), cells.end());
    long long g = 0;
    size_t i = 0;
    while (i < cells.size()) {
        size_t j = i;
        while (j < cells.size() && cells[j] == cells[i]) j++;
        g ^= (long long)(j - i);
        i = j;
    }
    puts(g ? "Yes" : "No");
    return 0;
}
