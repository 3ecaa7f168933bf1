"""Running one external program on one case: contained, under limits, honestly measured.

The program gets the input on stdin, a fresh empty folder as its working directory, a clean
environment (PATH and LC_ALL=C), its own process group in a session without a terminal, and
these limits:

- memory: address space (RLIMIT_AS) = `memory_mb` (the run gives the problem's limit, 512 MB
  where none is known; None here is no limit);
- stack: RLIMIT_STACK = `stack_mb`, by default as large as the memory limit, as judges set it
  (deep recursion that a judge accepts runs here too);
- time: the CPU time the program used is what is compared with the limit (`timeout_s`), and
  a wall-clock cap of 2 x limit + 1 s stops a program that sleeps or waits; the outcome's
  `error` says which one fired;
- output: RLIMIT_FSIZE caps stdout, stderr and any file it writes (over it: `OLE`).

Each case is run by the launcher (`launcher.c`, compiled once per machine by `launcher`),
which the worker starts in its own session as the init of a new PID namespace: the launcher
forks the program from a process of about 1 MB, so the peak resident memory that `wait4`
reports is the program's own, not the worker's (Linux carries the forking process's high-water
mark across exec). Every descendant of the program dies when the case ends (the namespace's
init exits; a child subreaper that kills them where no namespace can be made); the launcher
dies with its worker and takes the program with it, and
writes the status, CPU time, peak memory and wall time it measured to a result file. With
`sandbox` set, the program runs in its own mount, network and IPC namespace that shows it only
the system folders, its working directory and the paths in `visible`, as user nobody; each
worker builds that sandbox once (per set of visible paths) and every case enters it, which
costs about 0.2 ms a case instead of 0.7 ms for building it anew. The worker goes on as soon as
the launcher closes the pipe it was given (every process of the case dead, the result
written); the launcher's own exit, which tears its namespaces down, overlaps the next case, and
it is reaped later.

Why a PID namespace rather than a cgroup: the kernel itself kills every process of the
namespace when its init exits, with no race against a program that keeps forking, it needs no
writable cgroup file system (here cgroup v1, whose memory hierarchy belongs to the machine's own
session manager, and v1 has no cgroup.kill), and entering one costs about a tenth of a
millisecond. What a cgroup would add, a memory limit and CPU time summed over all of a program's
processes, is not had: the address-space limit is per process (a program that forks may use it
once per process), and CPU time is the program's own plus that of the children it waited for.

Without a C compiler there is no launcher: the worker then starts the program itself (limits
set by a `preexec_fn`, which makes the spawn a full fork, about 3 ms slower) and, being a child
subreaper, kills the program's descendants after each case. Peak memory then includes the
worker's size at the fork, so a memory verdict there trusts a peak near the limit only when it
is above the worker's resident size; and a descendant that calls setsid outlives a worker that
is killed with SIGKILL.

Each case's files (input, output, the program's working directory) live in one scratch folder
per worker, on tmpfs (`/dev/shm`) when there is one, with a new folder per case, removed when
the case is over. Folders of workers that died without removing theirs are removed by the next
worker to start.
"""

from __future__ import annotations

import ctypes
import os
import resource
import select
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from pipeline.run.jobs import Job, Outcome, SolverSpec
from pipeline.run.launcher import SandboxError, launcher_path, parse_result, sandbox_template
from pipeline.run.processes import (NextChildNamespace, become_subreaper, cpu_seconds,
                                     kill_children)

STDERR_KEEP = 2000
_ALLOCATION_FAILURE = ("bad_alloc", "MemoryError", "Cannot allocate memory", "out of memory")
# How long past the wall-clock cap the worker waits for the launcher before stopping it.
LAUNCHER_GRACE_S = 2.0
CPU_POLL_S = 0.05  # without the launcher: how often the worker looks at the program's CPU time
MB = 1024 * 1024


def wall_cap_s(timeout_s: float) -> float:
    """The wall-clock cap of a program or built-in stage whose CPU-time limit is `timeout_s`."""
    return 2 * timeout_s + 1


