// Allocates memory without bound and never checks malloc: under a limit it dies of SIGSEGV
// with nothing on stderr, its resident memory close to the limit.
#include <cstdlib>
#include <cstring>
int main() {
    for (;;) {
        char *block = static_cast<char *>(std::malloc(1 << 20));
        std::memset(block, 1, 1 << 20);
    }
}
