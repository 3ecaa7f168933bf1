"""An insq15g solver with a planted bug, for the stress tests: Staircase Nim as it should be
(XOR of the head counts of the cells at odd distance from the corner), except that it keeps
each head count modulo 4. Its smallest counterexample: four people on (1, 1) of a 1 x 2 grid."""

import sys
from collections import Counter

values = list(map(int, sys.stdin.read().split()))
n, m, p = values[0], values[1], values[2]
heads = Counter(zip(values[3::2], values[4::2]))
total = 0
for (x, y), count in heads.items():
    if ((x - 1) + (m - y)) % 2 == 1:
        total ^= count % 4
print("Yes" if total else "No")
