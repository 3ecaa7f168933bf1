"""Forks argv[2] children that sleep a minute, writes their pids to argv[1], then either
answers correctly and exits (argv[3] == "answer") or sleeps too (argv[3] == "sleep")."""
import os
import sys
import time

pids = []
for _ in range(int(sys.argv[2])):
    pid = os.fork()
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    pids.append(pid)
with open(sys.argv[1], "w") as out:
    out.write(" ".join(map(str, pids)))
if sys.argv[3] == "sleep":
    time.sleep(60)
a, b = map(int, sys.stdin.read().split())
print(a + b)