def cpu_over_message(timeout_s: float, cpu_ms: float | None) -> str:
    """The error of a `TLE` for CPU time over the limit."""
    return f"CPU time over the {timeout_s:g} s limit ({(cpu_ms or 0) / 1000:.2f} s used)"


def wall_cap_message(timeout_s: float, cpu_ms: float | None) -> str:
    """The error of a `TLE` for the wall-clock cap (a program or stage that sleeps or waits)."""
    return (f"wall clock {wall_cap_s(timeout_s):g} s cap reached (2 x limit + 1 s; "
            f"{(cpu_ms or 0) / 1000:.2f} s of CPU used)")


def stack_limit_mb(spec: SolverSpec) -> int | None:
    """The program's stack limit in MB (None: unlimited)."""
    if spec.stack_mb is None:
        return spec.memory_mb or None
    return spec.stack_mb or None


_scratch: Path | None = None
_cases_run = 0


def scratch_root() -> Path:
    """This worker's scratch folder (created on first use; on tmpfs where possible)."""
    global _scratch
    if _scratch is None:
        shm = Path("/dev/shm")
        base = shm if shm.is_dir() and os.access(shm, os.W_OK) else Path(tempfile.gettempdir())
        _remove_stale_scratch(base)
        _scratch = Path(tempfile.mkdtemp(prefix=scratch_prefix(os.getpid()), dir=base))
        _scratch.chmod(0o711)  # a sandboxed program (user nobody) passes through to its folder
    return _scratch


def scratch_prefix(pid: int) -> str:
    return f"gamebench-run-{pid}-"


def _remove_stale_scratch(base: Path) -> None:
    for folder in base.glob("gamebench-run-*-*"):
        try:
            pid = int(folder.name.split("-")[2])
            os.kill(pid, 0)
        except ValueError:
            continue
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except PermissionError:
            continue


def remove_scratch_of(pid: int) -> None:
    """Remove the scratch folder of a worker that was killed before it could."""
    for base in (Path("/dev/shm"), Path(tempfile.gettempdir())):
        for folder in base.glob(scratch_prefix(pid) + "*"):
            shutil.rmtree(folder, ignore_errors=True)


def cleanup_scratch() -> None:
    global _scratch
    while _templates:  # popped first: a SIGTERM may run this again midway
        for fd in _templates.popitem()[1]:
            try:
                os.close(fd)
            except OSError:
                pass
    if _scratch is not None:
        shutil.rmtree(_scratch, ignore_errors=True)
        _scratch = None


def prepare_worker() -> None:
    """Make this worker the reaper of its programs' orphans (see `kill_children`)."""
    try:
        become_subreaper()
    except OSError:
        pass


