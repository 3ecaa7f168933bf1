"""A tiny process launcher for honest peak-memory figures (standard library only).

Linux records in a child's `ru_maxrss` the resident size of the memory image it had *before*
`exec`, and a child forked (or vforked) from a big process starts with that process's pages.
So a program started by the bench process (hundreds of MB after generating max tests) would
report at least the bench's own size. The bench therefore starts this script once, as
`python -S -E launcher.py` (a few MB), and asks it to start every timed child: it reads one
JSON request per line on stdin, forks, execs, reaps the child with `os.wait4`, and answers one
JSON line with the wall time (measured here, around fork and wait4), CPU seconds, peak RSS in
KB and the exit code. Peak RSS figures are therefore at least this launcher's own size.
"""

from __future__ import annotations

import json
import os
import sys
import time


def _open(path: str | None, write: bool) -> int:
    if path is None:
        return os.open(os.devnull, os.O_WRONLY if write else os.O_RDONLY)
    if write:
        return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    return os.open(path, os.O_RDONLY)


def run(request: dict) -> dict:
    """Start `request["argv"]` with stdin/stdout/stderr from/to the given files; wait for it."""
    argv = request["argv"]
    env = request.get("env") or dict(os.environ)
    fds = [_open(request.get("stdin"), False), _open(request.get("stdout"), True),
           _open(request.get("stderr"), True)]
    try:
        started = time.perf_counter()
        pid = os.fork()
        if pid == 0:  # the child: redirect, move, exec; never returns to the loop
            try:
                for target, fd in enumerate(fds):
                    os.dup2(fd, target)
                if request.get("cwd"):
                    os.chdir(request["cwd"])
                os.execvpe(argv[0], argv, env)
            except BaseException as error:  # noqa: BLE001 - report and leave
                os.write(2, f"launcher: cannot start {argv[0]}: {error}\n".encode())
            os._exit(127)
        _, status, usage = os.wait4(pid, 0)
        wall = time.perf_counter() - started
    finally:
        for fd in fds:
            os.close(fd)
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime,
            "peak_rss_kb": usage.ru_maxrss, "exit_code": os.waitstatus_to_exitcode(status)}


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            answer = run(json.loads(line))
        except Exception as error:  # noqa: BLE001 - the bench reports it
            answer = {"error": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
