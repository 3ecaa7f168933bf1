"""External programs: one process per case under limits, with honest measurements.

Every program here is real (a Python script run with this interpreter, or C++ compiled with
g++) and runs the way a run runs it: inside a pool worker, through `run_external`.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from processkit import starved
from runkit import alive, external, processes_with, py, run_one, running_program, stage, wait_until

from pipeline.programs import contained
from pipeline.programs.external import run_external
from pipeline.programs.jobs import Job
from pipeline.programs.launcher import launcher_path
from pipeline.run.executors import LocalPoolExecutor
from pipeline.verdicts import Verdict

# -- the ordinary path ---------------------------------------------------------------------------

def test_the_input_arrives_on_stdin_and_the_answer_is_stdout(pool, cpp):
    for argv in (py("sum"), (cpp["sum"],)):
        outcome = run_one(pool, external(argv), "40 2\n")
        assert (outcome.verdict, outcome.answer, outcome.exit_code) == (None, "42\n", 0)
        assert outcome.error is None
        assert outcome.wall_ms > 0 and outcome.cpu_ms >= 0 and outcome.peak_rss_kb > 0


def test_cpu_time_is_each_programs_own(pool):
    busy = run_one(pool, external(py("busy_then_sum", "0.4")), "1 1\n")
    assert busy.verdict is None and busy.answer == "2\n"
    assert busy.cpu_ms >= 400
    assert busy.wall_ms >= busy.cpu_ms * 0.9
    quick = run_one(pool, external(py("sum")), "1 1\n")  # not the sum of all children so far
    assert quick.cpu_ms < 300


def test_peak_memory_is_the_programs_resident_peak(pool):
    outcome = run_one(pool, external(py("resident", "150")), "1 1\n")
    assert outcome.verdict is None
    assert outcome.peak_rss_kb >= 150 * 1024


def test_a_program_that_cannot_start_is_a_runtime_error(pool, tmp_path):
    outcome = run_one(pool, external((str(tmp_path / "no-such-program"),)))
    assert outcome.verdict == Verdict.RE
    assert "cannot start" in outcome.error


# -- verdict-worthy behaviour --------------------------------------------------------------------

def test_a_sleeping_program_is_stopped_by_the_wall_clock_cap_of_the_limit_plus_half_a_second(
        pool):
    started = time.monotonic()
    outcome = run_one(pool, external(py("sleeper"), timeout_s=0.5))
    assert outcome.verdict == Verdict.TLE
    assert outcome.error.startswith("wall clock 1 s cap reached (limit + 0.5 s, its waits for "
                                    "a core not counted; ")
    assert 1000 <= outcome.wall_ms < 4000
    assert outcome.cpu_ms < 300  # it slept: the CPU time says so
    assert time.monotonic() - started < 6


def test_a_spinning_program_is_stopped_when_its_cpu_time_reaches_the_limit(pool, cpp):
    for argv in (py("spinner"), (cpp["spin"],)):
        outcome = run_one(pool, external(argv, timeout_s=0.3))
        assert outcome.verdict == Verdict.TLE
        assert outcome.error.startswith("CPU time over the 0.3 s limit (")
        assert 300 <= outcome.cpu_ms < 1000
        assert outcome.wall_ms >= outcome.cpu_ms * 0.9


def test_cpu_time_not_wall_time_decides_a_time_limit_on_a_busy_machine(cpp):
    """The worker (so its program) and four spinners share one core: the program's wall time
    passes the 2 s limit, its CPU time (0.6 s) does not, so it is accepted. (Each spinner has
    a session of its own, as the program has: the scheduler shares a core between sessions.)"""
    cpus = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {0})  # the worker started now takes this process's CPUs
    try:
        executor = LocalPoolExecutor(1, preload=(("toy", "fast"),))
    finally:
        os.sched_setaffinity(0, cpus)
    with executor:
        rivals = [subprocess.Popen([cpp["spin"]], start_new_session=True) for _ in range(4)]
        try:
            for rival in rivals:
                os.sched_setaffinity(rival.pid, {0})
            outcome = run_one(executor, external(py("busy_then_sum", "0.6"), timeout_s=2.0),
                              "1 1\n")
        finally:
            for rival in rivals:
                rival.kill()
                rival.wait()
    assert (outcome.verdict, outcome.answer) == (None, "2\n"), outcome
    assert 600 <= outcome.cpu_ms < 2000
    assert outcome.wall_ms > 2000  # over the limit by the wall clock, yet not a TLE


def test_a_program_starved_of_a_core_is_not_judged_rather_than_tle():
    """A program that needs 0.4 s of CPU under a 0.5 s limit shares one core with a spinner at
    a far higher priority: it gets a few ms a second, its wall clock passes every cap while its
    own clock (less its waits for a core) and its CPU time stay under them. It is stopped at
    `contained.busy_s` and not judged (JE: the machine too busy), never TLE."""
    token = secrets.token_hex(8)
    with starved(token):
        spec = external(py("busy_then_sum", "0.4", token), timeout_s=0.5)
        outcome = run_external(Job(0, spec, "case0", "1 1\n"))
    assert outcome.verdict == Verdict.JE, outcome
    assert outcome.error.startswith("not judged: machine too busy (its 1 s on its own clock "
                                    "not reached in 8 s of wall clock"), outcome
    assert outcome.cpu_ms < 400 and outcome.wall_ms >= 8000


def test_a_non_zero_exit_is_a_runtime_error_with_its_stderr(pool):
    outcome = run_one(pool, external(py("exit_code")))
    assert (outcome.verdict, outcome.exit_code) == (Verdict.RE, 3)
    assert outcome.error.startswith("exit code 3")
    assert "giving up: no idea" in outcome.error


def test_death_by_a_signal_is_a_runtime_error(pool):
    outcome = run_one(pool, external(py("segfault")))
    assert (outcome.verdict, outcome.exit_code) == (Verdict.RE, -signal.SIGSEGV)
    assert outcome.error.startswith(f"signal {int(signal.SIGSEGV)}")


def test_a_memory_hog_is_stopped_by_the_memory_limit(pool, cpp):
    for argv in (py("hog"), (cpp["hog"],), (cpp["hog_silent"],)):
        started = time.monotonic()
        outcome = run_one(pool, external(argv, memory_mb=256))
        assert outcome.verdict == Verdict.MLE, outcome
        assert outcome.error.startswith("memory limit 256 MB")
        assert outcome.peak_rss_kb <= 256 * 1024
        assert time.monotonic() - started < 5


def test_a_big_worker_does_not_turn_another_programs_crash_into_a_memory_verdict():
    """A child's peak memory from `wait4` includes its parent's image at the fork (Linux keeps
    it across exec): after a stage grew the worker to 200 MB, a program that fails on its own
    under a 160 MB limit is still a runtime error."""
    with LocalPoolExecutor(1) as executor:
        assert run_one(executor, stage("ballast")).verdict is None
        outcome = run_one(executor, external(py("exit_code"), memory_mb=160))
    assert (outcome.verdict, outcome.exit_code) == (Verdict.RE, 3)


def test_a_program_within_the_memory_limit_is_not_stopped(pool):
    outcome = run_one(pool, external(py("resident", "50"), memory_mb=256), "1 1\n")
    assert (outcome.verdict, outcome.answer) == (None, "2\n")


def test_an_output_flood_is_cut_at_the_output_limit(pool, cpp):
    limit = 1 << 20
    for argv in (py("flood"), (cpp["flood"],)):
        outcome = run_one(pool, external(argv, output_limit_bytes=limit))
        assert outcome.verdict == Verdict.OLE, outcome
        assert outcome.error == f"output exceeded {limit} bytes"
        assert outcome.answer is None  # the flood is never read back


def test_the_default_output_limit_stops_a_flood(pool):
    outcome = run_one(pool, external(py("flood"), timeout_s=20))
    assert outcome.verdict == Verdict.OLE
    assert outcome.wall_ms < 15000


# -- forks ---------------------------------------------------------------------------------------

def test_children_left_behind_by_a_finished_program_are_killed(pool):
    """A plain child, one that calls setsid and one orphaned by a double fork: all die when
    the program has answered, and nobody waits for them."""
    token = f"forker-{secrets.token_hex(4)}"
    started = time.monotonic()
    outcome = run_one(pool, external(py("forker", token, "3", "answer")), "2 2\n")
    assert (outcome.verdict, outcome.answer) == (None, "4\n")
    assert time.monotonic() - started < 5  # nobody waited for the sleeping children
    assert wait_until(lambda: not processes_with(token), timeout=5)


def test_a_forking_program_that_overruns_is_killed_with_all_its_children(pool):
    token = f"forker-{secrets.token_hex(4)}"
    with ThreadPoolExecutor(1) as thread:
        running = thread.submit(run_one, pool, external(py("forker", token, "3", "sleep"),
                                                        timeout_s=2))
        # the program and its three children (the double fork's middle process is gone)
        assert wait_until(lambda: len(running_program(token, "forker")) == 4, timeout=10)
        outcome = running.result()
    assert outcome.verdict == Verdict.TLE
    assert wait_until(lambda: not processes_with(token), timeout=5)


def test_descendants_are_killed_without_a_pid_namespace_too(tmp_path, monkeypatch):
    """Where the launcher cannot make a PID namespace it is a subreaper: orphans become its
    children, and it kills them (here forced with the launcher's -n, as without privilege)."""
    from pipeline.programs.launcher import launcher_path, parse_result

    token = f"forker-{secrets.token_hex(4)}"
    work = tmp_path / "work"
    work.mkdir()
    done = subprocess.run([str(launcher_path()), "-o", str(tmp_path / "result"), "-n", "-d",
                           str(work), "-w", "10000", "--", *py("forker", token, "3", "answer")],
                          input="2 3\n", capture_output=True, text=True, timeout=30)
    fields = parse_result((tmp_path / "result").read_text())
    assert (done.stdout, fields["status"], fields["containment"]) == ("5\n", "0", "subreaper")
    assert not processes_with(token)  # gone by the time the launcher exits


# -- isolation -----------------------------------------------------------------------------------

def test_each_case_runs_in_a_fresh_empty_temporary_directory(pool, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    first = json.loads(run_one(pool, external(py("inspect_world")), "1 2\n").answer)
    second = json.loads(run_one(pool, external(py("inspect_world")), "3 4\n").answer)
    for seen in (first, second):
        assert seen["listing"] == []  # nothing from an earlier case, nothing of ours
        assert not Path(seen["cwd"]).exists()  # removed once the case is over
        assert Path(seen["cwd"]).resolve() != Path.cwd().resolve()
    assert first["cwd"] != second["cwd"]
    assert (first["stdin"], second["stdin"]) == ("1 2\n", "3 4\n")
    assert not (tmp_path / "litter.txt").exists()


def test_output_files_swapped_for_links_are_not_read_through_them(pool, tmp_path):
    """Unsandboxed, a program may replace the files its stdout and stderr went to (in the
    folder above its own) by links to a file of the user's: what it wrote is read all the
    same, never what the links lead to."""
    secret = tmp_path / "secret.txt"
    secret.write_text("the user's private file\n")
    swapper = tmp_path / "swapper.py"
    swapper.write_text(
        "import os, sys\n"
        "print('mine', flush=True)\n"
        "print('oops', file=sys.stderr, flush=True)\n"
        "case = os.path.dirname(os.getcwd())\n"
        "for name in ('stdout', 'stderr'):\n"
        "    os.unlink(os.path.join(case, name))\n"
        f"    os.symlink({str(secret)!r}, os.path.join(case, name))\n"
        "sys.exit(3)\n")
    outcome = run_one(pool, external((sys.executable, str(swapper))))
    assert outcome.verdict == Verdict.RE and "exit code 3: oops" in outcome.error
    assert "private" not in outcome.error
    kept = tmp_path / "kept.py"
    kept.write_text(swapper.read_text().replace("sys.exit(3)", "sys.exit(0)"))
    answered = run_one(pool, external((sys.executable, str(kept))))
    assert (answered.verdict, answered.answer) == (None, "mine\n")
    assert secret.read_text() == "the user's private file\n"


def test_the_program_gets_a_clean_environment(pool, monkeypatch):
    monkeypatch.setenv("GAMEBENCH_SECRET", "hunter2")
    report = json.loads(run_one(pool, external(py("inspect_world"))).answer)
    assert report["env"] == ["LC_ALL", "PATH"]


def test_arguments_are_passed_literally_never_through_a_shell(pool, tmp_path):
    record, marker = tmp_path / "argv.json", tmp_path / "pwned"
    tricky = (";", "touch", str(marker), "$(touch " + str(marker) + ")", "`id`", "|", "*",
              "&&", "$HOME", "a b")
    outcome = run_one(pool, external(py("record_argv", str(record), *tricky)), "1 1\n")
    assert (outcome.verdict, outcome.answer) == (None, "2\n")
    assert json.loads(record.read_text()) == list(tricky)
    assert not marker.exists()


def test_closing_the_pool_kills_a_program_in_flight():
    """Stopping a run (Ctrl-C) mid-case leaves neither the worker nor the program running."""
    token = f"forker-{secrets.token_hex(4)}"
    sleeper = external(py("forker", token, "2", "sleep"), timeout_s=30)
    jobs = [Job(i, stage("fast"), f"c{i}", "1 1\n") for i in range(4)]
    jobs.append(Job(4, sleeper, "c4", "1 1\n"))
    executor = LocalPoolExecutor(2)
    stream = executor.run(jobs)
    next(stream)
    assert wait_until(lambda: len(running_program(token, "forker")) == 3)
    workers = [worker.process.pid for worker in executor._workers]
    stream.close()
    executor.close()
    assert wait_until(lambda: not processes_with(token) and not any(map(alive, workers)),
                      timeout=5)


def test_the_launcher_ends_its_program_when_the_caller_named_by_its_pidfd_dies(cpp, tmp_path):
    """The caller's pidfd (-P) is watched as well as the death signal, which only the parent's
    death sends: here the pidfd is of a process that is not the launcher's parent, so only
    the watch can end the case, and it does once that process is killed."""
    caller = subprocess.Popen(["sleep", "60"])
    pidfd = os.pidfd_open(caller.pid)
    read, write = os.pipe2(os.O_CLOEXEC)
    process = subprocess.Popen([launcher_path(), "-P", str(pidfd), "-D", str(write),
                                "-c", "60000", "-w", "60000", "--", cpp["spin"]],
                               pass_fds=(write, pidfd), start_new_session=True)
    os.close(write)
    os.close(pidfd)
    running = contained.Started(process.pid, 60.0, read, time.perf_counter())
    time.sleep(0.3)
    assert process.poll() is None  # the caller lives: the program runs on
    caller.kill()
    caller.wait()
    measured = contained.finish(running)
    process.wait(timeout=10)
    assert measured.killed == "term", measured
    assert measured.cpu_ms < 30000
