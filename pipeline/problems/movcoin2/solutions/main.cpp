// movcoin2 - Move the Coins 2 (CodeChef MOVCOIN2)
// Bob wins g(T,R) iff XOR over nodes v with odd c_v of dist(R,v) is 0.
// All N XORs via iterative centroid decomposition: for a centroid C and a group of nodes
// with distances d to C, bit b of (d_R + d_v) is set iff (d_R + d_v) mod 2^(b+1) >= 2^b;
// a prefix-parity array over residues answers that per distance in O(1). Pairs inside one child
// subtree are counted in the whole component and in the child group, so they cancel under
// XOR. Within a group the answer depends only on d_R, so each group costs
// O(size + maxdist * log maxdist). O(N log^2 N) overall, with small constants.
#include <cstdio>
#include <cstring>
#include <vector>
#include <cstdint>
using namespace std;

static char buf[1 << 16];
static size_t bl = 0, bp = 0;
static inline int gc() {
    if (bp == bl) { bl = fread(buf, 1, sizeof buf, stdin); bp = 0; if (!bl) return -1; }
    return buf[bp++];
}
static inline long long rd() {
    int c = gc();
    while (c != '-' && (c < '0' || c > '9')) { if (c == -1) return 0; c = gc(); }
    bool neg = false;
    if (c == '-') { neg = true; c = gc(); }
    long long x = 0;
    while (c >= '0' && c <= '9') { x = x * 10 + (c - '0'); c = gc(); }
    return neg ? -x : x;
}

static const long long MOD = 1000000007LL;

int n;
vector<int> st, adj;          // CSR adjacency over relabelled nodes 1..n
vector<char> odd, removed;
vector<int> res;
vector<int> par_, sz_, order_, dist_, sub_;
vector<unsigned char> cntb;
vector<unsigned char> pre;
vector<unsigned char> parAt;
vector<int> xr;

// nodes: list of nodes, with dist_[node] set. XOR into res[R] the sum over pairs (R, v) of
// the group, v with odd coins, of bits of d_R + d_v. The result depends on d_R only, so it is
// computed once per distance value: O(cnt + maxd * log maxd) per group.
static void process(const int* nodes, int cnt) {
    int maxd = 0;
    bool anyOdd = false;
    for (int i = 0; i < cnt; i++) {
        int v = nodes[i];
        if (dist_[v] > maxd) maxd = dist_[v];
        if (odd[v]) anyOdd = true;
    }
    if (maxd == 0 || !anyOdd) return;
    if ((int)parAt.size() < maxd + 1) parAt.resize(maxd + 1), xr.resize(maxd + 1);
    memset(parAt.data(), 0, maxd + 1);
    memset(xr.data(), 0, sizeof(int) * (maxd + 1));
    for (int i = 0; i < cnt; i++) {
        int v = nodes[i];
        if (odd[v]) parAt[dist_[v]] ^= 1;
    }
    for (int b = 0; (1 << b) <= 2 * maxd; b++) {
        int H = 1 << b, M = H << 1;
        if ((int)cntb.size() < M) cntb.resize(M), pre.resize(M + 1);
        memset(cntb.data(), 0, M);
        for (int d = 0; d <= maxd; d++) cntb[d & (M - 1)] ^= parAt[d];
        pre[0] = 0;
        for (int r = 0; r < M; r++) pre[r + 1] = pre[r] ^ cntb[r];
        for (int d = 0; d <= maxd; d++) {
            int s0 = (H - (d & (M - 1))) & (M - 1);
            int p;
            if (s0 + H <= M) p = pre[s0 + H] ^ pre[s0];
            else p = pre[M] ^ pre[s0] ^ pre[s0 + H - M];
            if (p) xr[d] ^= H;
        }
    }
    for (int i = 0; i < cnt; i++) {
        int v = nodes[i];
        res[v] ^= xr[dist_[v]];
    }
}

static void buildCSR(int nn, const vector<int>& eu, const vector<int>& ev) {
    st.assign(nn + 2, 0);
    for (size_t i = 0; i < eu.size(); i++) { st[eu[i] + 1]++; st[ev[i] + 1]++; }
    for (int i = 1; i <= nn + 1; i++) st[i] += st[i - 1];
    adj.resize(2 * eu.size());
    vector<int> pos(st.begin(), st.end() - 1);
    for (size_t i = 0; i < eu.size(); i++) { adj[pos[eu[i]]++] = ev[i]; adj[pos[ev[i]]++] = eu[i]; }
}

