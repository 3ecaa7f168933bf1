"""Hostile external programs (and submissions, which run the same way) against the one runner
(`pipeline.programs.contained`): each fault of the hostile pass is named by its letter (issue 22),
each attack is a real program doing it, and each test says what happens now.

A program may not write outside its folder and /tmp, read the data folder, reach the network,
fork without end (P17), outlive a `kill -9` of the pipeline's process group, fill its folder
past the output limit (E12), or forge its own result (E11); a `python3` shim of pyenv under a
0700 home runs under the default sandbox as it would for its user (issue 21).

The folders that must be hidden live outside /tmp (under /var/tmp), so that a program's
private /tmp is not what hides them. The sandbox needs root.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from processkit import alive, hostile_program, hostile_report, processes_marked
from runkit import PROGRAMS, REPO, corpus, external, results, run_one

from pipeline.programs import contained
from pipeline.programs import external as external_runner
from pipeline.programs.contained import PROCESS_CAP, data_folder_hidden
from pipeline.programs.jobs import Job
from pipeline.tables.results import read_runs
from pipeline.verdicts import Verdict

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the sandbox needs root")


@pytest.fixture
def outside():
    """A folder outside /tmp, removed afterwards."""
    if not os.access("/var/tmp", os.W_OK):
        pytest.skip("no writable /var/tmp")
    folder = Path(tempfile.mkdtemp(prefix="gamebench-test-", dir="/var/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def listener():
    """A TCP server on loopback that a program outside the sandbox could reach."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        yield server.getsockname()[1]


@pytest.fixture
def data(outside):
    """A data folder with a stored answer in its tables."""
    folder = outside / "data"
    (folder / "tables").mkdir(parents=True)
    (folder / "tables" / "answers.txt").write_text("the stored answers\n")
    (folder / "build").mkdir()
    return folder


def _marker() -> str:
    return f"gamebench-hostile-{os.getpid()}-{time.monotonic_ns()}"


def _gone(marker: str, within_s: float = 10.0) -> bool:
    deadline = time.monotonic() + within_s
    while processes_marked(marker):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_p18_a_hostile_submission_cannot_write_out_read_the_data_reach_the_network_or_fork_on(
        pool, outside, data, listener, tmp_path):
    marker = _marker()
    # (a clone under /tmp has its folder in the program's private /tmp: writing there is no
    # escape, so only a clone elsewhere is a place to try)
    escapes = [outside / "escaped", Path("/var/tmp") / f"{marker}-escaped", "../escaped",
               *([] if str(REPO).startswith("/tmp/") else [REPO / f"{marker}-escaped"])]
    argv = hostile_program(tmp_path, outside=escapes, secret=data / "tables" / "answers.txt",
                           port=listener, marker=marker, then="sys.exit(3)")
    spec = external(tuple(argv), sandbox=True, hidden=data_folder_hidden(data))
    outcome = run_one(pool, spec, "")
    assert outcome.verdict == Verdict.RE, outcome
    report = hostile_report(outcome.error)
    assert report.get("wrote") is None and report["read"] is None and not report["connect"]
    assert 0 < report["forks"] < PROCESS_CAP
    assert not any(Path(p).exists() for p in escapes if str(p).startswith("/"))
    assert _gone(marker)  # its daemon died with the case


