"""Running one external program on one case, under limits, with honest measurements.

The program gets the input on stdin, a fresh empty temporary directory as its working
directory, a clean environment, and its own session (so its process group, forks included, can
be killed as a whole). Limits are set in the child before `exec`: address space
(`--memory`), file size (caps stdout, stderr and anything it writes: exceeding it is `OLE`) and
CPU seconds (a backstop to the wall-clock timeout). The parent waits on a pidfd with the
wall-clock timeout and reaps the child with `wait4`, which yields the child's own CPU time and
peak resident memory. Nothing is ever passed through a shell.

That peak has a floor: Linux carries the high-water mark of the forked copy of the worker across
`exec`, so a program smaller than its worker reports about the worker's resident size. The
memory verdict therefore trusts a peak near the limit only when it is above the worker's
resident size at the fork.

The limits are applied by util-linux's `prlimit`, which sets them on itself and then execs the
program (same pid, so `wait4` still measures the program): that keeps the worker's spawn on
the cheap vfork path (about 2 ms a case, against 3.5-6 ms for a Python `preexec_fn`, which
forces a full fork of a worker that may hold NumPy and numba). Where `prlimit` is missing the
worker falls back to `preexec_fn`, which is safe because workers are single-threaded.

Each case's files (input, output, the program's working directory) live in one scratch
folder per worker, on tmpfs (`/dev/shm`) when there is one, with a new folder per case, removed when the case is over.
"""

from __future__ import annotations

import os
import resource
import select
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from pipeline.run.jobs import Job, Outcome

STDERR_KEEP = 2000
_ALLOCATION_FAILURE = ("bad_alloc", "MemoryError", "Cannot allocate memory", "out of memory")


def _limits(memory_bytes: int | None, file_bytes: int, cpu_seconds: int):
    def apply() -> None:
        if memory_bytes is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


_PRLIMIT = shutil.which("prlimit")
_scratch: Path | None = None
_cases_run = 0


def scratch_root() -> Path:
    """This worker's scratch folder (created on first use; on tmpfs where possible)."""
    global _scratch
    if _scratch is None:
        shm = Path("/dev/shm")
        base = str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None
        _scratch = Path(tempfile.mkdtemp(prefix=f"{scratch_prefix(os.getpid())}", dir=base))
    return _scratch


def scratch_prefix(pid: int) -> str:
    return f"gamebench-run-{pid}-"


def remove_scratch_of(pid: int) -> None:
    """Remove the scratch folder of a worker that was killed before it could."""
    for base in (Path("/dev/shm"), Path(tempfile.gettempdir())):
        for folder in base.glob(scratch_prefix(pid) + "*"):
            shutil.rmtree(folder, ignore_errors=True)


def cleanup_scratch() -> None:
    global _scratch
    if _scratch is not None:
        shutil.rmtree(_scratch, ignore_errors=True)
        _scratch = None


def _command(argv: tuple[str, ...], memory_bytes: int | None, file_bytes: int,
             cpu_seconds: int) -> tuple[list[str], object]:
    """(argv to spawn, preexec_fn or None): the program under its limits."""
    if _PRLIMIT is None:
        return list(argv), _limits(memory_bytes, file_bytes, cpu_seconds)
    limits = [f"--fsize={file_bytes}", f"--cpu={cpu_seconds}:{cpu_seconds + 1}", "--core=0"]
    if memory_bytes is not None:
        limits.insert(0, f"--as={memory_bytes}")
    return [_PRLIMIT, *limits, "--", *argv], None


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class ChildTracker:
    """Remembers the process group of the program now running, for a clean shutdown."""

    current: int | None = None

    @classmethod
    def kill_current(cls) -> None:
        if cls.current is not None:
            _kill_group(cls.current)


