// Allocates memory without bound (a growing vector, touched): std::bad_alloc under a limit.
#include <cstdio>
#include <vector>
int main() {
    std::vector<char> grow;
    for (;;) grow.resize(grow.size() + (64 << 20), 1);
}
