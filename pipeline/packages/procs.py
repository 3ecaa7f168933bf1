"""Running a package's own programs (compilers, validators, checkers, generators) under limits.

Submissions on a test case go through the run layer (`pipeline.run.external.run_external`);
everything else a package brings runs here: one process in its own session (so its forks die
with it), stdin/stdout/stderr connected to files, address space, CPU time and file size limited
in the child before `exec`, a wall-clock timeout, and the child's own CPU time and peak memory
taken from `wait4`. Nothing is passed through a shell.
"""

from __future__ import annotations

import os
import resource
import select
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

KEEP_TEXT = 4000


@dataclass(frozen=True)
class ProcessResult:
    """How one run of a helper program ended, with what it printed (cut to `KEEP_TEXT`)."""

    exit_code: int | None          # None when it was killed by a signal or timed out
    signal: int | None
    timed_out: bool
    cpu_s: float
    wall_s: float
    peak_rss_kb: int
    stdout: str
    stderr: str
    error: str | None = None       # it could not be started at all

    @property
    def output(self) -> str:
        """stdout and stderr together, the way a person reads a program's complaint."""
        return "\n".join(part for part in (self.stdout.strip(), self.stderr.strip()) if part)


def limiter(memory_mb: int | None, cpu_s: float | None, file_mb: int | None):
    """A `preexec_fn` setting the limits in the child (address space, CPU, file size)."""
    def apply() -> None:
        if memory_mb is not None:
            size = memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (size, size))
        if cpu_s is not None:
            seconds = int(cpu_s) + 1
            resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
        if file_mb is not None:
            size = file_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def wait_or_timeout(pid: int, timeout_s: float | None) -> bool:
    """Block until `pid` exits or `timeout_s` passes; True when it timed out."""
    fd = os.pidfd_open(pid)
    try:
        ready, _, _ = select.select([fd], [], [], timeout_s)
        return not ready
    finally:
        os.close(fd)


def environment() -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C",
            "HOME": os.environ.get("HOME", "/tmp")}


def run_limited(argv: list[str] | tuple[str, ...], *, cwd: Path, stdin: Path | None = None,
                stdout: Path | None = None, time_s: float = 60.0,
                memory_mb: int | None = None, file_mb: int | None = 64) -> ProcessResult:
    """Run `argv` in `cwd` with stdin from a file, under limits, and wait for it.

    stdout goes to `stdout` when given (and is then not returned), else it is captured.
    """
    cwd.mkdir(parents=True, exist_ok=True)
    out_path = stdout if stdout is not None else cwd / f".stdout-{os.getpid()}-{time.monotonic_ns()}"
    err_path = cwd / f".stderr-{os.getpid()}-{time.monotonic_ns()}"
    started = time.perf_counter()
    try:
        with open(stdin if stdin is not None else os.devnull, "rb") as infile, \
                open(out_path, "wb") as outfile, open(err_path, "wb") as errfile:
            try:
                process = subprocess.Popen(
                    list(argv), stdin=infile, stdout=outfile, stderr=errfile, cwd=cwd,
                    env=environment(), start_new_session=True, close_fds=True,
                    preexec_fn=limiter(memory_mb, time_s, file_mb))
            except OSError as error:
                return ProcessResult(None, None, False, 0.0, 0.0, 0, "", "",
                                     error=f"cannot start {argv[0]}: {error}")
            timed_out = wait_or_timeout(process.pid, time_s + 1.0)
            if timed_out:
                kill_group(process.pid)
            _, status, usage = os.wait4(process.pid, 0)
            process.returncode = os.waitstatus_to_exitcode(status)
            kill_group(process.pid)
        wall = time.perf_counter() - started
        code = os.waitstatus_to_exitcode(status)
        cpu = usage.ru_utime + usage.ru_stime
        timed_out = timed_out or code == -signal.SIGXCPU
        captured = "" if stdout is not None else _tail(out_path)
        return ProcessResult(
            exit_code=code if code >= 0 and not timed_out else None,
            signal=-code if code < 0 else None, timed_out=timed_out, cpu_s=cpu, wall_s=wall,
            peak_rss_kb=int(usage.ru_maxrss), stdout=captured, stderr=_tail(err_path))
    finally:
        err_path.unlink(missing_ok=True)
        if stdout is None:
            out_path.unlink(missing_ok=True)


def _tail(path: Path) -> str:
    data = path.read_bytes()
    if len(data) > KEEP_TEXT:
        data = data[:KEEP_TEXT // 2] + b"\n[...]\n" + data[-KEEP_TEXT // 2:]
    return data.decode("utf-8", "replace")


def describe_failure(result: ProcessResult, what: str) -> str:
    """A sentence for a helper that ended badly: timed out, killed, or an exit code."""
    if result.error:
        return result.error
    if result.timed_out:
        return f"{what} timed out after {result.wall_s:.1f} s"
    if result.signal is not None:
        return f"{what} was killed by signal {result.signal}"
    return f"{what} exited with code {result.exit_code}"
