// A movcoin2 "solver" for the hunt tests, slow on one shape: for every node it walks up to the
// root (node 1) one parent at a time, so it takes O(sum of depths): n log n on random trees,
// n^2 / 2 on a path hanging from node 1. It prints that sum per test (not the problem's answer).
#include <cstdio>
#include <vector>

int main() {
    int tests;
    if (scanf("%d", &tests) != 1) return 1;
    while (tests--) {
        int n;
        if (scanf("%d", &n) != 1) return 1;
        std::vector<std::vector<int>> adj(n + 1);
        for (int i = 0; i + 1 < n; i++) {
            int u, v;
            if (scanf("%d %d", &u, &v) != 2) return 1;
            adj[u].push_back(v);
            adj[v].push_back(u);
        }
        for (int i = 0; i < n; i++) {
            int c;
            if (scanf("%d", &c) != 1) return 1;
        }
        std::vector<int> parent(n + 1, 0), queue;
        std::vector<char> seen(n + 1, 0);
        queue.push_back(1);
        seen[1] = 1;
        for (size_t head = 0; head < queue.size(); head++) {
            int u = queue[head];
            for (int w : adj[u]) {
                if (!seen[w]) {
                    seen[w] = 1;
                    parent[w] = u;
                    queue.push_back(w);
                }
            }
        }
        long long steps = 0;
        for (int v = 1; v <= n; v++) {
            for (int u = v; u != 1; u = parent[u]) steps++;
        }
        printf("%lld\n", steps % 1000000007LL);
    }
    return 0;
}
