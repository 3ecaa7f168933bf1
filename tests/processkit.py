"""Looking at live processes through /proc, for the tests that check what is left running.

(A module of its own at the top of the tests: `runkit` and `stresskit` both use it.)
"""

from __future__ import annotations

import os


def alive(pid: int) -> bool:
    """True while `pid` is a live process (a zombie waiting to be reaped counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def children_of(pid: int) -> list[int]:
    """Pids of the live processes whose parent is `pid`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] not in ("Z", "X"):
            found.append(int(entry))
    return found
