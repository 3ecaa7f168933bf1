// Writes to stdout without end (SIGXFSZ under a file-size limit).
#include <cstdio>
int main() {
    static char line[4096];
    for (auto &c : line) c = '7';
    for (;;) std::fwrite(line, 1, sizeof line, stdout);
}
