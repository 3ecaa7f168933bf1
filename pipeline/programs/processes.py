"""Process bookkeeping of workers: dying with the parent, adopting orphans, ending programs.

Linux only (`prctl`, `unshare`, `setns` through ctypes). `die_with_parent` makes a worker die
when the process that started it dies, even by SIGKILL; `become_subreaper` makes orphaned
descendants of the worker's programs its children rather than init's, so `end_sessions` can
reap them once it has ended the sessions of the programs this process started (never every
child of the process: another thread's build is one); `cpu_seconds` reads how much CPU time
a process has used (how the pool and the launcher-less path limit by CPU time);
`NextChildNamespace` starts the worker's next child as the init of a new PID namespace.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import time
from collections.abc import Collection, Iterator

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
END_WAIT_S = 5.0  # `end_sessions`: the longest it waits for what it killed to die

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


def _stat_fields() -> Iterator[tuple[int, list[bytes]]]:
    """(pid, the fields of /proc/PID/stat after the command's name: state, parent, group,
    session, ...) of every process there is now (those gone meanwhile are left out)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                yield int(entry), handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue


def children_of(pid: int) -> list[int]:
    """Pids of the live (not zombie) processes whose parent is `pid`."""
    return [child for child, fields in _stat_fields()
            if int(fields[1]) == pid and fields[0] not in (b"Z", b"X")]


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


def session_members(sessions: Collection[int]) -> list[tuple[int, int, bool]]:
    """(pid, parent pid, alive) of every process now in one of `sessions`, zombies too
    (alive False): a zombie stays in its session until it is reaped."""
    return [(pid, int(fields[1]), fields[0] not in (b"Z", b"X"))
            for pid, fields in _stat_fields() if int(fields[3]) in sessions]


def end_sessions(sessions: Collection[int], reap: bool = True,
                 wait_s: float = END_WAIT_S) -> None:
    """SIGKILL every process of `sessions` and (`reap`) reap those that are this process's
    children, until none is left alive (or `wait_s` has passed).

    The sessions are those of programs this process started each in a session of its own (a
    launcher, a program run without one) and of what they started (all of it stays in the
    session but for a descendant that calls setsid: its caller tracks that one's session). The
    orphans a subreaper adopted from them are among its children here. Nothing of another
    session is touched: another thread's build, a pool's workers, this process itself."""
    me = os.getpid()
    deadline = time.monotonic() + wait_s
    while True:
        members = session_members(sessions)
        alive = [pid for pid, _, live in members if live and pid != me]
        ours = [pid for pid, parent, _ in members if parent == me] if reap else []
        for pid in alive:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for pid in ours:
            with contextlib.suppress(ChildProcessError):  # reaped by the thread that started it
                os.waitpid(pid, os.WNOHANG)
        if not alive and not ours or time.monotonic() > deadline:
            return
        time.sleep(0.001)  # a killed process's orphans reach their new parent before it dies


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