int main() {
    int T = (int)rd();
    vector<int> eu, ev, newId, origId, stk, grp, cntL;
    while (T--) {
        n = (int)rd();
        eu.resize(n - 1); ev.resize(n - 1);
        for (int i = 0; i < n - 1; i++) { eu[i] = (int)rd(); ev[i] = (int)rd(); }
        vector<char> oddOrig(n + 1, 0);
        for (int i = 1; i <= n; i++) oddOrig[i] = (char)(rd() & 1);
        // relabel nodes in BFS order from node 1 for memory locality
        buildCSR(n, eu, ev);
        newId.assign(n + 1, 0); origId.assign(n + 1, 0);
        {
            vector<int> q; q.reserve(n); q.push_back(1); newId[1] = 1;
            for (size_t h = 0; h < q.size(); h++) {
                int u = q[h];
                for (int k = st[u]; k < st[u + 1]; k++) {
                    int w = adj[k];
                    if (!newId[w]) { newId[w] = (int)q.size() + 1; q.push_back(w); }
                }
            }
            for (int v = 1; v <= n; v++) origId[newId[v]] = v;
        }
        for (int i = 0; i < n - 1; i++) { eu[i] = newId[eu[i]]; ev[i] = newId[ev[i]]; }
        buildCSR(n, eu, ev);
        odd.assign(n + 1, 0);
        for (int v = 1; v <= n; v++) odd[newId[v]] = oddOrig[v];
        removed.assign(n + 1, 0);
        res.assign(n + 1, 0);
        par_.assign(n + 1, 0);
        sz_.assign(n + 1, 0);
        dist_.assign(n + 1, 0);
        sub_.assign(n + 1, 0);
        order_.resize(n + 1);
        grp.resize(n + 1);
        stk.clear();
        stk.push_back(1);
        while (!stk.empty()) {
            int r = stk.back(); stk.pop_back();
            // BFS the component of r, subtree sizes
            int qh = 0, qt = 0;
            order_[qt++] = r; par_[r] = 0;
            while (qh < qt) {
                int u = order_[qh++];
                for (int k = st[u]; k < st[u + 1]; k++) {
                    int w = adj[k];
                    if (removed[w] || w == par_[u]) continue;
                    par_[w] = u; order_[qt++] = w;
                }
            }
            int total = qt;
            if (total == 1) { removed[r] = 1; continue; }
            for (int i = total - 1; i >= 0; i--) sz_[order_[i]] = 1;
            for (int i = total - 1; i > 0; i--) sz_[par_[order_[i]]] += sz_[order_[i]];
            // centroid: walk from r towards a child holding more than half
            int c = r;
            while (true) {
                int heavy = -1;
                for (int k = st[c]; k < st[c + 1]; k++) {
                    int w = adj[k];
                    if (removed[w] || w == par_[c]) continue;
                    if (sz_[w] * 2 > total) { heavy = w; break; }
                }
                if (heavy == -1) break;
                c = heavy;
            }
            // BFS from the centroid: distances and child-subtree labels 1..deg
            qh = 0; qt = 0;
            order_[qt++] = c; par_[c] = 0; dist_[c] = 0; sub_[c] = 0;
            int nch = 0;
            while (qh < qt) {
                int u = order_[qh++];
                for (int k = st[u]; k < st[u + 1]; k++) {
                    int w = adj[k];
                    if (removed[w] || w == par_[u]) continue;
                    par_[w] = u; dist_[w] = dist_[u] + 1;
                    sub_[w] = (u == c) ? ++nch : sub_[u];
                    order_[qt++] = w;
                }
            }
            process(order_.data(), qt);
            // pairs inside one child subtree: counting-sort the nodes by label, process groups
            cntL.assign(nch + 2, 0);
            for (int i = 1; i < qt; i++) cntL[sub_[order_[i]] + 1]++;
            for (int l = 1; l <= nch + 1; l++) cntL[l] += cntL[l - 1];
            vector<int> startL(cntL.begin(), cntL.end());
            for (int i = 1; i < qt; i++) grp[cntL[sub_[order_[i]]]++] = order_[i];
            for (int l = 1; l <= nch; l++) process(grp.data() + startL[l], startL[l + 1] - startL[l]);
            removed[c] = 1;
            for (int k = st[c]; k < st[c + 1]; k++)
                if (!removed[adj[k]]) stk.push_back(adj[k]);
        }
        long long ans = 0;
        vector<long long> pw(n + 1);
        pw[0] = 1;
        for (int i = 1; i <= n; i++) pw[i] = pw[i - 1] * 2 % MOD;
        for (int v = 1; v <= n; v++)
            if (res[v] == 0) ans = (ans + pw[origId[v]]) % MOD;
        printf("%lld\n", ans);
    }
    return 0;
}
