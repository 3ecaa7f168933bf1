"""Looking at live processes through /proc, for the tests that check what is left running.

(A module of its own at the top of the tests: `runkit` and `stresskit` both use it.)
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from pipeline.programs.processes import children_of  # noqa: F401 (the pipeline's own, one place)


def alive(pid: int) -> bool:
    """True while `pid` is a live process (a zombie waiting to be reaped counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def descendants_of(pid: int) -> list[int]:
    """Pids of the live processes below `pid`: its children, theirs, and so on. (A run's
    workers are not its children: they are forked from its worker server.)"""
    found, frontier = [], [pid]
    while frontier:
        children = [child for parent in frontier for child in children_of(parent)]
        found += children
        frontier = children
    return found


def processes_marked(marker: str) -> list[int]:
    """Pids of the live processes whose command line holds `marker`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                cmdline = handle.read()
        except OSError:
            continue
        if marker.encode() in cmdline and alive(int(entry)):
            found.append(int(entry))
    return found


@contextlib.contextmanager
def starved(marker: str) -> Iterator[None]:
    """While in it, what this process starts runs on one core beside a spinner, and each
    process whose command line holds `marker` gets the least share of that core there is:
    its session's autogroup set to nice 19 as soon as it is seen (the scheduler shares a core
    between sessions first), so it gets a few ms a second and waits for the core the rest.
    Python programs only: not the launcher that runs one, which stops it in time."""
    cpus = os.sched_getaffinity(0)
    core = min(cpus)
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"],
                               start_new_session=True)
    done = threading.Event()

    def starve() -> None:
        while not done.is_set():
            for pid in processes_marked(marker):
                with contextlib.suppress(OSError):
                    if Path(f"/proc/{pid}/comm").read_text().startswith("python"):
                        Path(f"/proc/{pid}/autogroup").write_text("19")
            time.sleep(0.005)

    watcher = threading.Thread(target=starve, daemon=True)
    try:
        os.sched_setaffinity(spinner.pid, {core})
        os.sched_setaffinity(0, {core})
        watcher.start()
        yield
    finally:
        done.set()
        os.sched_setaffinity(0, cpus)
        spinner.kill()
        spinner.wait()
        watcher.join()


HOSTILE = '''\
import json, os, socket, subprocess, sys, time
report = {{}}
# a daemon in a session of its own, meant to outlive everything
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", {marker!r}],
                 start_new_session=True, stdin=subprocess.DEVNULL,
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
for path in {outside!r}:
    try:
        with open(path, "w") as out:
            out.write("escaped\\n")
        report.setdefault("wrote", []).append(path)
    except OSError:
        pass
try:
    report["read"] = open({secret!r}).read()
except OSError as error:
    report["read"] = None
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=1).close()
    report["connect"] = True
except OSError:
    report["connect"] = False
forks = 0
while forks < {forks}:  # fork without end (each child sleeps, so the machine is not spun)
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        os.execv("/bin/sleep", ["sleep", "60"])
    forks += 1
report["forks"] = forks
sys.stderr.write("HOSTILE " + json.dumps(report) + "\\n")
sys.stderr.flush()
{then}
'''


def hostile_program(folder, *, outside, secret, port: int, marker: str, forks: int = 2000,
                    then: str = "") -> list[str]:
    """argv of a hostile Python program written into `folder`: it starts a daemon (in a new
    session; its command line holds `marker`), tries to write each path of `outside`, to read
    `secret`, to connect to 127.0.0.1:`port` and to fork `forks` times, reports what it could
    as a `HOSTILE {json}` line on stderr, then runs `then` (Python: what its role does)."""
    import sys
    from pathlib import Path

    path = Path(folder) / "hostile.py"
    path.write_text(HOSTILE.format(marker=marker, outside=[str(p) for p in outside],
                                   secret=str(secret), port=port, forks=forks, then=then))
    return [sys.executable, str(path)]


def hostile_report(stderr: str) -> dict:
    """What a `hostile_program` reported it could do."""
    import json

    [line] = [line for line in stderr.splitlines() if "HOSTILE " in line]
    return json.loads(line.partition("HOSTILE ")[2])
