"""Interactive judging: the submission and the validator (or interactor) talking through pipes,
each side under its own contained launcher and limits; who ended first, a pair stuck or out of
time and how each is judged: docs/faults.md (Interactive problems). The verdict follows
problemtools' `validate_interactive`: a validator exit other than 42/43 is JE; a validator that
exited first with 43 is WA; else a submission over its time is TLE, one that crashed RE, and
otherwise the validator's 42/43 decides. Polygon's testlib interactor (`interactor input output
[answer]`, exit 0 OK, 1 WA, 2 PE, 3 FAIL) is run the same way, its output then checked.
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass, replace
from pathlib import Path

from pipeline.programs import contained
from pipeline.programs.external import submission_hidden
from pipeline.programs.procs import ProcessResult, environment, result_of
from pipeline.untrusted import make_folder, open_created, read_ends

MIB = 1024 * 1024
GRACE_S = 0.25  # the submission's time to end once the validator has exited
STUCK_POLL_S = 0.1  # how often a running pair is looked at for both sides waiting to read


@dataclass(frozen=True)
class Exchange:
    """How both sides of one interactive run ended."""

    submission: ProcessResult
    validator: ProcessResult
    validator_first: bool
    timed_out: bool
    deadlock: bool = False  # stopped as soon as both sides were waiting for each other
    busy: bool = False  # stopped at `contained.busy_s` (`_first_to_end`, a launcher): not judged


def run_exchange(submission_argv: list[str], validator_argv: list[str], *, workdir: Path,
                 submission_cpu_s: float, submission_memory_mb: int | None,
                 output_mb: int, validator_cpu_s: float,
                 validator_memory_mb: int | None, kept: tuple[Path, ...] = ()) -> Exchange:
    """Run both programs connected by pipes until both end or the submission's wall-clock cap
    passes on its own clock; the validator may write in `workdir`'s parent and `kept`."""
    sandboxed = contained.default_sandbox()
    # the pair is stopped on the submission's own clock (`_first_to_end`); each launcher's cap
    # is far past it, and the validator's CPU time besides, which its computing may add
    wall_s = contained.wall_cap_s(submission_cpu_s)
    backstop_s = contained.busy_s(submission_cpu_s) + validator_cpu_s
    workdir.parent.mkdir(parents=True, exist_ok=True)
    for folder in (workdir, workdir / "submission", workdir / "validator"):
        make_folder(folder)
    sub_err, val_err = workdir / "submission.err", workdir / "validator.err"
    with open_created(val_err) as verr, open_created(sub_err) as serr:
        to_sub_r, to_sub_w = os.pipe2(os.O_CLOEXEC)  # validator -> submission
        to_val_r, to_val_w = os.pipe2(os.O_CLOEXEC)  # submission -> validator
        keep_open = os.dup(to_sub_r)  # no SIGPIPE for the validator if the submission leaves
        try:
            validator = contained.start(
                validator_argv, stdin=to_val_r, stdout=to_sub_w, stderr=verr,
                workdir=workdir / "validator", sandbox=sandboxed, env=environment(),
                limits=contained.Limits(memory_mb=validator_memory_mb, file_bytes=64 * MIB,
                                        cpu_s=validator_cpu_s, wall_s=backstop_s),
                kept=tuple(str(path) for path in kept), release_stdio=True)
            submission = contained.start(
                submission_argv, stdin=to_sub_r, stdout=to_val_w, stderr=serr,
                workdir=workdir / "submission", sandbox=sandboxed, env=environment(),
                hidden=submission_hidden(),
                limits=contained.Limits(memory_mb=submission_memory_mb,
                                        file_bytes=output_mb * MIB, cpu_s=submission_cpu_s,
                                        wall_s=backstop_s, written_bytes=output_mb * MIB))
        finally:
            for fd in (to_sub_r, to_sub_w, to_val_r, to_val_w):  # the launchers hold their own
                os.close(fd)
    try:
        if validator.early is not None:
            first = "validator"
        elif submission.early is not None:
            first = "submission"
        else:
            first = _first_to_end(validator, submission, wall_s, submission_cpu_s)
        if first in ("time", "deadlock", "busy"):  # not ended in time, or never will: stop
            measured_sub = contained.finish(submission, stop_after_s=0)
            measured_val = contained.finish(validator, stop_after_s=0)
            # stopped for time, as its launcher's wall-clock cap stops a program, or busy
            stopped = "busy" if first == "busy" else "wall"
            measured_sub, measured_val = (replace(m, killed=stopped) if m.killed == "term"
                                          else m for m in (measured_sub, measured_val))
        elif first == "validator":
            measured_val = contained.finish(validator)
            os.close(keep_open)
            keep_open = -1
            # a validator stopped by the wall clock did not end first: the exchange ran out of
            # time, and the submission's own cap stops it at the same moment
            grace = None if measured_val.killed == "wall" else GRACE_S
            measured_sub = contained.finish(submission, stop_after_s=grace)
        else:
            measured_sub = contained.finish(submission)
            measured_val = contained.finish(validator)
    finally:
        if keep_open >= 0:
            os.close(keep_open)
    deadlock = first == "deadlock"
    busy = first == "busy" or first not in ("time", "deadlock") and "wall" in (
        measured_sub.killed, measured_val.killed)
    if first not in ("time", "deadlock", "busy"):
        first = _ended_first(first, measured_val, measured_sub)
    val = result_of(measured_val, validator_argv, "", read_ends(val_err, 2000))
    sub = result_of(measured_sub, submission_argv, "", read_ends(sub_err, 2000))
    validator_first = first == "validator" and measured_val.killed != "wall"
    stopped_after_validator = validator_first and measured_sub.killed == "term"
    if sub.signal == signal.SIGPIPE or stopped_after_validator:
        sub = replace(sub, exit_code=0, signal=None)  # the validator had left: it decides
    if measured_val.killed == "wall":  # time ran out with both waiting: whatever the
        sub = replace(sub, timed_out=True)  # submission did after the validator's end
    return Exchange(submission=sub, validator=val, validator_first=validator_first,
                    timed_out=val.timed_out or sub.timed_out, deadlock=deadlock, busy=busy)


