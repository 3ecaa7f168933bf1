// Recurses argv[1] levels deep, each level keeping a 64-byte frame alive (its address goes
// down to the next level, so the compiler cannot turn the recursion into a loop), then
// answers a + b.
#include <cstdio>
#include <cstdlib>
static long depth(long n, volatile char *above) {
    volatile char frame[64];
    frame[0] = static_cast<char>(n & 1);
    if (n == 0) return above[0] & 0;
    return depth(n - 1, frame) + (frame[0] - static_cast<char>(n & 1));
}
int main(int argc, char **argv) {
    volatile char top[1] = {0};
    long a, b;
    if (std::scanf("%ld %ld", &a, &b) != 2) return 1;
    std::printf("%ld\n", a + b + depth(std::atol(argv[1]), top));
}
