// The read floor of the max-tests section: read all of stdin in 64 KB blocks (as our C++
// solutions do) and exit. No solution of a max test can take less time than this.
#include <cstdio>

int main() {
    static char block[1 << 16];
    while (std::fread(block, 1, sizeof block, stdin) > 0) {
    }
    return 0;
}