def _first_to_end(validator: contained.Started, submission: contained.Started,
                  wall_s: float, cpu_s: float) -> str:
    """The side to wait for first, "time" once the submission's `wall_s` is up on its own clock,
    or "deadlock" as soon as both wait for each other; "busy" (not judged) once the pair's wall
    clock less the validator's time passes `contained.busy_s` of `cpu_s`, as a batch program's
    launcher stops it (the launchers' own caps add the validator's CPU-time limit)."""
    since = time.monotonic()

    def validator_s() -> float:
        cpu, waited = contained.tree_times(validator.pid)
        return cpu + waited

    def credit() -> float:
        return validator_s() + contained.waits_credited(submission.pid, since)

    seen: list = [None, False, False]  # the last look, two in a row stuck, busy

    def busy() -> bool:
        past = time.monotonic() - since - contained.busy_s(cpu_s)
        seen[2] = past >= 0 and past >= validator_s()
        return seen[2]

    def stuck() -> bool:
        if busy():
            return True
        now = _waiting_on_each_other((validator.pid, submission.pid))
        before, seen[0] = seen[0], now
        seen[1] = now is not None and now == before
        return seen[1]

    first = contained.first_ended([validator, submission], wall_s, credit, stuck, STUCK_POLL_S,
                                  lambda: contained.computing(submission.pid, cpu_s)
                                  and not busy())
    if first is None:
        return "busy" if seen[2] else "deadlock" if seen[1] else "time"
    return "validator" if first is validator else "submission"


# A thread blocked reading an empty pipe (the kernel's wait channel: anon_pipe_read since Linux
# 6.x, pipe_read and pipe_wait before), or a process waiting for a child of its own (a shell
# running the program).
_BLOCKED_ON_PIPE = (b"pipe_read", b"pipe_wait")
_WAITING_FOR_CHILD = (b"do_wait",)


def _waiting_on_each_other(launchers: tuple[int | None, int | None]) -> tuple | None:
    """When every thread of both programs is blocked reading a pipe, waits for a child or is
    a zombie: who they are and how often each has run (two equal answers in a row: none ran
    in between). None when any does anything else, or a side has no program left. The only
    writers of either side's input are the other side's processes, so such a pair never goes
    on (TLE at any limit); a program with an alarm of its own is taken as stuck all the same."""
    started = [pid for pid in launchers if pid is not None]
    if len(started) < len(launchers):
        return None
    stats = contained.proc_stats()
    found = []
    for launcher in started:
        programs = [pid for pid in contained.descendants(launcher, stats) if pid != launcher]
        if not programs:
            return None
        for pid in programs:
            if stats[pid][0] == b"Z":
                found.append((pid, 0, 0))
                continue
            try:
                threads = os.listdir(f"/proc/{pid}/task")
            except OSError:
                return None
            for thread in threads:
                task = Path(f"/proc/{pid}/task/{thread}")
                try:
                    channel = (task / "wchan").read_bytes()
                    state = (task / "stat").read_bytes().rsplit(b")", 1)[1].split()[0]
                    ran = int((task / "schedstat").read_bytes().split()[2])
                except (OSError, IndexError, ValueError):
                    return None
                if state != b"S" or not any(c in channel for c in
                                            _BLOCKED_ON_PIPE + _WAITING_FOR_CHILD):
                    return None
                found.append((pid, int(thread), ran))
    return tuple(sorted(found))


def _ended_first(reported_first: str, validator: contained.Measured,
                 submission: contained.Measured) -> str:
    """Which program ended first: whether the validator had stopped reading the submission's
    output when the submission was reaped (`unread`), not which launcher reported first (on a
    loaded machine either can be late); without that, when each was reaped."""
    if submission.killed == "term":
        return reported_first
    if submission.unread is not None:
        return "validator" if submission.unread else "submission"
    if validator.ended_ns is None or submission.ended_ns is None:
        return reported_first
    return "submission" if submission.ended_ns < validator.ended_ns else "validator"
