// bipartitebattle - Bipartite Battle (Kattis bipartitebattle, ICPC Hanoi 2018 B)
// A bipartite graph with n vertices and m edges has Grundy value (n mod 2) + 2 (m mod 2).
// Socket wins iff total vertices and total edges are both even: answer is 0 when
// sum(a_i + b_i) is odd, else 2^(sum a_i b_i - 1) mod 1e9+7 (exponent reduced mod p-1,
// valid by Fermat since gcd(2, p) = 1). O(N + log p).
#include <cstdio>
#include <cstdint>
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
    const unsigned long long P = 1000000007ULL, PM1 = P - 1;
    unsigned long long n = rd();
    unsigned long long par = 0, e = 0;
    for (unsigned long long i = 0; i < n; i++) {
        unsigned long long a = rd(), b = rd();
        par ^= (a ^ b) & 1ULL;
        e = (e + (a % PM1) * (b % PM1) % PM1) % PM1;
    }
    if (par) { puts("0"); return 0; }
    e = (e + PM1 - 1) % PM1;  // sum a_i b_i >= 1, so the true exponent is >= 0
    unsigned long long r = 1, base = 2;
    while (e) {
        if (e & 1) r = r * base % P;
        base = base * base % P;
        e >>= 1;
    }
    printf("%llu\n", r);
    return 0;
}
