"""Interactive judging: the submission and the validator (or interactor) talking through pipes.

The validator's stdout is the submission's stdin and the submission's stdout the validator's
stdin. Both run in their own sessions under their own limits (the submission's memory, CPU and
output limits; the validator's validation limits), and the whole exchange under one wall-clock
limit: a submission that stops talking leaves both sides waiting, so the clock runs out and it is
TLE. The parent keeps each pipe's write end open until the program writing to it has been reaped
(so "who ended first" is decided by the exits, not by an interpreter closing its stdout while it
shuts down), and a read end of the validator-to-submission pipe open until the validator ends, so a submission that exits early does not kill the validator with SIGPIPE (problemtools'
`interactive` does the same); a submission killed by SIGPIPE because the validator had left
counts as a clean exit, and the validator decides.

The verdict follows problemtools' `validate_interactive`: a validator that crashed or exited
with neither 42 nor 43 is JE; a validator that exited first with 43 is WA even if the submission
then ran out of time; else a submission over its time is TLE, one that crashed is RE, and
otherwise the validator's 42/43 decides. Polygon's convention is the same exchange with a
testlib interactor (`interactor input output [answer]`, exit 0 OK, 1 WA, 2 PE, 3 FAIL), whose
output file then goes to the checker.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from pipeline.packages.procs import ProcessResult, environment, kill_group, limiter


@dataclass(frozen=True)
class Exchange:
    """How both sides of one interactive run ended."""

    submission: ProcessResult
    validator: ProcessResult
    validator_first: bool
    timed_out: bool


def _tail(path: Path) -> str:
    data = path.read_bytes() if path.exists() else b""
    return data[-4000:].decode("utf-8", "replace")


def _result(status: int | None, usage, wall: float, timed_out: bool, err: Path,
            error: str | None = None) -> ProcessResult:
    if status is None:
        return ProcessResult(None, None, timed_out, 0.0, wall, 0, "", _tail(err), error=error)
    code = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    hit_cpu = code == -signal.SIGXCPU
    return ProcessResult(exit_code=code if code >= 0 else None, signal=-code if code < 0 else None,
                         timed_out=timed_out or hit_cpu, cpu_s=cpu, wall_s=wall,
                         peak_rss_kb=int(usage.ru_maxrss), stdout="", stderr=_tail(err))


def run_exchange(submission_argv: list[str], validator_argv: list[str], *, workdir: Path,
                 wall_s: float, submission_cpu_s: float, submission_memory_mb: int | None,
                 output_mb: int, validator_cpu_s: float,
                 validator_memory_mb: int | None) -> Exchange:
    """Run both programs connected by pipes until both end or `wall_s` passes."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "submission").mkdir(exist_ok=True)
    (workdir / "validator").mkdir(exist_ok=True)
    to_sub_r, to_sub_w = os.pipe()      # validator -> submission
    to_val_r, to_val_w = os.pipe()      # submission -> validator
    keep_open = os.dup(to_sub_r)        # no SIGPIPE for the validator if the submission leaves
    sub_err, val_err = workdir / "submission.err", workdir / "validator.err"
    started = time.perf_counter()
    processes: dict[str, subprocess.Popen | None] = {"validator": None, "submission": None}
    errors: dict[str, str] = {}
    try:
        with open(val_err, "wb") as verr, open(sub_err, "wb") as serr:
            try:
                processes["validator"] = subprocess.Popen(
                    validator_argv, stdin=to_val_r, stdout=to_sub_w, stderr=verr,
                    cwd=workdir / "validator", env=environment(), start_new_session=True,
                    close_fds=True, preexec_fn=limiter(validator_memory_mb, validator_cpu_s, 64))
            except OSError as error:
                errors["validator"] = f"cannot start {validator_argv[0]}: {error}"
            try:
                processes["submission"] = subprocess.Popen(
                    submission_argv, stdin=to_sub_r, stdout=to_val_w, stderr=serr,
                    cwd=workdir / "submission", env=environment(), start_new_session=True,
                    close_fds=True,
                    preexec_fn=limiter(submission_memory_mb, submission_cpu_s, output_mb))
            except OSError as error:
                errors["submission"] = f"cannot start {submission_argv[0]}: {error}"
    finally:
        # The write ends stay open here until their owner is reaped (problemtools' order), so
        # the other side sees end-of-file only once the writer has truly ended and "who ended
        # first" is not a race against an interpreter closing its stdout while shutting down.
        for fd in (to_sub_r, to_val_r):
            os.close(fd)
    holders = {"validator": to_sub_w, "submission": to_val_w}
    statuses: dict[str, tuple[int, object, float]] = {}
    order: list[str] = []
    pidfds = {name: os.pidfd_open(p.pid) for name, p in processes.items() if p is not None}
    deadline = started + wall_s
    timed_out = False
    try:
        while len(statuses) < len(pidfds):
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                timed_out = True
                break
            waiting = {fd: name for name, fd in pidfds.items() if name not in statuses}
            ready, _, _ = select.select(list(waiting), [], [], remaining)
            for fd in ready:
                name = waiting[fd]
                _, status, usage = os.wait4(processes[name].pid, 0)
                statuses[name] = (status, usage, time.perf_counter() - started)
                order.append(name)
                kill_group(processes[name].pid)
                os.close(holders.pop(name))
                if name == "validator":
                    os.close(keep_open)
                    keep_open = -1
        for name, process in processes.items():
            if process is not None and name not in statuses:
                kill_group(process.pid)
                _, status, usage = os.wait4(process.pid, 0)
                statuses[name] = (status, usage, time.perf_counter() - started)
    finally:
        for fd in (*pidfds.values(), *holders.values()):
            os.close(fd)
        if keep_open >= 0:
            os.close(keep_open)
    results = {}
    for name, err in (("submission", sub_err), ("validator", val_err)):
        if name in errors:
            results[name] = _result(None, None, 0.0, False, err, errors[name])
        else:
            status, usage, wall = statuses[name]
            still_running = timed_out and name not in order
            results[name] = _result(status, usage, wall, still_running, err)
    sub = results["submission"]
    if sub.signal == signal.SIGPIPE:  # it wrote to a validator that had already left
        sub = ProcessResult(0, None, sub.timed_out, sub.cpu_s, sub.wall_s, sub.peak_rss_kb,
                            sub.stdout, sub.stderr)
    return Exchange(submission=sub, validator=results["validator"],
                    validator_first=bool(order) and order[0] == "validator",
                    timed_out=timed_out)
