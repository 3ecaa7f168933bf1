"""Running one external program on one case: contained, under limits, honestly measured.

The program gets its input on stdin, a fresh empty folder, a clean environment and the limits
of docs/commands.md ("Limits and containment"); starved of a core past `contained.busy_s` it is
`JE`, never a `TLE` it may not deserve. How it runs is `contained`'s; this module adds the
case's files (a scratch folder per worker, on /dev/shm where there is one) and the verdict.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
import time
from dataclasses import replace
from functools import partial
from pathlib import Path

from pipeline.programs import contained
from pipeline.programs.contained import ChildTracker, Limits, Measured  # noqa: F401 (the worker's)
from pipeline.programs.jobs import Job, Outcome, SolverSpec
from pipeline.programs.processes import become_subreaper, ownerless
from pipeline.untrusted import ends_of, excerpt, read_at
from pipeline.verdicts import Verdict

STDERR_KEEP = 2000  # bytes read of each end of a program's stderr (`read_ends`)
_ALLOCATION_FAILURE = ("bad_alloc", "MemoryError", "Cannot allocate memory", "out of memory")
MB = 1024 * 1024


def cpu_over_message(timeout_s: float, cpu_ms: float | None) -> str:
    """The error of a `TLE` for CPU time over the limit."""
    return f"CPU time over the {timeout_s:g} s limit ({(cpu_ms or 0) / 1000:.2f} s used)"


def wall_cap_message(timeout_s: float, cpu_ms: float | None) -> str:
    """The error of a `TLE` for the wall-clock cap (a program or stage that sleeps or waits)."""
    return (f"wall clock {contained.wall_cap_s(timeout_s):g} s cap reached (limit + "
            f"{contained.WALL_PAST_S:g} s, its waits for a core not counted; "
            f"{(cpu_ms or 0) / 1000:.2f} s of CPU used)")


def busy_message(timeout_s: float, cpu_ms: float | None) -> str:
    """The error of a run stopped as not judged: the machine too busy to give it its time."""
    return (f"not judged: machine too busy (its {contained.wall_cap_s(timeout_s):g} s on its "
            f"own clock not reached in {contained.busy_s(timeout_s):g} s of wall clock, "
            f"{(cpu_ms or 0) / 1000:.2f} s of CPU used; --resume runs it again)")


def stack_limit_mb(spec: SolverSpec) -> int | None:
    """The program's stack limit in MB (None: unlimited)."""
    return (spec.memory_mb if spec.stack_mb is None else spec.stack_mb) or None


_scratch: Path | None = None
_cases_run = 0


def scratch_root() -> Path:
    """This worker's scratch folder (created on first use; on tmpfs where possible)."""
    global _scratch
    if _scratch is None:
        shm = Path("/dev/shm")
        base = shm if shm.is_dir() and os.access(shm, os.W_OK) else Path(tempfile.gettempdir())
        for stale in ownerless(base.glob("gamebench-run-*-*"), lambda f: f.name.split("-")[2]):
            shutil.rmtree(stale, ignore_errors=True)
        _scratch = Path(tempfile.mkdtemp(prefix=scratch_prefix(os.getpid()), dir=base))
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
    contained.close_templates()
    if _scratch is not None:
        shutil.rmtree(_scratch, ignore_errors=True)
        _scratch = None


def prepare_worker() -> None:
    """Make this worker the reaper of its programs' orphans (see `processes.end_sessions`)."""
    with contextlib.suppress(OSError):
        become_subreaper()


_hidden_from_submissions: list[str] = []
_hidden_as_named: set[str] = set()  # the paths given to `hide_from_submissions`, as given


def _forget_in_a_child() -> None:
    """A forked child has its own scratch folder, count of cases and hidden paths."""
    global _scratch, _cases_run
    _scratch, _cases_run = None, 0
    _hidden_from_submissions.clear()
    _hidden_as_named.clear()


os.register_at_fork(after_in_child=_forget_in_a_child)


def hide_from_submissions(path: str | Path) -> None:
    """Hide `path` (a package's folder) from the programs judged in this process too."""
    named = os.fspath(path)
    if named in _hidden_as_named:  # hidden already (where it leads now was hidden then)
        return
    real = os.path.realpath(path)
    if real not in _hidden_from_submissions:
        _hidden_from_submissions.append(real)
    _hidden_as_named.add(named)


def submission_hidden() -> tuple[str, ...]:
    return tuple(_hidden_from_submissions)


def run_external(job: Job) -> Outcome:
    global _cases_run
    _cases_run += 1
    private = os.path.join(scratch_root(), f"case-{_cases_run}")  # new per case, never reused
    os.makedirs(os.path.join(private, "work"))
    theirs: list[int] = []  # the program's stdin, stdout and stderr
    ours: list[int] = []  # what it writes is read through these, opened before it ran
    measured: Measured | None = None
    started: contained.Started | None = None
    spec = job.solver
    try:
        with open(os.path.join(private, "input"), "xb") as handle:
            handle.write(job.input.encode("utf-8"))
        for name, flags in (("input", os.O_RDONLY), ("stdout", os.O_WRONLY | os.O_CREAT),
                            ("stderr", os.O_WRONLY | os.O_CREAT)):
            theirs.append(os.open(os.path.join(private, name), flags | os.O_CLOEXEC, 0o666))
        ours.extend(os.open(os.path.join(private, name), os.O_RDONLY | os.O_CLOEXEC)
                    for name in ("stdout", "stderr"))
        started = contained.start(
            spec.argv, stdin=theirs[0], stdout=theirs[1], stderr=theirs[2],
            workdir=Path(private, "work"), limits=limits_of(spec), sandbox=spec.sandbox,
            shown=spec.visible, hidden=submission_hidden() + spec.hidden)
        _close(theirs)  # the launcher holds its copies
        measured = _finish(started, spec)
        return _classify(job, ours[0], ours[1], measured)
    finally:
        if measured is None and started is not None:  # it failed midway: end the program
            contained.stop(started)
        _close(theirs + ours)
        _remove_case(private)


