"""Process bookkeeping of workers (Linux only, through ctypes): dying with the parent
(`die_with_parent`), adopting the orphans of its programs (`become_subreaper`) so that
`end_sessions` reaps them, reading /proc, and starting the next child as the init of a new PID
namespace (`NextChildNamespace`).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import time
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
END_WAIT_S = 5.0  # `end_sessions`: the longest it waits for what it killed to die

_libc = ctypes.CDLL(None, use_errno=True)


def _prctl(option: int, value: int) -> None:
    if _libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))


def die_with_parent(expected_parent: int | None) -> None:
    """Have SIGKILL sent here when the parent dies; exit now if it is not `expected_parent`."""
    _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
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


def stat_fields(pid: int | str) -> list[bytes] | None:
    """The fields of /proc/PID/stat after the command's name; None when the process is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None


def proc_stats() -> dict[int, list[bytes]]:
    """`stat_fields` of every process there is now."""
    found = {int(entry): stat_fields(entry) for entry in os.listdir("/proc") if entry.isdigit()}
    return {pid: fields for pid, fields in found.items() if fields is not None}


def ownerless(paths: Iterable[Path], owner: Callable[[Path], str]) -> Iterator[Path]:
    """Those of `paths` (left by pipeline processes) whose process, `owner(path)`, is gone."""
    for path in paths:
        try:
            os.kill(int(owner(path)), 0)
        except ProcessLookupError:
            yield path
        except (ValueError, PermissionError):
            continue


def children_of(pid: int) -> list[int]:
    """Pids of the live (not zombie) processes whose parent is `pid`."""
    return [child for child, fields in proc_stats().items()
            if int(fields[1]) == pid and fields[0] not in (b"Z", b"X")]


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float | None:
    """The CPU seconds (user + system, all threads) process `pid` has used (None: gone)."""
    fields = stat_fields(pid)
    try:
        return None if fields is None else (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    except (IndexError, ValueError):
        return None


def end_sessions(sessions: Collection[int], reap: bool = True) -> None:
    """SIGKILL every process of `sessions` (those of programs this process started, each in a
    session of its own) and (`reap`) reap those that are its children (orphans it adopted
    too), until none is left alive or `END_WAIT_S` has passed. No other session is touched."""
    me = os.getpid()
    deadline = time.monotonic() + END_WAIT_S
    while True:
        members = [(pid, int(fields[1]), fields[0] not in (b"Z", b"X"))  # (pid, parent, alive)
                   for pid, fields in proc_stats().items() if int(fields[3]) in sessions]
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


@dataclass
class NextChildNamespace:
    """`enter()` before a spawn makes the spawned process pid 1 of a new PID namespace;
    `leave()` right after puts later children back in this process's. Without the privilege,
    `enter()` is False from then on."""

    available: bool = True
    _own: int | None = None  # this process's own PID namespace (opened on first use)

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

