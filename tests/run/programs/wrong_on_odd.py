"""Wrong exactly when a is odd: prints a + b + 1 then."""
import sys

a, b = map(int, sys.stdin.read().split())
print(a + b + a % 2)