class ChildTracker:
    """The process running the current case (launcher or program), for a clean shutdown."""

    current: int | None = None
    via_launcher = True

    @classmethod
    def kill_current(cls) -> None:
        """Stop the current case's processes. The launcher is asked (SIGTERM): it kills the
        program and every descendant itself, even after this worker has exited."""
        if cls.current is None:
            return
        try:
            if cls.via_launcher:
                os.kill(cls.current, signal.SIGTERM)
            else:
                os.killpg(cls.current, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if not cls.via_launcher:
            kill_children()


@dataclass(frozen=True)
class Measured:
    """What one run of a program came to, as the launcher (or the worker) measured it."""

    status: int | None = None   # wait status; None if it never ran or was never reaped
    cpu_ms: float | None = None
    rss_kb: int | None = None
    wall_ms: float | None = None
    killed: str = "none"        # none, cpu, wall or term: who stopped it
    start_error: str | None = None
    setup_error: str | None = None
    floor_kb: int = 0           # peak memory below this may be the worker's (no launcher)
    lost: bool = False          # the launcher died without cleaning up: sweep its leftovers


def run_external(job: Job) -> Outcome:
    global _cases_run
    _cases_run += 1
    private = scratch_root() / f"case-{_cases_run}"  # a new folder per case, never reused
    workdir = private / "work"
    workdir.mkdir(parents=True)
    measured: Measured | None = None
    try:
        (private / "input").write_text(job.input, encoding="utf-8")
        launcher = launcher_path()
        with open(private / "input", "rb") as stdin, open(private / "stdout", "wb") as stdout, \
                open(private / "stderr", "wb") as stderr:
            streams = (stdin, stdout, stderr)
            if launcher is not None:
                measured = _run_with_launcher(str(launcher), job.solver, private, streams)
            else:
                measured = _run_in_worker(job.solver, workdir, streams)
        return _classify(job, private, measured)
    finally:
        ChildTracker.current = None
        if measured is None or measured.lost:  # a launcher killed before it could clean up
            _exiting.clear()
            kill_children()
        shutil.rmtree(private, ignore_errors=True)


def _environment() -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"}


def _run_with_launcher(launcher: str, spec: SolverSpec, private: Path, streams) -> Measured:
    stack = stack_limit_mb(spec)
    argv = [launcher, "-o", str(private / "result"), "-P", str(_own_pidfd()),
            "-d", str(private / "work"), "-a", str((spec.memory_mb or 0) * MB),
            "-s", str((stack or 0) * MB), "-f", str(spec.output_limit_bytes),
            "-c", str(max(1, round(spec.timeout_s * 1000))),
            "-w", str(max(1, round(wall_cap_s(spec.timeout_s) * 1000)))]
    fds: tuple[int, ...] = ()
    if spec.sandbox:
        try:
            fds = _template(launcher, spec.visible)
        except (SandboxError, OSError) as error:
            return Measured(setup_error=f"cannot build the sandbox: {error}")
        argv += ["-M", str(fds[0]), "-N", str(fds[1]), "-S", str(scratch_root())]
        for path in spec.visible:
            argv += ["-b", path]
    argv += ["--", *spec.argv]
    _reap_exiting()
    done_read, done_write = os.pipe2(os.O_CLOEXEC)
    _namespace.enter()
    try:
        process = subprocess.Popen([*argv[:1], "-D", str(done_write), *argv[1:]],
                                   stdin=streams[0], stdout=streams[1], stderr=streams[2],
                                   env=_environment(), start_new_session=True, close_fds=True,
                                   pass_fds=(*fds, _own_pidfd(), done_write))
    except OSError as error:
        os.close(done_read)
        return Measured(setup_error=f"cannot start the launcher {launcher}: {error}")
    finally:
        _namespace.leave()
        os.close(done_write)
    process.returncode = 0  # reaped here, not by subprocess
    ChildTracker.current, ChildTracker.via_launcher = process.pid, True
    try:
        # The launcher closes its end once every process of the case is dead and the result
        # is written; its own exit (tearing down its namespaces) goes on meanwhile.
        done = _readable(done_read, wall_cap_s(spec.timeout_s) + LAUNCHER_GRACE_S)
    finally:
        os.close(done_read)
    if not done:
        os.kill(process.pid, signal.SIGTERM)  # it kills the program and all it started
        if not _wait_for(process.pid, LAUNCHER_GRACE_S):
            os.kill(process.pid, signal.SIGKILL)
        os.wait4(process.pid, 0)
        return Measured(setup_error="the launcher did not finish within "
                        f"{wall_cap_s(spec.timeout_s) + LAUNCHER_GRACE_S:g} s", lost=True)
    try:
        fields = parse_result((private / "result").read_text(encoding="utf-8", errors="replace"))
    except OSError:
        fields = {}
    if "status" not in fields and "setup_error" not in fields:
        _, status, _ = os.wait4(process.pid, 0)  # it died without a word: what of?
        return Measured(setup_error=f"the launcher ended with wait status {status} and no "
                        "result", lost=True)
    _exiting.append(process.pid)
    if "setup_error" in fields:
        return Measured(setup_error=fields["setup_error"])
    if "start_error" in fields:
        number, step, path = (fields["start_error"].split(" ", 2) + ["", ""])[:3]
        return Measured(start_error=f"{step} {path}: {os.strerror(int(number))}")
    return Measured(status=int(fields["status"]),
                    cpu_ms=(int(fields["user_us"]) + int(fields["sys_us"])) / 1000,
                    rss_kb=int(fields["rss_kb"]), wall_ms=int(fields["wall_us"]) / 1000,
                    killed=fields.get("killed", "none"))


_templates: dict[tuple[str, ...], tuple[int, int]] = {}
_namespace = NextChildNamespace()  # each launcher starts as the init of a new PID namespace
_exiting: list[int] = []  # launchers done with their case, still exiting: reaped later


def _reap_exiting() -> None:
    for pid in list(_exiting):
        try:
            if os.waitpid(pid, os.WNOHANG)[0] == 0:
                continue
        except ChildProcessError:
            pass
        _exiting.remove(pid)
_pidfd: int | None = None


def _own_pidfd() -> int:
    """A pidfd of this worker, for the launcher to see whether it died before it could ask
    to be told."""
    global _pidfd
    if _pidfd is None:
        _pidfd = os.pidfd_open(os.getpid())
    return _pidfd


def _template(launcher: str, visible: tuple[str, ...]) -> tuple[int, int]:
    """This worker's sandbox template for these visible paths (built on first use): the
    namespaces every case with them enters, so no case pays for building its own."""
    fds = _templates.get(visible)
    if fds is None:
        root = scratch_root()
        fds = sandbox_template(Path(launcher), root / f"root-{len(_templates)}", root, visible)
        _templates[visible] = fds
    return fds


# -- without the launcher ------------------------------------------------------------------------

_libc = ctypes.CDLL(None, use_errno=True)
_PR_SET_PDEATHSIG = 1


def _limits(spec: SolverSpec):
    """The preexec_fn that puts the program under its limits (the worker is single-threaded)."""
    memory = (spec.memory_mb or 0) * MB
    stack = (stack_limit_mb(spec) or 0) * MB
    cpu_seconds = int(spec.timeout_s) + 2
    unlimited = resource.RLIM_INFINITY

    def apply() -> None:
        _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        resource.setrlimit(resource.RLIMIT_AS, (memory or unlimited, memory or unlimited))
        resource.setrlimit(resource.RLIMIT_STACK, (stack or unlimited, stack or unlimited))
        resource.setrlimit(resource.RLIMIT_FSIZE, (spec.output_limit_bytes,) * 2)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def _run_in_worker(spec: SolverSpec, workdir: Path, streams) -> Measured:
    if spec.sandbox:
        return Measured(setup_error="the sandbox needs the launcher, and there is none")
    worker_kb = _resident_kb()
    started = time.perf_counter()
    try:
        process = subprocess.Popen(
            spec.argv, stdin=streams[0], stdout=streams[1], stderr=streams[2], cwd=workdir,
            env=_environment(), start_new_session=True, close_fds=True,
            preexec_fn=_limits(spec))
    except OSError as error:
        return Measured(start_error=f"exec {spec.argv[0] if spec.argv else ''}: "
                        f"{error.strerror or error}")
    ChildTracker.current, ChildTracker.via_launcher = process.pid, False
    killed = _watch(process.pid, spec.timeout_s, started)
    if killed != "none":
        _kill_group(process.pid)
    _, status, usage = os.wait4(process.pid, 0)
    wall_ms = (time.perf_counter() - started) * 1000
    process.returncode = os.waitstatus_to_exitcode(status)
    _kill_group(process.pid)
    kill_children()  # descendants that left the group became this subreaper's children
    return Measured(status=status, cpu_ms=(usage.ru_utime + usage.ru_stime) * 1000,
                    rss_kb=int(usage.ru_maxrss), wall_ms=wall_ms, killed=killed,
                    floor_kb=worker_kb)


def _watch(pid: int, timeout_s: float, started: float) -> str:
    """Wait for `pid` to exit; "cpu" or "wall" when a limit is reached first, else "none"."""
    deadline = started + wall_cap_s(timeout_s)
    fd = os.pidfd_open(pid)
    try:
        while True:
            now = time.perf_counter()
            if now >= deadline:
                return "wall"
            ready, _, _ = select.select([fd], [], [], min(CPU_POLL_S, deadline - now))
            if ready:
                return "none"
            used = cpu_seconds(pid)
            if used is not None and used >= timeout_s:
                return "cpu"
    finally:
        os.close(fd)


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _resident_kb() -> int:
    """This process's resident memory now: what a fork of it starts with."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)


def _readable(fd: int, timeout_s: float) -> bool:
    """Block until `fd` can be read (or is at its end) or `timeout_s` passes."""
    ready, _, _ = select.select([fd], [], [], timeout_s)
    return bool(ready)


def _wait_for(pid: int, timeout_s: float) -> bool:
    """Block until `pid` exits or `timeout_s` passes; True when it exited."""
    fd = os.pidfd_open(pid)
    try:
        ready, _, _ = select.select([fd], [], [], timeout_s)
        return bool(ready)
    finally:
        os.close(fd)


# -- verdicts ------------------------------------------------------------------------------------

def _signal_reason(number: int, spec: SolverSpec) -> str:
    try:
        name = signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
    if number == signal.SIGSEGV:
        stack = stack_limit_mb(spec)
        hint = f"stack limit {stack} MB" if stack else "stack unlimited"
        if spec.memory_mb:
            hint += f", memory limit {spec.memory_mb} MB"
        return f"signal {number} ({name}; {hint})"
    if number == signal.SIGKILL:
        return (f"signal {number} ({name}, not sent by the pipeline: e.g. the kernel's "
                "out-of-memory killer)")
    return f"signal {number} ({name})"


def _classify(job: Job, private: Path, measured: Measured) -> Outcome:
    spec = job.solver
    if measured.setup_error is not None:
        return Outcome(job.key, "re", error=f"the launcher could not run the case: "
                       f"{measured.setup_error}")
    if measured.start_error is not None:
        hint = ""
        if spec.sandbox and "Permission denied" in measured.start_error:
            hint = " (the sandbox runs it as user nobody; --sandbox off runs it as you)"
        return Outcome(job.key, "re", error=f"cannot start {spec.argv[0] if spec.argv else ''!r}"
                       f": {measured.start_error}{hint}")
    code = os.waitstatus_to_exitcode(measured.status)
    cpu_ms, rss_kb = measured.cpu_ms, measured.rss_kb
    stderr = (private / "stderr").read_bytes()[-STDERR_KEEP:].decode("utf-8", "replace")
    out_size = (private / "stdout").stat().st_size
    common = dict(wall_ms=measured.wall_ms, cpu_ms=cpu_ms, peak_rss_kb=rss_kb, exit_code=code)
    if measured.killed == "cpu" or code == -signal.SIGXCPU or cpu_ms > spec.timeout_s * 1000:
        return Outcome(job.key, "tle", error=cpu_over_message(spec.timeout_s, cpu_ms), **common)
    if measured.killed == "wall":
        return Outcome(job.key, "tle", error=wall_cap_message(spec.timeout_s, cpu_ms), **common)
    if measured.killed == "term":
        return Outcome(job.key, "re", error="stopped: the worker was told to stop", **common)
    if code == -signal.SIGXFSZ or out_size >= spec.output_limit_bytes:
        return Outcome(job.key, "ole", error=f"output exceeded {spec.output_limit_bytes} bytes",
                       **common)
    if code != 0:
        memory = spec.memory_mb * MB if spec.memory_mb else None
        own_peak = rss_kb > measured.floor_kb  # else it may be the worker's image at the fork
        near_limit = memory is not None and own_peak and rss_kb * 1024 >= 0.9 * memory
        if memory is not None and (near_limit or any(s in stderr for s in _ALLOCATION_FAILURE)):
            return Outcome(job.key, "mle", error=f"memory limit {spec.memory_mb} MB: "
                           f"{stderr.strip()[-200:]}", **common)
        reason = _signal_reason(-code, spec) if code < 0 else f"exit code {code}"
        return Outcome(job.key, "re", error=f"{reason}: {stderr.strip()[-500:]}", **common)
    answer = (private / "stdout").read_bytes().decode("utf-8", "replace")
    return Outcome(job.key, "ok", answer=answer, **common)
