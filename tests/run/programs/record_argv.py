"""Writes its arguments (after argv[1]) as JSON to the file argv[1], then answers correctly."""
import json
import sys

with open(sys.argv[1], "w") as out:
    json.dump(sys.argv[2:], out)
a, b = map(int, sys.stdin.read().split())
print(a + b)
