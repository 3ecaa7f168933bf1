// Keeps argv[1] MB resident (every page written) while it answers a + b.
#include <cstdio>
#include <cstdlib>
#include <cstring>
int main(int argc, char **argv) {
    size_t bytes = (size_t)std::atol(argv[1]) << 20;
    char *block = static_cast<char *>(std::malloc(bytes));
    std::memset(block, 1, bytes);
    long a, b;
    if (std::scanf("%ld %ld", &a, &b) != 2) return 1;
    std::printf("%ld\n", a + b + block[bytes - 1] - 1);
}