def _close(descriptors: list[int]) -> None:
    while descriptors:
        os.close(descriptors.pop())


def _remove_case(private: str) -> None:
    """Remove a case's folder: its three files and its working folder."""
    try:
        for name in ("input", "stdout", "stderr"):
            os.unlink(os.path.join(private, name))
        os.rmdir(os.path.join(private, "work"))
        os.rmdir(private)
    except OSError:
        shutil.rmtree(private, ignore_errors=True)


def _finish(started: contained.Started, spec: SolverSpec) -> Measured:
    """Wait for the program; stop it past its wall-clock cap on its own clock while not
    computing (`killed` wall); stopped by the launcher at `contained.busy_s`: `killed` busy."""
    if started.early is not None:
        return contained.finish(started)
    since = time.monotonic()
    ended = contained.first_ended([started], contained.wall_cap_s(spec.timeout_s),
                                  lambda: contained.waits_credited(started.pid, since),
                                  computing=lambda: contained.computing(started.pid,
                                                                        spec.timeout_s))
    if ended is not None:
        measured = contained.finish(started)
        return replace(measured, killed="busy") if measured.killed == "wall" else measured
    measured = contained.finish(started, stop_after_s=0)
    return replace(measured, killed="wall") if measured.killed == "term" else measured


def limits_of(spec: SolverSpec) -> Limits:
    """An external program's limits (`_finish` stops it before `busy_s`, on its own clock)."""
    return Limits(memory_mb=spec.memory_mb or None, stack_mb=stack_limit_mb(spec),
                  file_bytes=spec.output_limit_bytes, cpu_s=spec.timeout_s,
                  wall_s=contained.busy_s(spec.timeout_s),
                  written_bytes=spec.output_limit_bytes, truncate_output=spec.truncate_output)


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


def _classify(job: Job, out_fd: int, err_fd: int, measured: Measured) -> Outcome:
    """The outcome of a run that ended as `measured`, from its stdout and stderr files."""
    spec = job.solver
    if measured.setup_error is not None:
        return Outcome(job.key, Verdict.RE, error=f"the launcher could not run the case: "
                       f"{measured.setup_error}")
    if measured.start_error is not None:
        hint = " (the sandbox shows it read-only; --sandbox off runs it as it is)" \
            if spec.sandbox and "Permission denied" in measured.start_error else ""
        return Outcome(job.key, Verdict.RE, error="cannot start "
                       f"{spec.argv[0] if spec.argv else ''!r}: {measured.start_error}{hint}")
    # it ran and was reaped (else a setup error): its status and figures are known
    assert measured.status is not None and measured.cpu_ms is not None
    assert measured.rss_kb is not None
    code = os.waitstatus_to_exitcode(measured.status)
    cpu_ms, rss_kb = measured.cpu_ms, measured.rss_kb
    stderr = ends_of(err_fd, STDERR_KEEP)
    out_size = os.fstat(out_fd).st_size
    ended = partial(Outcome, job.key, wall_ms=measured.wall_ms, cpu_ms=cpu_ms,
                    peak_rss_kb=rss_kb, exit_code=code)
    if measured.killed == "cpu" or code == -signal.SIGXCPU or cpu_ms > spec.timeout_s * 1000:
        return ended(Verdict.TLE, error=cpu_over_message(spec.timeout_s, cpu_ms))
    stopped = {"busy": (Verdict.JE, busy_message), "wall": (Verdict.TLE, wall_cap_message),
               "term": (Verdict.RE, lambda *_: "stopped: the worker was told to stop")}
    if measured.killed in stopped:
        verdict, message = stopped[measured.killed]
        return ended(verdict, error=message(spec.timeout_s, cpu_ms))
    if measured.written_full:
        return ended(Verdict.OLE, error=f"wrote more than {spec.output_limit_bytes} bytes into "
                     "its folder and /tmp")
    if code == -signal.SIGXFSZ or out_size >= spec.output_limit_bytes:
        return ended(Verdict.OLE, error=f"output exceeded {spec.output_limit_bytes} bytes")
    if code != 0:
        memory = spec.memory_mb * MB if spec.memory_mb else None
        own_peak = rss_kb > measured.floor_kb  # else it may be the worker's image at the fork
        near_limit = memory is not None and own_peak and rss_kb * 1024 >= 0.9 * memory
        if memory is not None and (near_limit or any(s in stderr for s in _ALLOCATION_FAILURE)):
            return ended(Verdict.MLE, error=f"memory limit {spec.memory_mb} MB: "
                         f"{excerpt(stderr, 200)}")
        reason = _signal_reason(-code, spec) if code < 0 else f"exit code {code}"
        return ended(Verdict.RE, error=f"{reason}: {excerpt(stderr)}")
    return ended(answer=read_at(out_fd, out_size).decode("utf-8", "replace"))