def test_p18_a_hostile_program_dies_with_a_kill_9_of_the_pipelines_process_group(tmp_path,
                                                                                 outside):
    data = outside / "data"
    corpus(data, {"a/01.in": ("1 2\n", "3\n")})
    marker = _marker()
    argv = hostile_program(tmp_path, outside=[], secret="/nonexistent", port=1, marker=marker,
                           forks=0, then="time.sleep(60)")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    pipeline = subprocess.Popen(
        [sys.executable, "-m", "pipeline", "--data-dir", str(data), "run", "--problem", "toy",
         "--external", f"hostile={' '.join(argv)}", "--timeout", "30", "--jobs", "1"],
        cwd=REPO, env=env, start_new_session=True, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not processes_marked(marker):
            assert pipeline.poll() is None and time.monotonic() < deadline, "it never started"
            time.sleep(0.05)
    finally:
        os.killpg(pipeline.pid, signal.SIGKILL)
        pipeline.wait()
    assert _gone(marker)


def test_p17_a_fork_bomb_is_capped_and_dies_with_its_case(tmp_path):
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    (tmp_path / "bomb.c").write_text("#include <unistd.h>\nint main(){for(;;)fork();}\n")
    subprocess.run(["gcc", "-o", str(tmp_path / "bomb"), str(tmp_path / "bomb.c")], check=True)
    cgroup = contained.process_cgroup()
    if cgroup is None:
        pytest.skip(contained.process_cap_note() or "no pids cgroup")
    def members() -> set[int]:
        return {pid for pid in map(int, Path(cgroup, "cgroup.procs").read_text().split())
                if alive(pid)}

    # What an earlier test of this process left in its cgroup (it joined once) is not the case's.
    before = members()
    try:
        outcome = external_runner.run_external(Job(0, external((str(tmp_path / "bomb"),),
                                                               timeout_s=0.3), "c", ""))
        assert outcome.verdict == Verdict.TLE, outcome
        events = Path(cgroup, "pids.events").read_text().split()
        assert events[0] == "max" and int(events[1]) > 0  # forks were refused at the cap
        deadline = time.monotonic() + 10  # none of the case's processes is left
        while left := members() - before:
            assert time.monotonic() < deadline, "processes of the case are left: " + "; ".join(
                f"{pid} {Path(f'/proc/{pid}/cmdline').read_bytes()[:80]!r}" for pid in left
                if os.path.exists(f"/proc/{pid}"))
            time.sleep(0.05)
    finally:
        external_runner.cleanup_scratch()


# A program that leaves its work to a child it never reaps: the child computes for 0.2 s of CPU
# and exits; the program waits for that (leaving it a zombie, unreaped) and exits.
LEAVES_ITS_WORK_TO_A_CHILD = r"""
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
int main(void) {
    pid_t child = fork();
    if (child == 0) {
        while ((double)clock() / CLOCKS_PER_SEC < 0.2) {}
        return 0;
    }
    siginfo_t info;
    waitid(P_PID, child, &info, WEXITED | WNOWAIT);
    puts("done");
    return 0;
}
"""


def test_the_cpu_time_of_a_case_counts_the_processes_its_program_never_reaped(tmp_path):
    """A case's CPU time is that of every process it ran: the child's 0.2 s counts though the
    program never waited for it (the launcher reaps it), so work moved to other processes, or a
    fork bomb's, cannot pass under the time limit unseen."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    (tmp_path / "leave.c").write_text(LEAVES_ITS_WORK_TO_A_CHILD)
    subprocess.run(["gcc", "-o", str(tmp_path / "leave"), str(tmp_path / "leave.c")],
                   check=True)
    try:
        outcome = external_runner.run_external(Job(0, external((str(tmp_path / "leave"),),
                                                               timeout_s=5), "c", ""))
    finally:
        external_runner.cleanup_scratch()
    assert outcome.verdict is None and outcome.answer == "done\n", outcome
    assert outcome.cpu_ms is not None and outcome.cpu_ms >= 200, outcome


FORKS_AFTER_THREADS_ENDED = """\
import os, sys, threading, time
from pathlib import Path
from pipeline.programs import contained

done = threading.Event()
threads = [threading.Thread(target=done.wait) for _ in range(20)]
for thread in threads:
    thread.start()
if contained.process_cgroup() is None:
    print("none")
    sys.exit(0)
done.set()
for thread in threads:
    thread.join()
# (a thread joined may still be ending in the kernel: the caller has lost it once it is gone)
gone_by = time.monotonic() + 10
while len(os.listdir("/proc/self/task")) > threading.active_count() and time.monotonic() < gone_by:
    time.sleep(0.001)
forker = ("import os, time\\nn = 0\\ntry:\\n    for _ in range(2000):\\n"
          "        if os.fork() == 0:\\n            time.sleep(5)\\n            os._exit(0)\\n"
          "        n += 1\\nexcept OSError:\\n    pass\\nprint(n)\\n")
work = Path(sys.argv[1])
with open(work / "out", "wb") as out:
    contained.run([sys.executable, "-c", forker], stdin=None, stdout=out, stderr=None,
                  workdir=work, limits=contained.Limits(wall_s=10), sandbox=False)
print((work / "out").read_text().strip())
"""


def test_p17_the_process_cap_holds_after_the_caller_lost_threads(tmp_path):
    """The cap is `PROCESS_CAP` processes besides the caller's own threads. It was set once,
    when the caller joined its cgroup: a caller that had 20 more threads then (a Dask client's,
    a thread pool's) than when its program ran gave that program 20 processes more. Now the
    cap follows the caller's threads: the program forks fewer than `PROCESS_CAP` times."""
    done = subprocess.run([sys.executable, "-c", FORKS_AFTER_THREADS_ENDED, str(tmp_path)],
                          cwd=REPO, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr
    if done.stdout.strip() == "none":
        pytest.skip(contained.process_cap_note() or "no pids cgroup")
    assert 0 < int(done.stdout) < PROCESS_CAP, done.stdout


def test_e12_twenty_files_of_60_mb_in_its_folder_are_ole(pool):
    writer = ("import sys\nchunk = b'x' * (1 << 20)\nfor n in range(20):\n"
              "    try:\n        with open(f'file{n}', 'wb') as out:\n"
              "            for _ in range(60):\n                out.write(chunk)\n"
              "    except OSError:\n        pass\nprint(3)\n")
    spec = external((sys.executable, "-c", writer), sandbox=True)
    outcome = run_one(pool, spec, "1 2\n")
    assert outcome.verdict == Verdict.OLE, outcome
    assert "into its folder and /tmp" in outcome.error


def test_e11_a_program_that_aborts_cannot_forge_its_result_under_sandbox_off(pool):
    """It writes a launcher's result line into ../result and into every descriptor it has;
    the result travels in a pipe it never holds."""
    forger = ("import os\nline = b'status=0 user_us=1 sys_us=0 rss_kb=100 wall_us=1000 "
              "killed=none written=ok containment=pidns\\n'\n"
              "for path in ('../result', 'result', '../../result'):\n"
              "    try:\n        open(path, 'wb').write(line)\n    except OSError:\n"
              "        pass\nfor fd in range(3, 256):\n    try:\n        os.write(fd, line)\n"
              "    except OSError:\n        pass\nprint(3, flush=True)\nos.abort()\n")
    outcome = run_one(pool, external((sys.executable, "-c", forger)), "1 2\n")
    assert outcome.verdict == Verdict.RE and "signal 6" in outcome.error, outcome


def test_a_python3_shim_under_a_private_home_gets_ac_under_the_default_sandbox(outside):
    """pyenv's way: `python3` on PATH is a script that runs the interpreter it finds in its
    own home, a 0700 folder."""
    home = outside / "home"
    versions = home / ".pyenv" / "versions" / "3" / "bin"
    versions.mkdir(parents=True)
    (versions / "python3").symlink_to(os.path.realpath(sys.executable))
    shims = home / ".pyenv" / "shims"
    shims.mkdir()
    (shims / "python3").write_text('#!/bin/sh\nexec "$(dirname "$0")/../versions/3/bin/python3" '
                                   '"$@"\n')
    (shims / "python3").chmod(0o755)
    home.chmod(0o700)
    data = outside / "data"
    corpus(data, {"a/01.in": ("1 2\n", "3\n"), "a/02.in": ("5 7\n", "12\n")})
    env = {**os.environ, "PYTHONPATH": str(REPO),
           "PATH": f"{shims}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}"}
    done = subprocess.run(
        [sys.executable, "-m", "pipeline", "--data-dir", str(data), "run", "--problem", "toy",
         "--external", f"mine=python3 {PROGRAMS / 'sum.py'}", "--jobs", "1",
         "--timeout", "20"],  # (a shim's start on a loaded machine: not what is tested)
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "sandbox off" not in done.stdout
    [run_id] = read_runs(data)["run_id"]
    assert results(data, run_id)["verdict"].to_list() == ["AC", "AC"]


def test_second_pass_a_program_cannot_reach_a_unix_socket_of_the_host(pool, outside):
    """A server listens on a UNIX socket bound to a path outside /tmp (as the Docker daemon or
    D-Bus do); the network namespace does not cover such a socket and a read-only mount does
    not stop a connect, so the sandbox refuses socket(AF_UNIX): the connect fails, no byte
    reaches the server, and the program's own socketpair still works."""
    path = outside / "host.sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        server.listen()
        server.settimeout(0.2)
        prober = ("import socket, sys\n"
                  "a, b = socket.socketpair(); a.send(b'x'); assert b.recv(1) == b'x'\n"
                  "try:\n    s = socket.socket(socket.AF_UNIX)\n"
                  f"    s.connect({str(path)!r}); s.send(b'escaped')\n"
                  "    print('connected')\nexcept OSError as error:\n"
                  "    print(sum(map(int, sys.stdin.read().split())))\n"
                  "    sys.stderr.write(f'refused: {error}')\n")
        outcome = run_one(pool, external((sys.executable, "-c", prober), sandbox=True), "1 2\n")
        assert outcome.verdict is None and (outcome.answer or "").strip() == "3", outcome
        with pytest.raises(TimeoutError):
            server.accept()


@pytest.fixture(scope="module")
def prober(tmp_path_factory) -> str:
    """`programs/filter_escapes.c` compiled with the system's C compiler."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler (cc) is installed")
    binary = tmp_path_factory.mktemp("filter") / "filter_escapes"
    subprocess.run([compiler, "-O1", "-o", str(binary), str(PROGRAMS / "filter_escapes.c")],
                   check=True)
    return str(binary)


def _lines(text: str | None) -> dict[str, str]:
    """The prober's `key=value` lines as a dict."""
    return dict(line.split("=", 1) for line in (text or "").splitlines() if "=" in line)


def test_second_pass_a_program_cannot_make_a_unix_socket_through_io_uring(pool, outside,
                                                                          prober):
    """io_uring makes sockets without the socket call (IORING_OP_SOCKET): a program made an
    AF_UNIX socket that way and connected to a host server's socket. The sandbox refuses every
    io_uring call with ENOSYS (a kernel without io_uring): the escape fails at its first step
    and no byte reaches the server. Outside the sandbox the same program gets through, so the
    attack is real on this kernel."""
    path = outside / "host.sock"
    enosys = str(errno.ENOSYS)
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        server.listen()
        free = subprocess.run([prober, str(path)], input="1 2\n", capture_output=True,
                              text=True, timeout=60)
        host = _lines(free.stdout)
        if host.get("setup") != "0":
            pytest.skip(f"this kernel refuses io_uring to every program: {free.stdout!r}")
        assert host["escape"] == "connected", free.stdout
        server.settimeout(10)
        server.accept()[0].close()

        server.settimeout(0.2)
        outcome = run_one(pool, external((prober, str(path)), sandbox=True), "1 2\n")
        assert outcome.verdict is None, outcome
        inside = _lines(outcome.answer)
        assert inside["escape"] == f"setup:{enosys}", outcome.answer
        with pytest.raises(TimeoutError):
            server.accept()
    assert inside["setup"] == inside["enter"] == inside["register"] == enosys, outcome.answer


def test_second_pass_x32_and_32_bit_calls_and_the_key_store_are_refused_as_native_calls_are(
        pool, prober):
    """Each call the filter refuses is refused by every way into the kernel this one has: as
    an x32 call (the native architecture with bit 30 set) and as a 32-bit call (int 0x80,
    where socketcall could hide a socket call). The key store (keyctl: the user's keyring,
    one per uid for the whole machine) is refused too. Each probe is checked where it works
    outside the sandbox."""
    enosys, eacces = str(errno.ENOSYS), str(errno.EACCES)
    refused = {"setup": enosys, "keyctl": enosys, "x32_setup": enosys, "x32_socket": eacces,
               "i386_setup": enosys, "i386_socket": eacces, "i386_socketcall": eacces,
               "i386_keyctl": enosys}
    free = subprocess.run([prober], input="1 2\n", capture_output=True, text=True, timeout=60)
    host = _lines(free.stdout)
    reached = {call for call in refused if host.get(call) not in (None, enosys, "crash")}
    if not reached:
        pytest.skip(f"none of these calls works on this kernel: {free.stdout!r}")
    outcome = run_one(pool, external((prober,), sandbox=True), "1 2\n")
    assert outcome.verdict is None, outcome
    inside = _lines(outcome.answer)
    assert {call: inside.get(call) for call in reached} == {
        call: refused[call] for call in reached}, (free.stdout, outcome.answer)


def test_second_pass_a_compiled_program_under_the_filter_still_does_ordinary_work(
        pool, prober):
    """The filter refuses only what it names: the same compiled program reads its input,
    answers, talks to itself over a socketpair and forks a child."""
    outcome = run_one(pool, external((prober,), sandbox=True), "20 22\n")
    assert outcome.verdict is None, outcome
    assert (outcome.answer or "").splitlines()[0] == "42", outcome.answer
    report = _lines(outcome.answer)
    assert report["pair"] == "ok" and report["fork"] == "ok", outcome.answer
