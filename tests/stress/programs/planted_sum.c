/* A Polygon Sum submission with a planted bug: given more than six numbers, it adds one when a
   number equals the one just before it. It also reads numbers to the end of the input instead
   of n of them, which only valid inputs hide: a shrink that let invalid inputs through would
   go on past the smallest valid case (`7` over seven zeros would lose five of them). */
#include <stdio.h>

int main(void) {
    int n, first = 1, repeated = 0;
    long long total = 0, a, previous = 0;
    if (scanf("%d", &n) != 1) return 1;
    while (scanf("%lld", &a) == 1) {
        if (!first && a == previous) repeated = 1;
        total += a;
        previous = a;
        first = 0;
    }
    printf("%lld\n", total + (n > 6 && repeated));
    return 0;
}
