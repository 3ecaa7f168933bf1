"""The `pipeline` process runs its command itself (no service runs it for it), and ends as
Python ends a process (the command's status, its output flushed, the threads Python waits for
waited for, the `atexit` functions run), less the tearing down of its modules
(`entry.exit_now`)."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=60)


def test_the_status_output_threads_and_atexit_functions_are_as_at_a_normal_exit():
    done = _python("""
        import atexit, threading, time
        from pipeline.entry import exit_now
        def late():
            time.sleep(0.2)
            print("thread done")
        threading.Thread(target=late).start()
        atexit.register(print, "atexit ran")
        print("x" * 100000, end="")  # more than a buffer's worth, left unflushed
        exit_now(3)
    """)
    assert done.returncode == 3
    assert done.stdout == "x" * 100000 + "thread done\natexit ran\n"


def test_a_text_status_is_printed_and_is_1_and_none_is_0():
    said = _python("from pipeline.entry import exit_now\nexit_now('cannot go on')")
    assert (said.returncode, said.stderr) == (1, "cannot go on\n")
    assert _python("from pipeline.entry import exit_now\nexit_now(None)").returncode == 0


def test_the_modules_are_not_torn_down():
    code = textwrap.dedent("""
        class Torn:
            def __del__(self):
                print("torn down")
        kept = Torn()
    """)
    assert _python(code).stdout == "torn down\n"  # what Python's own exit does
    ended = _python(code + "from pipeline.entry import exit_now\nexit_now(0)\n")
    assert (ended.returncode, ended.stdout) == (0, "")


def test_a_real_command_ends_with_its_status_and_its_whole_output(tmp_path):
    script = [sys.executable, "-m", "pipeline", "--data-dir", str(tmp_path / "data")]
    listed = subprocess.run([*script, "problems"], capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0 and "arc087e" in listed.stdout
    assert listed.stdout.endswith("\n")
    unknown = subprocess.run([*script, "run", "--problem", "nosuch"], capture_output=True,
                             text=True, timeout=120)
    assert unknown.returncode == 2 and "unknown problem 'nosuch'" in unknown.stderr


def test_an_error_in_what_threads_registered_for_the_exit_keeps_the_status_and_no_traceback():
    """A process pool registers its wake-up at exit on `threading`; after a SIGTERM its own
    thread may have closed that pipe (EBADF): as at Python's exit the status stands (here the
    143 of the SIGTERM), the `atexit` functions still run, and no traceback is printed."""
    done = _python("""
        import atexit, threading
        from pipeline.entry import exit_now
        def wake_a_closed_pipe():
            raise OSError(9, "Bad file descriptor")
        threading._register_atexit(wake_a_closed_pipe)
        atexit.register(print, "atexit ran")
        exit_now(143)
    """)
    assert done.returncode == 143, done.stderr
    assert done.stdout == "atexit ran\n" and "Traceback" not in done.stderr, done.stderr


def test_serve_is_not_a_command_every_command_runs_in_its_own_process(tmp_path):
    """No warm service runs commands for others: `pipeline serve` is a usage error (exit 2,
    click's message) and the help names no such command; each command runs in the process
    started for it."""
    script = [sys.executable, "-m", "pipeline", "--data-dir", str(tmp_path / "data")]
    served = subprocess.run([*script, "serve"], capture_output=True, text=True, timeout=120)
    assert served.returncode == 2, served.stderr
    assert served.stderr.startswith("Usage: pipeline [OPTIONS] COMMAND [ARGS]...\n")
    assert "Error: No such command 'serve'." in served.stderr
    helped = subprocess.run([*script, "--help"], capture_output=True, text=True, timeout=120)
    assert helped.returncode == 0 and " solve " in helped.stdout
    assert " serve " not in helped.stdout
