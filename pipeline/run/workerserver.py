"""The worker server: the one process a command's local pools fork their workers from (a fork
of a process that holds the modules starts far quicker than a spawn).

`start_server` starts it once per command: forked while the command is single-threaded, else
executed (`python -c ...`), and has it load the command's problems, so that each worker starts
with them loaded. It serves one socket: a request carries a worker's arguments and
descriptors and is answered with its pid and a sentinel pipe that reaches EOF once it is gone.
It exits, killing and reaping its workers, when the command's end closes; the command waits for
it, so workers' CPU time counts as the command's children's.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import gc
import mmap
import os
import pickle
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection

from pipeline.programs.processes import single_threaded, stat_fields

# How long the command waits at exit for the server to end (it ends at once: it only has to
# reap its workers) before it kills it.
STOP_TIMEOUT_S = 5.0
# How long a worker whose sentinel closed may take to finish exiting (it takes microseconds).
EXIT_WAIT_S = 1.0
REAP_EVERY_S = 0.1  # how often the server reaps workers that ended (it also does at each request)
_MAX_MESSAGE = 1 << 20


class SharedDoubles:
    """`count` doubles in memory shared with a worker (a memfd the worker maps too)."""

    def __init__(self, count: int, fd: int | None = None) -> None:
        if fd is None:
            fd = os.memfd_create("gamebench-progress", os.MFD_CLOEXEC)
            os.ftruncate(fd, 8 * count)
        self.fd = fd
        self._map = mmap.mmap(fd, 8 * count)
        self._values = (ctypes.c_double * count).from_buffer(self._map)

    def __getitem__(self, index: int) -> float:
        return self._values[index]

    def __setitem__(self, index: int, value: float) -> None:
        self._values[index] = value

    def close_fd(self) -> None:
        """Let go of the descriptor (the mapping stays): the worker has its own."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


@dataclass
class ServedProcess:
    """A worker the server forked, with what the pool needs of a process; it runs
    `target(connection, progress=progress, parent_pid=server, **arguments)`."""

    target: object
    connection: Connection
    progress: SharedDoubles
    arguments: dict = field(default_factory=dict)
    pid: int | None = None
    sentinel: int | None = None

    def start(self) -> None:
        self.pid, self.sentinel = start_server().start_worker(
            (self.target, self.arguments), [self.connection.fileno(), self.progress.fd])
        self.progress.close_fd()

    def _signal(self, signum: int) -> None:
        if self.pid is not None and self.is_alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signum)

    def terminate(self) -> None:
        self._signal(signal.SIGTERM)

    def kill(self) -> None:
        self._signal(signal.SIGKILL)

    def join(self, timeout: float | None = None) -> None:
        """Wait up to `timeout` seconds for its sentinel to close, then for its exit."""
        if self.sentinel is None:
            return
        if not select.select([self.sentinel], [], [], timeout)[0]:
            return
        done_by = time.monotonic() + EXIT_WAIT_S  # (a pid reused since is not waited for)
        while _exiting(self.pid) and time.monotonic() < done_by:
            time.sleep(0.0005)

    def is_alive(self) -> bool:
        if self.sentinel is None:
            return False
        if not select.select([self.sentinel], [], [], 0)[0]:
            return True
        return _exiting(self.pid)

    @property
    def exitcode(self) -> int | None:
        """As `multiprocessing.Process.exitcode` (-N: signal N), read from /proc while the
        server has not reaped it; None while it runs or once reaped."""
        fields = stat_fields(self.pid) if self.pid is not None else None
        if fields is None or len(fields) < 50 or fields[0] not in (b"Z", b"X"):
            return None
        status = int(fields[49])  # `exit_code`: the wait status, as waitpid(2) gives it
        return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)

    def close(self) -> None:
        """Let go of the sentinel and the shared memory's descriptor."""
        self.progress.close_fd()
        if self.sentinel is not None:
            os.close(self.sentinel)
            self.sentinel = None


def _exiting(pid: int | None) -> bool:
    """Whether `pid` is still a process that has not finished exiting (not yet a zombie)."""
    fields = stat_fields(pid) if pid is not None else None
    return fields is not None and fields[:1] not in ([], [b"Z"], [b"X"])


