"""Correct: reads `a b`, prints a + b."""
import sys

a, b = map(int, sys.stdin.read().split())
print(a + b)
