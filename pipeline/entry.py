"""The `pipeline` console script: `pipeline solve` is dispatched without importing Typer or
anything but the problem being solved; every other command goes to `pipeline.cli`. The standard
streams are made safe before (`guard`), and once the command has ended the process ends without
tearing down its modules (`exit_now`: everything a command stores is written and renamed into
place before it returns), saying so when its output could not be written (docs/faults.md).

1. A standard stream the process was started without (`pipeline run >&-`) is held by
   /dev/null, so no file the pipeline opens later takes its number (a table file would
   otherwise receive what is printed); the pipeline's own writes there fail as on the closed
   descriptor: EBADF.
2. Standard output and error write through `_Lossy`: a failed write is remembered, not
   raised, so the command still does all its work and stores what it stores.

Only the standard library is imported: this runs at every command's start, `solve`'s too,
which imports nothing it does not need.
"""

from __future__ import annotations

import atexit
import errno
import io
import os
import signal
import sys


class _Lossy(io.RawIOBase):
    """A file descriptor's writes, a failure remembered in `error` instead of raised (what
    could not be written is dropped: the reader is gone or the device is full)."""

    def __init__(self, fd: int, closed: bool = False) -> None:
        super().__init__()
        self.fd = fd
        self.error: OSError | None = None
        self.closed_at_start = closed  # held by /dev/null: a write is lost, EBADF

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd

    def isatty(self) -> bool:
        return os.isatty(self.fd)

    def write(self, data) -> int:
        view, done = memoryview(data).cast("B"), 0
        if self.closed_at_start and self.error is None:
            self.error = OSError(errno.EBADF, os.strerror(errno.EBADF))
        while self.error is None and done < len(view):
            try:  # (EINTR is retried by os.write itself: PEP 475)
                done += os.write(self.fd, view[done:])
            except OSError as error:
                self.error = error
        return len(view)


_STREAMS: dict[str, _Lossy] = {}


def _hold(fd: int) -> bool:
    """Hold `fd` by /dev/null when the process was started without it; True when it was."""
    try:
        os.fstat(fd)
        return False
    except OSError:
        pass
    held = os.open(os.devnull, os.O_RDONLY if fd == 0 else os.O_WRONLY)
    if held != fd:
        os.dup2(held, fd)  # inheritable: a program the pipeline starts finds it held too
        os.close(held)
    else:
        os.set_inheritable(fd, True)
    return True


def guard() -> None:
    """Hold the standard descriptors the process lacks, and make standard output and error
    remember their write errors instead of raising them (see the module's docstring)."""
    closed = {fd: _hold(fd) for fd in (0, 1, 2)}
    if sys.stdin is None:
        sys.stdin = open(0, encoding="utf-8", errors="surrogateescape", closefd=False)
    for name, fd in (("stdout", 1), ("stderr", 2)):
        old = getattr(sys, name)
        raw = _Lossy(fd, closed[fd])
        stream = io.TextIOWrapper(
            io.BufferedWriter(raw),
            encoding=getattr(old, "encoding", None) or "utf-8",
            errors=getattr(old, "errors", None) or ("backslashreplace" if fd == 2
                                                    else "surrogateescape"),
            line_buffering=fd == 2 or raw.isatty(), write_through=fd == 2)
        _STREAMS[name] = raw
        setattr(sys, name, stream)


def exit_now(code: object) -> None:
    """End the process with status `code` (as `sys.exit(code)` would) without tearing its
    modules down. When standard output lost what the command printed, one line says so (none
    for a closed pipe) and the status, when 0, becomes 1 (141 for a closed pipe)."""
    import threading

    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        print(code, file=sys.stderr)
        status = 1
    try:  # as Python's exit: the non-daemon threads, and what they registered to run then
        getattr(threading, "_shutdown", lambda: None)()
    except Exception:  # as Python's exit, an error there changes no status (a process pool's
        pass           # wake-up pipe its own thread closed meanwhile: EBADF after a SIGTERM)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:  # None: the process was started without it
                stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: as Python's exit, say so
            status = status or 120
    raw = _STREAMS.get("stdout")
    if raw is not None and raw.error is not None:
        if raw.error.errno == errno.EPIPE:  # as a tool killed by SIGPIPE: nothing said
            status = status or 128 + signal.SIGPIPE
        else:
            succeeded = " (the command itself succeeded: what it stores is stored)"
            print(f"pipeline: write error: {raw.error.strerror or raw.error}: standard output "
                  f"lost what the command printed{succeeded if status == 0 else ''}",
                  file=sys.stderr, flush=True)
            status = status or 1
    os._exit(status & 0xFF)


def main() -> None:
    guard()  # before anything opens a file or prints (see the module's docstring)
    argv = sys.argv[1:]
    code: object
    try:
        if argv[:1] == ["solve"]:
            from pipeline.run.solve import main as solve_main

            code = solve_main(argv[1:])
        else:
            from pipeline.cli import main as cli_main

            cli_main(argv)
            code = 0
    except SystemExit as exit_:
        code = exit_.code
    exit_now(code)


if __name__ == "__main__":
    main()
