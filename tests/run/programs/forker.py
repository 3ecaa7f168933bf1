"""Leaves children behind, each sleeping a minute, then answers and exits (argv[3] == "answer")
or sleeps too (argv[3] == "sleep"). argv[1] is a token that marks every process it makes (they
are forks, so they share its command line); argv[2] is how many children: the first stays in
its process group, the second calls setsid, the third double-forks (its child calls setsid and
is orphaned at once), and so on in turn."""
import os
import sys
import time


def child(kind: int) -> None:
    if kind == 1:
        os.setsid()
    elif kind == 2:
        if os.fork() != 0:
            os._exit(0)  # the grandchild is orphaned
        os.setsid()
    time.sleep(60)
    os._exit(0)


for index in range(int(sys.argv[2])):
    if os.fork() == 0:
        child(index % 3)
    if index % 3 == 2:
        os.wait()  # the double fork's middle process
if sys.argv[3] == "sleep":
    time.sleep(60)
a, b = map(int, sys.stdin.read().split())
print(a + b)
