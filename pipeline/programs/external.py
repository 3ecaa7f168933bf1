"""Running one external program on one case: contained, under limits, honestly measured.

The program gets the input on stdin, a fresh empty folder as its working directory, a clean
environment (PATH and LC_ALL=C), its own process group in a session without a terminal, and
these limits:

- memory: address space (RLIMIT_AS) = `memory_mb` (the run gives the problem's limit, 512 MB
  where none is known; None here is no limit);
- stack: RLIMIT_STACK = `stack_mb`, by default as large as the memory limit, as judges set it
  (deep recursion that a judge accepts runs here too); a language may ask for none
  (`languages.launch`: node);
- time: the CPU time the program used is what is compared with the limit (`timeout_s`), and
  a wall-clock cap of 2 x limit + 1 s stops a program that sleeps or waits; the outcome's
  `error` says which one fired. The cap counts the program's own time, the wall clock less
  what its processes spent waiting for a core (as the interactive pairs count it), so a
  loaded machine slows it down without stopping it. A package's submission has a cap of its
  own instead (`own_wall_s`), so one that sleeps is stopped at its limit, not at twice it;
- output: RLIMIT_FSIZE caps stdout, stderr and any file it writes, and (sandboxed) what it
  writes into its folder and /tmp in total is capped at the same size (over either: `OLE`);
- processes: the pids cgroup of the worker (see `contained`).

How it is run (the launcher, its PID namespace, the sandbox, the fallback without a compiler)
is `contained`'s, the one runner of every program; this module adds the case's files and the
verdict. Each case's files (input, output, the program's working directory) live in one
scratch folder per worker, on tmpfs (`/dev/shm`) when there is one, with a new folder per
case, removed when the case is over. Folders of workers that died without removing theirs are
removed by the next worker to start.

Why a PID namespace rather than a cgroup for the kill: the kernel itself kills every process
of the namespace when its init exits, with no race against a program that keeps forking, and
entering one costs about a tenth of a millisecond; the pids cgroup only caps their number.
What a memory cgroup would add, a memory limit and CPU time summed over all of a program's
processes, is not had: the address-space limit is per process (a program that forks may use
it once per process), and CPU time is the program's own plus that of the children it waited
for.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from pipeline.programs import contained
from pipeline.programs.contained import ChildTracker, Limits, Measured  # noqa: F401 (the worker's)
from pipeline.programs.jobs import Job, Outcome, SolverSpec
from pipeline.programs.processes import become_subreaper
from pipeline.untrusted import excerpt, read_ends
from pipeline.verdicts import Verdict

STDERR_KEEP = 2000  # bytes read of each end of a program's stderr (`read_ends`)
_ALLOCATION_FAILURE = ("bad_alloc", "MemoryError", "Cannot allocate memory", "out of memory")
MB = 1024 * 1024


def wall_cap_s(timeout_s: float) -> float:
    """The wall-clock cap of a program or built-in stage whose CPU-time limit is `timeout_s`."""
    return 2 * timeout_s + 1


def own_wall_cap_s(spec: SolverSpec) -> float:
    """The wall-clock cap of an external program, counted on its own clock (the wall clock
    less its waits for a core, so a machine busy with other work slows it down without
    stopping it): its `own_wall_s`, else `wall_cap_s` of its limit."""
    return spec.own_wall_s if spec.own_wall_s is not None else wall_cap_s(spec.timeout_s)


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
    contained.close_templates()
    if _scratch is not None:
        shutil.rmtree(_scratch, ignore_errors=True)
        _scratch = None


def prepare_worker() -> None:
    """Make this worker the reaper of its programs' orphans (see `processes.end_sessions`)."""
    try:
        become_subreaper()
    except OSError:
        pass


_hidden_from_submissions: list[str] = []


def _forget_in_a_child() -> None:
    """In a process forked from this one: the scratch folder, the count of cases run and
    what is hidden from submissions are that process's; the child has its own."""
    global _scratch, _cases_run
    _scratch, _cases_run = None, 0
    _hidden_from_submissions.clear()


