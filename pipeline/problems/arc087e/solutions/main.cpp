// arc087e - Prefix-free Game (AtCoder ARC087 E)
// Build a binary trie of the strings. Every missing child of a node that is not the end of
// a string (root included) roots a free complete binary tree; for a node at depth d its
// Grundy value is lowbit(L - d). Alice wins iff the XOR of these is non-zero.
// O(total length).
#include <cstdio>
#include <cstdint>
#include <vector>
using namespace std;

static char buf[1 << 16];
static size_t bl = 0, bp = 0;
static inline int gc() {
    if (bp == bl) { bl = fread(buf, 1, sizeof buf, stdin); bp = 0; if (!bl) return -1; }
    return buf[bp++];
}
static inline unsigned long long rdnum() {
    int c = gc();
    while (c < '0' || c > '9') { if (c == -1) return 0; c = gc(); }
    unsigned long long x = 0;
    while (c >= '0' && c <= '9') { x = x * 10 + (unsigned)(c - '0'); c = gc(); }
    return x;
}

int main() {
    long long n = (long long)rdnum();
    unsigned long long L = rdnum();
    vector<int> ch0(1, -1), ch1(1, -1), dep(1, 0);
    vector<char> term(1, 0);
    ch0.reserve(100005); ch1.reserve(100005); dep.reserve(100005); term.reserve(100005);
    for (long long i = 0; i < n; i++) {
        int c = gc();
        while (c != '0' && c != '1') { if (c == -1) break; c = gc(); }
        int cur = 0;
        while (c == '0' || c == '1') {
            int& nx = (c == '0') ? ch0[cur] : ch1[cur];
            if (nx == -1) {
                int id = (int)ch0.size();
                int d = dep[cur] + 1;
                // note: nx may dangle after push_back; assign via index
                if (c == '0') ch0[cur] = id; else ch1[cur] = id;
                ch0.push_back(-1); ch1.push_back(-1); dep.push_back(d); term.push_back(0);
                cur = id;
            } else {
                cur = nx;
            }
            c = gc();
        }
        term[cur] = 1;
    }
    unsigned long long g = 0;
    for (size_t v = 0; v < ch0.size(); v++) {
        if (term[v]) continue;
        unsigned long long h = L - (unsigned long long)dep[v];
        unsigned long long lb = h & (~h + 1);
        if (ch0[v] == -1) g ^= lb;
        if (ch1[v] == -1) g ^= lb;
    }
    puts(g ? "Alice" : "Bob");
    return 0;
}
