"""Looking at live processes through /proc, for the tests that check what is left running.

(A module of its own at the top of the tests: `runkit` and `stresskit` both use it.)
"""

from __future__ import annotations

import os

from pipeline.run.processes import children_of  # noqa: F401 (the pipeline's own, one place)


def alive(pid: int) -> bool:
    """True while `pid` is a live process (a zombie waiting to be reaped counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")