def run_external(job: Job) -> Outcome:
    spec = job.solver
    program = spec.argv[0] if spec.argv else ""
    if shutil.which(program, path=os.environ.get("PATH", "/usr/bin:/bin")) is None:
        return Outcome(job.key, "re", error=f"cannot start {program!r}: no such executable "
                       "program")
    global _cases_run
    _cases_run += 1
    private = scratch_root() / f"case-{_cases_run}"  # a new folder per case, never reused
    workdir = private / "work"
    workdir.mkdir(parents=True)
    memory = spec.memory_mb * 1024 * 1024 if spec.memory_mb else None
    argv, preexec = _command(spec.argv, memory, spec.output_limit_bytes,
                             int(spec.timeout_s) + 1)
    try:
        (private / "input").write_text(job.input, encoding="utf-8")
        with open(private / "input", "rb") as stdin, open(private / "stdout", "wb") as stdout, \
                open(private / "stderr", "wb") as stderr:
            worker_kb = _resident_kb()
            started = time.perf_counter()
            try:
                process = subprocess.Popen(
                    argv, stdin=stdin, stdout=stdout, stderr=stderr, cwd=workdir,
                    env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"},
                    start_new_session=True, close_fds=True, preexec_fn=preexec)
            except OSError as error:
                return Outcome(job.key, "re", error=f"cannot start {spec.argv[0]}: {error}")
            ChildTracker.current = process.pid
            timed_out = _wait_with_timeout(process.pid, spec.timeout_s)
            if timed_out:
                _kill_group(process.pid)
            _, status, usage = os.wait4(process.pid, 0)
            wall_ms = (time.perf_counter() - started) * 1000
            process.returncode = os.waitstatus_to_exitcode(status)
            _kill_group(process.pid)  # forked leftovers die with the case
            ChildTracker.current = None
        return _classify(job, private, status, usage, wall_ms, timed_out, memory, worker_kb)
    finally:
        shutil.rmtree(private, ignore_errors=True)


def _resident_kb() -> int:
    """This process's resident memory now: what a fork of it starts with."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)


def _wait_with_timeout(pid: int, timeout_s: float) -> bool:
    """Block until `pid` exits or `timeout_s` passes; True when it timed out."""
    fd = os.pidfd_open(pid)
    try:
        ready, _, _ = select.select([fd], [], [], timeout_s)
        return not ready
    finally:
        os.close(fd)


def _classify(job: Job, private: Path, status: int, usage, wall_ms: float, timed_out: bool,
              memory: int | None, worker_kb: int) -> Outcome:
    spec = job.solver
    cpu_ms = (usage.ru_utime + usage.ru_stime) * 1000
    rss_kb = int(usage.ru_maxrss)
    code = os.waitstatus_to_exitcode(status)
    stderr = (private / "stderr").read_bytes()[-STDERR_KEEP:].decode("utf-8", "replace")
    out_size = (private / "stdout").stat().st_size
    common = dict(wall_ms=wall_ms, cpu_ms=cpu_ms, peak_rss_kb=rss_kb, exit_code=code)
    if timed_out or code == -signal.SIGXCPU:
        return Outcome(job.key, "tle", error=f"killed after {spec.timeout_s:g} s", **common)
    if code == -signal.SIGXFSZ or out_size >= spec.output_limit_bytes:
        return Outcome(job.key, "ole", error=f"output exceeded {spec.output_limit_bytes} bytes",
                       **common)
    if code != 0:
        own_peak = rss_kb > worker_kb  # else it may be the worker's image at the fork
        near_limit = memory is not None and own_peak and rss_kb * 1024 >= 0.9 * memory
        if memory is not None and (near_limit or any(s in stderr for s in _ALLOCATION_FAILURE)):
            return Outcome(job.key, "mle", error=f"memory limit {spec.memory_mb} MB: "
                           f"{stderr.strip()[-200:]}", **common)
        reason = f"signal {-code}" if code < 0 else f"exit code {code}"
        return Outcome(job.key, "re", error=f"{reason}: {stderr.strip()[-500:]}", **common)
    answer = (private / "stdout").read_bytes().decode("utf-8", "replace")
    return Outcome(job.key, "ok", answer=answer, **common)