os.register_at_fork(after_in_child=_forget_in_a_child)


def hide_from_submissions(path: str | Path) -> None:
    """Hide `path` (a package's folder: its answers and validators) from the programs judged
    in this process, besides what `contained.hidden_paths` hides from every program."""
    real = os.path.realpath(path)
    if real not in _hidden_from_submissions:
        _hidden_from_submissions.append(real)


def submission_hidden() -> tuple[str, ...]:
    return tuple(_hidden_from_submissions)


def run_external(job: Job) -> Outcome:
    global _cases_run
    _cases_run += 1
    private = scratch_root() / f"case-{_cases_run}"  # a new folder per case, never reused
    workdir = private / "work"
    workdir.mkdir(parents=True)
    measured: Measured | None = None
    started: contained.Started | None = None
    spec = lowered(job.solver)
    try:
        (private / "input").write_text(job.input, encoding="utf-8")
        with open(private / "input", "rb") as stdin, open(private / "stdout", "wb") as stdout, \
                open(private / "stderr", "wb") as stderr:
            started = contained.start(
                spec.argv, stdin=stdin, stdout=stdout, stderr=stderr, workdir=workdir,
                limits=limits_of(spec), sandbox=spec.sandbox, shown=spec.visible,
                hidden=submission_hidden() + spec.hidden)
        measured, spec = _finish(started, spec)
        return _classify(replace(job, solver=spec), private, measured)
    finally:
        if measured is None and started is not None:  # it failed midway: end the program
            contained.stop(started)
        shutil.rmtree(private, ignore_errors=True)


def _finish(started: contained.Started, spec: SolverSpec) -> tuple[Measured, SolverSpec]:
    """Wait for the program; stop it once it has run its wall-clock cap (`own_wall_cap_s`)
    on its own clock (the wall clock less its processes' waits for a core:
    `contained.first_ended`). With `caps_later` and `own_wall_s`, its caps are lowered once
    that file is written (`lowered`). Returns what was measured and the spec with the caps it
    ended under."""
    if started.early is not None:
        return contained.finish(started), spec
    now = spec

    def own_wall_s() -> float:
        nonlocal now
        if now.caps_later and (given := lowered(now)) is not now:
            now = given
            contained.lower_cpu_limit(started, now.timeout_s)
        assert now.own_wall_s is not None  # lowering keeps the own wall clock
        return now.own_wall_s

    ended = contained.first_ended([started], own_wall_s if spec.caps_later and
                                  spec.own_wall_s is not None else own_wall_cap_s(spec),
                                  lambda: contained.tree_times(started.pid)[1])
    if ended is not None:
        return contained.finish(started), now
    measured = contained.finish(started, stop_after_s=0)
    return (replace(measured, killed="wall") if measured.killed == "term" else measured), now


def give_caps_later(path: str | Path, cpu_s: float, own_wall_s: float) -> None:
    """Give the runs whose spec says `caps_later=path` their CPU-time limit and their cap on
    their own wall clock (`lowered`): the file appears whole or not at all."""
    path = Path(path)
    part = path.with_name(path.name + ".part")
    part.write_text(json.dumps({"cpu_s": cpu_s, "own_wall_s": own_wall_s}), encoding="utf-8")
    os.replace(part, path)


