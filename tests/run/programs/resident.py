"""Correct, after keeping argv[1] MB resident (touched) at once."""
import sys

ballast = bytearray(int(sys.argv[1]) << 20)
a, b = map(int, sys.stdin.read().split())
print(a + b + ballast[-1])
