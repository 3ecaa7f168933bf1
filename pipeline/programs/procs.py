"""Running a package's own programs (compilers, validators, checkers, generators) under limits:
through the one runner, `contained`, with stdio from and to files, and no shell; `on_cores`
waits on many (a generator per case, a validator per file), a core's worth at once on daemon
threads of this process, so an interrupted command exits without them.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from pipeline.fsutil import scratch_folder
from pipeline.programs import contained
from pipeline.untrusted import read_ends

KEEP_TEXT = 4000
MIB = 1024 * 1024


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


def environment() -> dict[str, str]:
    return contained.environment(home=True)


# Where a sandboxed build keeps its caches: in its private /tmp, since its HOME is read-only
# there. HOME itself stays the user's: toolchains installed under it find themselves by it
# (a rustup `rustc` reads ~/.rustup, and with HOME=/tmp it has no toolchain to run).
BUILD_CACHES = {"XDG_CACHE_HOME": "/tmp/.cache", "GOCACHE": "/tmp/.cache/go-build",
                "GOPATH": "/tmp/go"}


def run_limited(argv: list[str] | tuple[str, ...], *, cwd: Path, stdin: Path | None = None,
                stdout: Path | None = None, time_s: float = 60.0,
                memory_mb: int | None = None, file_mb: int | None = 64,
                sandbox: bool | None = None, writable: tuple[Path, ...] = (),
                kept: tuple[Path, ...] = (), hidden: tuple[str, ...] = (),
                build: bool = False) -> ProcessResult:
    """Run `argv` in `cwd` with stdin from a file, under limits, and wait for it; stdout goes
    to `stdout` when given, else is captured. `writable`, `kept`, `hidden`: as
    `contained.start`'s; `build`: it is a build (sandboxed, its caches in its /tmp)."""
    cwd.mkdir(parents=True, exist_ok=True)
    sandboxed = contained.default_sandbox() if sandbox is None else sandbox
    limits = contained.Limits(memory_mb=memory_mb, file_bytes=(file_mb or 0) * MIB or None,
                              cpu_s=time_s, wall_s=contained.wall_cap_s(time_s),
                              written_bytes=(file_mb or 64) * MIB)
    with scratch_folder(prefix="gamebench-helper-") as private:
        out_path = stdout if stdout is not None else Path(private) / "stdout"
        err_path = Path(private) / "stderr"
        with open(stdin if stdin is not None else os.devnull, "rb") as infile, \
                open(out_path, "wb") as outfile, open(err_path, "wb") as errfile:
            measured = contained.run(
                list(argv), stdin=infile, stdout=outfile, stderr=errfile, workdir=cwd,
                limits=limits, sandbox=sandboxed, hidden=hidden,
                env={**environment(), **(BUILD_CACHES if build and sandboxed else {})},
                writable=tuple(str(p) for p in writable), kept=tuple(str(p) for p in kept))
        return result_of(measured, argv, "" if stdout is not None else _tail(out_path),
                         _tail(err_path))


def result_of(measured: contained.Measured, argv, stdout: str, stderr: str) -> ProcessResult:
    """A helper's `ProcessResult` from what the runner measured."""
    wall = (measured.wall_ms or 0.0) / 1000
    for verb, problem in (("run", measured.setup_error), ("start", measured.start_error)):
        if problem is not None:
            return ProcessResult(None, None, False, 0.0, wall, 0, stdout, stderr,
                                 error=f"cannot {verb} {argv[0]}: {problem}")
    code = measured.exit_code
    assert code is not None  # it ran: neither a setup nor a start error
    full = measured.written_full  # (not a time-out, whatever stopped it)
    timed_out = not full and (measured.killed in ("cpu", "wall") or code == -signal.SIGXCPU)
    return ProcessResult(
        exit_code=code if code >= 0 and not timed_out else None,
        signal=-code if code < 0 else None, timed_out=timed_out,
        cpu_s=(measured.cpu_ms or 0.0) / 1000, wall_s=wall, peak_rss_kb=measured.rss_kb or 0,
        stdout=stdout, stderr=stderr, error=f"{argv[0]} filled its folder and /tmp (what a "
        "program writes there in total is capped)" if full else None)


def _tail(path: Path) -> str:
    return read_ends(path, KEEP_TEXT // 2)


def describe_failure(result: ProcessResult, what: str) -> str:
    """A sentence for a helper that ended badly: timed out, killed, or an exit code."""
    if result.error:
        return result.error
    if result.timed_out:
        return f"{what} timed out after {result.wall_s:.1f} s"
    if result.signal is not None:
        return f"{what} was killed by signal {result.signal}"
    return f"{what} exited with code {result.exit_code}"


Item = TypeVar("Item")
Result = TypeVar("Result")


def on_cores(function: Callable[[Item], Result], items: Iterable[Item]) -> list[Result]:
    """`function` of each item, in order, one item per core at once; what it raises is raised
    here once every item started has ended."""
    items = list(items)
    if len(items) < 2 or (os.cpu_count() or 1) < 2:
        return [function(item) for item in items]
    found: list[object] = [None] * len(items)
    failed: list[bool] = [False] * len(items)
    left = iter(range(len(items)))
    lock = threading.Lock()

    def work() -> None:
        while True:
            with lock:
                index = next(left, None)
            if index is None:
                return
            try:
                found[index] = function(items[index])
            except BaseException as error:  # raised again below, in the caller's thread
                found[index], failed[index] = error, True

    threads = [threading.Thread(target=work, name="on-cores", daemon=True)
               for _ in range(min(len(items), os.cpu_count() or 1))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for result, raised in zip(found, failed):
        if raised:
            raise result  # type: ignore[misc]
    return found  # type: ignore[return-value]
