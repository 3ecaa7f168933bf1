// Allocates 4 GB in 64 MB blocks, writing every page, then answers a + b: under a smaller
// memory limit `new` throws std::bad_alloc (uncaught: abort, "std::bad_alloc" on stderr).
#include <cstdio>
#include <cstring>
#include <vector>
int main() {
    std::vector<char *> blocks;
    for (int i = 0; i < 64; i++) {
        blocks.push_back(new char[64 << 20]);
        std::memset(blocks.back(), 1, 64 << 20);
    }
    long a, b;
    if (std::scanf("%ld %ld", &a, &b) != 2) return 1;
    std::printf("%ld\n", a + b);
}
