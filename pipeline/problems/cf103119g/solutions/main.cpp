// cf103119g - Game on Sequence (Codeforces Gym 103119 G, ICPC Macau 2020)
// A position whose value occurs again later is winning (move to the later copy if it is
// losing, else copy its winning move). So only the last occurrence of each of the 256
// values can be losing; the last occurrence of v loses iff no u with popcount(u^v) == 1
// has a later last occurrence that loses. Values are kept ordered by last occurrence and the
// <= 256 statuses are recomputed right to left only when a query follows an append.
// O(256 * 9) per such query, O(1) otherwise.
#include <cstdio>
#include <cstring>
#include <vector>
using namespace std;

static char buf[1 << 16];
static size_t bl = 0, bp = 0;
static inline int gc() {
    if (bp == bl) { bl = fread(buf, 1, sizeof buf, stdin); bp = 0; if (!bl) return -1; }
    return buf[bp++];
}
static inline int rd() {
    int c = gc();
    while (c < '0' || c > '9') { if (c == -1) return 0; c = gc(); }
    int x = 0;
    while (c >= '0' && c <= '9') { x = x * 10 + (c - '0'); c = gc(); }
    return x;
}

static char obuf[1 << 16];
static size_t op = 0;
static inline void flush() { fwrite(obuf, 1, op, stdout); op = 0; }
static inline void out(const char* s) {
    size_t l = strlen(s);
    if (op + l > sizeof obuf) flush();
    memcpy(obuf + op, s, l); op += l;
}

int lastPos[256];
bool lose[256];
int ord[256], cntOrd = 0;  // values ordered by last occurrence, ascending

static void touch(int v) {  // v just got a new (largest) last occurrence
    int i = 0;
    while (i < cntOrd && ord[i] != v) i++;
    if (i < cntOrd) {
        for (; i + 1 < cntOrd; i++) ord[i] = ord[i + 1];
        ord[cntOrd - 1] = v;
    } else {
        ord[cntOrd++] = v;
    }
}

static void recompute() {
    for (int i = cntOrd - 1; i >= 0; i--) {
        int v = ord[i];
        bool l = true;
        for (int t = 0; t < 8; t++) {
            int u = v ^ (1 << t);
            if (lastPos[u] > lastPos[v] && lose[u]) { l = false; break; }
        }
        lose[v] = l;
    }
}

int main() {
    int n = rd(), m = rd();
    vector<unsigned char> A;
    A.reserve((size_t)n + m + 1);
    A.push_back(0);  // 1-based
    for (int v = 0; v < 256; v++) { lastPos[v] = 0; lose[v] = false; }
    for (int i = 1; i <= n; i++) {
        int a = rd();
        A.push_back((unsigned char)a);
        lastPos[a] = i;
        touch(a);
    }
    bool dirty = true;
    for (int q = 0; q < m; q++) {
        int o = rd(), k = rd();
        if (o == 1) {
            A.push_back((unsigned char)k);
            lastPos[k] = (int)A.size() - 1;
            touch(k);
            dirty = true;
        } else {
            if (dirty) { recompute(); dirty = false; }
            int v = A[k];
            bool win = (lastPos[v] != k) || !lose[v];
            out(win ? "Grammy\n" : "Alice\n");
        }
    }
    flush();
    return 0;
}