def caps_given(path: str) -> tuple[float, float] | None:
    """The CPU-time limit and own-wall-clock cap written to `path` (`give_caps_later`), or
    None while there are none."""
    try:
        caps = json.loads(Path(path).read_text(encoding="utf-8"))
        return float(caps["cpu_s"]), float(caps["own_wall_s"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def lowered(spec: SolverSpec) -> SolverSpec:
    """`spec` with the caps its `caps_later` file gives once it is there (never above its
    own: a run started before its time limit was known is given it so), else `spec` itself."""
    caps = caps_given(spec.caps_later) if spec.caps_later else None
    if caps is None:
        return spec
    cpu_s, own_wall_s = caps
    return replace(spec, timeout_s=min(spec.timeout_s, cpu_s), caps_later="",
                   own_wall_s=min(spec.own_wall_s, own_wall_s)
                   if spec.own_wall_s is not None else None)


def limits_of(spec: SolverSpec) -> Limits:
    """An external program's limits: its memory, stack and output limits, its CPU time and
    the wall-clock cap, and its output limit again for all it writes into its folder."""
    stack = stack_limit_mb(spec)
    wall = contained.backstop_s(own_wall_cap_s(spec))  # (stopped on its own clock: `_finish`)
    return Limits(memory_mb=spec.memory_mb or None, stack_mb=stack,
                  file_bytes=spec.output_limit_bytes, cpu_s=spec.timeout_s,
                  wall_s=wall, written_bytes=spec.output_limit_bytes,
                  truncate_output=spec.truncate_output)


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
        return Outcome(job.key, Verdict.RE, error=f"the launcher could not run the case: "
                       f"{measured.setup_error}")
    if measured.start_error is not None:
        hint = ""
        if spec.sandbox and "Permission denied" in measured.start_error:
            hint = " (the sandbox shows it read-only; --sandbox off runs it as it is)"
        return Outcome(job.key, Verdict.RE, error="cannot start "
                       f"{spec.argv[0] if spec.argv else ''!r}: {measured.start_error}{hint}")
    # it ran and was reaped (else a setup error): its status and figures are known
    assert measured.status is not None and measured.cpu_ms is not None
    assert measured.rss_kb is not None
    code = os.waitstatus_to_exitcode(measured.status)
    cpu_ms, rss_kb = measured.cpu_ms, measured.rss_kb
    stderr = read_ends(private / "stderr", STDERR_KEEP)
    out_size = (private / "stdout").stat().st_size
    common: dict[str, Any] = dict(wall_ms=measured.wall_ms, cpu_ms=cpu_ms, peak_rss_kb=rss_kb,
                                  exit_code=code)
    if measured.killed == "cpu" or code == -signal.SIGXCPU or cpu_ms > spec.timeout_s * 1000:
        return Outcome(job.key, Verdict.TLE, error=cpu_over_message(spec.timeout_s, cpu_ms),
                       **common)
    if measured.killed == "wall" and spec.own_wall_s is not None:
        return Outcome(job.key, Verdict.TLE, error=f"wall clock {spec.own_wall_s:g} s reached "
                       f"(its waits for a core not counted; {(cpu_ms or 0) / 1000:.2f} s of CPU "
                       "used)", **common)
    if measured.killed == "wall":
        return Outcome(job.key, Verdict.TLE, error=wall_cap_message(spec.timeout_s, cpu_ms),
                       **common)
    if measured.killed == "term":
        return Outcome(job.key, Verdict.RE, error="stopped: the worker was told to stop", **common)
    if measured.written_full:
        return Outcome(job.key, Verdict.OLE, error=f"wrote more than "
                       f"{spec.output_limit_bytes} bytes into its folder and /tmp", **common)
    if code == -signal.SIGXFSZ or out_size >= spec.output_limit_bytes:
        return Outcome(job.key, Verdict.OLE,
                       error=f"output exceeded {spec.output_limit_bytes} bytes", **common)
    if code != 0:
        memory = spec.memory_mb * MB if spec.memory_mb else None
        own_peak = rss_kb > measured.floor_kb  # else it may be the worker's image at the fork
        near_limit = memory is not None and own_peak and rss_kb * 1024 >= 0.9 * memory
        if memory is not None and (near_limit or any(s in stderr for s in _ALLOCATION_FAILURE)):
            return Outcome(job.key, Verdict.MLE, error=f"memory limit {spec.memory_mb} MB: "
                           f"{excerpt(stderr, 200)}", **common)
        reason = _signal_reason(-code, spec) if code < 0 else f"exit code {code}"
        return Outcome(job.key, Verdict.RE, error=f"{reason}: {excerpt(stderr)}", **common)
    answer = (private / "stdout").read_bytes().decode("utf-8", "replace")
    return Outcome(job.key, answer=answer, **common)