class _Client:
    """The command's side of the server: its socket, its process, and a lock (pools on
    several threads start workers)."""

    def __init__(self, problems: tuple[str, ...]) -> None:
        self.problems = problems
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._lock = threading.Lock()
        self.socket = ours
        self.process: subprocess.Popen | None = None
        self.pid: int
        if single_threaded():
            pid = os.fork()
            if pid == 0:  # the server
                try:
                    ours.close()
                    serve(theirs, problems, forked=True)
                finally:
                    os._exit(1)
            self.pid = pid
        else:
            theirs.set_inheritable(True)
            self.process = subprocess.Popen(
                [sys.executable, "-c", "from pipeline.run.workerserver import main; main()",
                 str(theirs.fileno())], pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL)
            self.pid = self.process.pid
            ours.send(pickle.dumps((sys.path, problems)))
        theirs.close()

    def start_worker(self, what: tuple, fds: list[int]) -> tuple[int, int]:
        """Have the server fork a worker running `what` with `fds`; its pid and sentinel."""
        with self._lock:
            socket.send_fds(self.socket, [pickle.dumps(what)], fds)
            message, received, _, _ = socket.recv_fds(self.socket, _MAX_MESSAGE, 1)
        if not message or len(received) != 1:
            for fd in received:
                os.close(fd)
            raise OSError("the worker server ended before it started the worker")
        return pickle.loads(message), received[0]

    def stop(self) -> None:
        """Let go of the server and wait for it (it reaps its workers and exits)."""
        self.socket.close()
        if self.process is not None:
            try:
                self.process.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            return
        deadline = time.monotonic() + STOP_TIMEOUT_S
        while not (ended := _ended(self.pid)) and time.monotonic() < deadline:
            time.sleep(0.002)
        if not ended:
            with contextlib.suppress(ProcessLookupError, ChildProcessError):
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)


def _ended(pid: int) -> bool:
    """Whether child `pid` has ended (reaping it), or was reaped already (or is not ours)."""
    try:
        return os.waitpid(pid, os.WNOHANG)[0] != 0
    except ChildProcessError:
        return True


_client: _Client | None = None
_client_lock = threading.Lock()


def _forget_in_a_child() -> None:
    """A forked child has no server of its own (and the lock may be held as it forks)."""
    global _client, _client_lock
    _client, _client_lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_in_a_child)


def start_server(problems: Iterable[str] = ()) -> _Client:
    """This process's worker server, started now if it has none, with the worker's module
    imported and the problems `problems` loaded; a server already running keeps its own."""
    global _client
    with _client_lock:
        if _client is None or not _alive(_client):
            _client = _Client(tuple(problems))
        return _client


def _alive(client: _Client) -> bool:
    if client.process is not None:
        return client.process.poll() is None
    return not _ended(client.pid)


@atexit.register
def stop_server() -> None:
    """Stop this process's worker server (if any) and wait for it; called at exit."""
    global _client
    with _client_lock:
        client, _client = _client, None
    if client is not None:
        client.stop()


# -- the server's side ---------------------------------------------------------------------------

def main() -> None:
    """The executed server: `python -c '...main()' FD`; its first message holds the sys.path
    and the problems to load."""
    connection = socket.socket(fileno=int(sys.argv[1]))
    path, problems = pickle.loads(connection.recv(_MAX_MESSAGE))
    sys.path[:] = path
    serve(connection, problems, forked=False)


def serve(connection: socket.socket, problems: Iterable[str], forked: bool) -> None:
    """Serve worker requests on `connection` until it closes; never returns."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the command, which handles it
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)
    if forked:
        # The command's objects stay as they are in this copy: none is freed here (a file
        # object freed would close a descriptor number reused since), and only the socket
        # and the standard streams stay open.
        gc.freeze()
        keep = connection.fileno()
        os.closerange(3, keep)
        os.closerange(keep + 1, os.sysconf("SC_OPEN_MAX"))
    from pipeline.run.worker import prepare_server

    prepare_server(problems)
    children: set[int] = set()
    try:
        while True:
            ready, _, _ = select.select([connection], [], [], REAP_EVERY_S)
            children -= {pid for pid in children if _ended(pid)}
            if not ready:
                continue
            try:
                message, fds, _, _ = socket.recv_fds(connection, _MAX_MESSAGE, 4)
            except OSError:
                break
            if not message:  # the command let go, or is gone
                break
            try:
                target, arguments = pickle.loads(message)
                pid, sentinel = _fork_worker(connection, target, arguments, fds)
            except Exception:
                for fd in fds:
                    os.close(fd)
                break  # the command's start fails and says so
            children.add(pid)
            try:
                socket.send_fds(connection, [pickle.dumps(pid)], [sentinel])
            except OSError:
                break
            finally:
                os.close(sentinel)
    finally:
        for pid in children:  # what is left ends now, and is reaped: its CPU time counts
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for pid in children:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
        os._exit(0)


def _fork_worker(connection: socket.socket, target, arguments: dict,
                 fds: list[int]) -> tuple[int, int]:
    """Fork a worker running `target` (as `ServedProcess` says); its pid, and the read end of
    a pipe whose write end only the worker holds."""
    from pipeline.run.worker import PROGRESS_FIELDS

    connection_fd, progress_fd = fds
    sentinel, held = os.pipe2(os.O_CLOEXEC)
    server = os.getpid()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(sentinel)
            connection.close()
            target(Connection(connection_fd),
                   progress=SharedDoubles(PROGRESS_FIELDS, progress_fd), parent_pid=server,
                   **arguments)
            code = 0
        except BaseException:
            import traceback

            traceback.print_exc()
        finally:
            os._exit(code)
    os.close(held)
    for fd in fds:
        os.close(fd)
    return pid, sentinel
