"""`pipeline serve`: while it runs, each `pipeline` command of the installation runs in a copy
of the service (forked with every module loaded) exactly as it would run itself: same output,
status, folder and environment; Ctrl-C passed on; dead with the command that handed itself
over; and the command runs itself where there is no service, or the service's code is old.

Every test starts a real service (`python -m pipeline serve`) on a socket folder of its own
(`XDG_RUNTIME_DIR`) and real `pipeline` commands beside it.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS / "run"))

from runkit import REPO, command, corpus, processes_with, py, running_program, wait_until  # noqa: E402


@pytest.fixture(autouse=True)
def _toy_registered(toy):
    return toy


def _environment(runtime: Path, code: Path = REPO) -> dict[str, str]:
    """The environment of a service and its commands: the socket folder `runtime`, and the
    pipeline's code from `code` (the checkout's, or a copy of it)."""
    env = {name: value for name, value in os.environ.items() if name != "PIPELINE_SERVICE"}
    env.update(XDG_RUNTIME_DIR=str(runtime), PYTHONPATH=os.pathsep.join(
        filter(None, [str(code), os.environ.get("PYTHONPATH")])))
    return env


class Service:
    """A real `pipeline serve` and the environment of the commands that use it."""

    def __init__(self, runtime: Path, idle_timeout: float = 120, code: Path = REPO) -> None:
        self.env = _environment(runtime, code)
        self.code = code  # the folder commands start in (`python -m` imports from it first)
        self.log = runtime / "service.log"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pipeline", "serve", "--idle-timeout", f"{idle_timeout:g}"],
            cwd=code, env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=self.log.open("w"), start_new_session=True)
        assert wait_until(lambda: self.servings() >= 1 or self.process.poll() is not None,
                          timeout=60), self.text()
        assert self.process.poll() is None, self.text()

    def text(self) -> str:
        return self.log.read_text() if self.log.exists() else ""

    def servings(self) -> int:
        return self.text().count("pipeline service: serving ")

    def served(self) -> list[str]:
        """The lines the service wrote for each command it ran (once it reaped its copy, which
        may be after the command has its status)."""
        return re.findall(r"^pipeline service: `pipeline .*$", self.text(), re.MULTILINE)

    def has_served(self, count: int) -> bool:
        return wait_until(lambda: len(self.served()) >= count, timeout=10) \
            and len(self.served()) == count

    def run(self, *args: str, cwd: Path | None = None,
            **extra: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pipeline", *args], cwd=cwd or self.code,
                              env={**self.env, **extra}, capture_output=True, text=True,
                              timeout=120)

    def start(self, *args: str) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-m", "pipeline", *args], cwd=self.code,
                                env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, start_new_session=True)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture
def runtime():
    """A short socket folder of the test's own (a socket's path has at most 107 bytes)."""
    folder = Path(tempfile.mkdtemp(prefix="gb-", dir="/tmp"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def code_copy(tmp_path) -> Path:
    """A copy of the pipeline's code whose files a test may touch: a service of it is another
    installation (its own socket), and the other tests' services never see the change."""
    root = tmp_path / "code"
    shutil.copytree(REPO / "pipeline", root / "pipeline",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return root


@pytest.fixture
def copied_service(runtime, code_copy):
    started = Service(runtime, code=code_copy)
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture
def service(runtime):
    started = Service(runtime)
    try:
        yield started
    finally:
        started.stop()


def _same_output(text: str) -> str:
    """Output with what differs between two runs of the same command (run ids, times, and which
    of two equally quick cases was the slowest) out."""
    text = re.sub(r"\d{8}T\d{6}-[0-9a-f]{6}", "RUN", text)
    text = re.sub(r"(ms wall, )[0-9a-f]{12}\)", r"\1CASE)", text)
    return re.sub(r"\d+(\.\d+)? (ms|s)\b", "T", text)


def test_a_command_runs_in_the_service_as_it_runs_itself(service, tmp_path):
    data = tmp_path / "data"
    corpus(data, {"a/01.in": ("1 2\n", "3\n"), "a/02.in": ("2 5\n", "7\n")})
    copy = tmp_path / "copy"
    shutil.copytree(data, copy)
    # a relative data folder is read from the command's folder, and the toy problem is found
    # through the command's environment (PIPELINE_PROBLEMS_DIR), not the service's
    args = ("--data-dir", "data", "run", "--problem", "toy", "--solver", "fast")
    served = service.run(*args, cwd=tmp_path)
    assert service.has_served(1) and "run --problem toy" in service.served()[0]
    assert "gone" not in service.served()[0]  # the command let go once it had its status
    shutil.rmtree(data)
    copy.rename(data)
    itself = service.run(*args, cwd=tmp_path, PIPELINE_SERVICE="off")
    assert service.has_served(1)  # PIPELINE_SERVICE=off: the command ran itself
    assert served.returncode == itself.returncode == 0, served.stderr
    assert _same_output(served.stdout) == _same_output(itself.stdout)
    assert "fast" in served.stdout and served.stderr == itself.stderr


def test_a_failing_command_says_the_same_and_exits_with_the_same_status(service, tmp_path):
    served = service.run("--data-dir", str(tmp_path / "d"), "run", "--problem", "nosuch")
    itself = service.run("--data-dir", str(tmp_path / "d"), "run", "--problem", "nosuch",
                         PIPELINE_SERVICE="off")
    assert served.returncode == itself.returncode == 2
    assert served.stderr == itself.stderr and "unknown problem 'nosuch'" in served.stderr
    assert service.has_served(1) and "exit 2 in" in service.served()[0]


def test_a_command_with_native_code_off_is_not_given_the_launcher_the_service_probed(
        service, tmp_path):
    """The service finds and probes the launcher before it serves (its commands and their
    workers start with the answer); a command whose environment switches native code off is
    given the answer of its own setting, as when it runs itself."""
    data = tmp_path / "data"
    corpus(data, {"a/01.in": ("1 2\n", "3\n")})
    args = ("--data-dir", str(data), "run", "--problem", "toy", "--external",
            f"sum={command(py('sum'))}", "--sandbox", "on")
    served = service.run(*args, PIPELINE_NATIVE="0")
    itself = service.run(*args, PIPELINE_NATIVE="0", PIPELINE_SERVICE="off")
    assert service.has_served(1)
    assert served.returncode == itself.returncode == 1, served.stdout + served.stderr
    assert "the sandbox cannot work here: native code is switched off" in served.stderr
    assert served.stderr == itself.stderr
    with_launcher = service.run(*args)  # the service's own answer: the launcher is there
    assert with_launcher.returncode == 0, with_launcher.stdout + with_launcher.stderr


def _long_run(service: Service, data: Path, token: str) -> subprocess.Popen:
    """A served `pipeline run` of forker.py (3 children sleeping) seen running."""
    corpus(data, {"a/01.in": ("1 2\n", "3\n")})
    started = service.start("--data-dir", str(data), "run", "--problem", "toy", "--external",
                            f"fork={command(py('forker', token, '3', 'sleep'))}",
                            "--timeout", "30", "--jobs", "1")
    assert wait_until(lambda: len(running_program(token, "forker")) == 4, timeout=30), \
        service.text()
    return started


def test_ctrl_c_of_the_command_interrupts_its_run_in_the_service(service, tmp_path):
    token = f"forker-{secrets.token_hex(4)}"
    started = _long_run(service, tmp_path / "data", token)
    started.send_signal(signal.SIGINT)
    out, err = started.communicate(timeout=60)
    assert started.returncode == 130, err
    # as a command that ran itself says it: the run is interrupted, and can be resumed
    assert re.search(r"run \S+: interrupted", out) and "--resume" in out, out
    assert wait_until(lambda: not processes_with(token), timeout=10), processes_with(token)


def test_a_sigkill_of_the_command_ends_its_run_and_programs_in_the_service(service, tmp_path):
    token = f"forker-{secrets.token_hex(4)}"
    started = _long_run(service, tmp_path / "data", token)
    os.killpg(started.pid, signal.SIGKILL)
    started.wait()
    assert wait_until(lambda: not processes_with(token), timeout=10), processes_with(token)
    assert wait_until(lambda: any("its command was gone" in line for line in service.served()),
                      timeout=10), service.text()


def test_where_no_service_runs_the_command_runs_itself(runtime, tmp_path):
    done = subprocess.run([sys.executable, "-m", "pipeline", "--data-dir", str(tmp_path / "d"),
                           "run", "--problem", "nosuch"], cwd=REPO, env=_environment(runtime),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "unknown problem 'nosuch'" in done.stderr


def test_changed_code_runs_the_command_itself_and_restarts_the_service(copied_service,
                                                                       code_copy, tmp_path):
    service = copied_service
    module = code_copy / "pipeline" / "commands" / "service.py"
    # changed for good (a copy): the service that restarts loads it as it is now
    before = module.stat()
    os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
    done = service.run("--data-dir", str(tmp_path / "d"), "run", "--problem", "nosuch")
    assert done.returncode == 2 and "unknown problem 'nosuch'" in done.stderr
    assert not service.served()  # it ran itself
    assert "code changed on disk" in service.text()
    assert wait_until(lambda: service.servings() == 2, timeout=60), service.text()
    assert service.process.poll() is None  # the same process, its code loaded again
    again = service.run("--data-dir", str(tmp_path / "d"), "run", "--problem", "nosuch")
    assert again.returncode == 2 and service.has_served(1)


def test_while_the_service_waits_to_restart_a_command_runs_itself_at_once(copied_service,
                                                                          code_copy, tmp_path):
    service = copied_service
    token = f"forker-{secrets.token_hex(4)}"
    started = _long_run(service, tmp_path / "data", token)  # keeps the service from restarting
    module = code_copy / "pipeline" / "commands" / "service.py"
    before = module.stat()
    os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
    first = service.run("--data-dir", str(tmp_path / "d"), "run", "--problem", "nosuch")
    second = service.run("--data-dir", str(tmp_path / "d"), "run", "--problem", "nosuch")
    # both ran themselves while the long run went on in the service (none waited for it)
    assert first.returncode == second.returncode == 2 and started.poll() is None
    assert service.servings() == 1 and not service.served()
    started.send_signal(signal.SIGINT)
    started.communicate(timeout=60)
    assert started.returncode == 130
    assert wait_until(lambda: service.servings() == 2, timeout=60), service.text()


def test_a_second_service_of_the_same_installation_is_refused(service):
    second = subprocess.run([sys.executable, "-m", "pipeline", "serve"], cwd=REPO,
                            env=service.env, capture_output=True, text=True, timeout=60)
    assert second.returncode == 1
    assert "already serves" in second.stderr and "Traceback" not in second.stderr
    assert service.process.poll() is None


def test_an_idle_service_stops_and_removes_its_socket(runtime):
    idle = Service(runtime, idle_timeout=1)
    try:
        assert idle.process.wait(timeout=30) == 0
        assert "idle for 1 s, stopping" in idle.text()
        socket_folder = next(runtime.glob("gamebench-*"))
        assert not list(socket_folder.glob("*.sock"))
    finally:
        idle.stop()


def test_a_stopped_service_interrupts_the_commands_it_runs(service, tmp_path):
    token = f"forker-{secrets.token_hex(4)}"
    started = _long_run(service, tmp_path / "data", token)
    service.process.send_signal(signal.SIGTERM)
    assert service.process.wait(timeout=30) == 0
    out, err = started.communicate(timeout=30)
    assert started.returncode == 143, err
    assert re.search(r"run \S+: interrupted", out), out
    assert wait_until(lambda: not processes_with(token), timeout=10), processes_with(token)
