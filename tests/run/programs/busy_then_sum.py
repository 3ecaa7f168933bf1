"""Correct, after spending argv[1] seconds of CPU time."""
import sys
import time

end = time.process_time() + float(sys.argv[1])
while time.process_time() < end:
    pass
a, b = map(int, sys.stdin.read().split())
print(a + b)
