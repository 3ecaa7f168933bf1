"""Process bookkeeping of workers: dying with the parent, adopting orphans, killing children.

Linux only (`prctl`, `unshare`, `setns` through ctypes). `die_with_parent` makes a worker die
when the process that started it dies, even by SIGKILL; `become_subreaper` makes orphaned
descendants of the worker's programs its children rather than init's, so `kill_children` can
find and end them; `cpu_seconds` reads how much CPU time a process has used (how the
pool and the launcher-less path limit by CPU time); `NextChildNamespace` starts the worker's next
child as the init of a new PID namespace.
"""

from __future__ import annotations

import ctypes
import os
import signal
import time

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36

_libc = ctypes.CDLL(None, use_errno=True)


def _prctl(option: int, value: int) -> None:
    if _libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))


def die_with_parent(expected_parent: int | None, sig: int = signal.SIGKILL) -> None:
    """Have `sig` sent to this process when its parent dies; if the parent is already gone
    (it is no longer `expected_parent`), exit now."""
    _prctl(_PR_SET_PDEATHSIG, sig)
    if expected_parent is not None and os.getppid() != expected_parent:
        os._exit(1)


def become_subreaper() -> None:
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def single_threaded() -> bool:
    """Whether this process runs a single thread, counting those of libraries (Polars' pool)
    as /proc does: then forking it is safe (no lock can be held in the copy)."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def children_of(pid: int) -> list[int]:
    """Pids of the live (not zombie) processes whose parent is `pid`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid and fields[0] not in (b"Z", b"X"):
            found.append(int(entry))
    return found


def cpu_seconds(pid: int) -> float | None:
    """The CPU time (user + system, all threads) process `pid` has used so far, in seconds,
    to the kernel's clock tick (None: it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS
    except (OSError, IndexError, ValueError):
        return None


_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def has_children() -> bool:
    """True while this process has a child, live or not yet reaped (one system call)."""
    try:
        os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return False
    return True


def kill_children() -> None:
    """SIGKILL and reap every child of this process, and the children each leaves behind
    (this process must be a subreaper for those to become its own), until none is left."""
    me = os.getpid()
    while has_children():
        for pid in children_of(me):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.001)  # a killed child's orphans reach us before it can be reaped
        try:
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
        except ChildProcessError:
            return


_CLONE_NEWPID = 0x20000000


class NextChildNamespace:
    """Puts the next child of this thread in a PID namespace of its own, as its init.

    `enter()` before a spawn makes the spawned process pid 1 of a new namespace; `leave()`
    right after puts later children back in this process's namespace (a namespace whose init
    is gone takes no more processes). Without the privilege, `enter()` is False from then on.
    """

    def __init__(self) -> None:
        self._own: int | None = None
        self.available = True

    def enter(self) -> bool:
        if not self.available:
            return False
        if self._own is None:
            self._own = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
        if _libc.unshare(_CLONE_NEWPID) != 0:
            self.available = False
            return False
        return True

    def leave(self) -> None:
        if self._own is not None and _libc.setns(self._own, _CLONE_NEWPID) != 0:
            errno = ctypes.get_errno()
            raise OSError(errno, f"setns back to this process's PID namespace: "
                          f"{os.strerror(errno)}")

