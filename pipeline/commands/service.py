"""`pipeline serve`: a warm process that starts `pipeline` commands with their modules loaded.

A `pipeline` command spends its first 0.3-0.4 s starting Python and importing Typer, Polars
and the package code; on a small package that is most of the command. While `pipeline serve`
runs, each `pipeline` command of the same installation hands itself to it instead
(`run_in_service`, called by `pipeline.entry` before it imports anything else): the service
forks a copy of itself, which has every module imported already, and that copy runs the
command exactly as the command would have run itself:

- with the command's arguments, current folder, environment, umask, and its standard input,
  output and error (the descriptors themselves, passed over the socket), so it reads and
  writes where the command would, terminal or file;
- as a process of its own (a session of its own), forked fresh for each command: no state of
  one command is seen by another, and the copy's locks, run rows and programs are its own;
- contained as every command is: its programs run under the same containment, and it dies with
  the command that handed itself over. Ctrl-C, SIGTERM and SIGHUP sent to the command are
  passed on to it; if the command dies (even by SIGKILL), the service sees its end of the
  socket close and sends the copy SIGTERM, which ends its programs as an interrupted command
  ends them; if the service dies, the copy gets SIGTERM too.

The command waits for the copy's exit status (the service reaps the copy and sends it) and
exits with it. Where there is no service (no socket, or it does not answer), or the service's
code is older than the files on disk (it then restarts itself with the new code once no
command of its is running), the command runs in its own process as always. `PIPELINE_SERVICE=off`
never uses one. `pipeline serve` and `pipeline solve` never go through it.

The socket is per user and per installation (the interpreter and the `pipeline` package's
folder): `$XDG_RUNTIME_DIR/gamebench-UID/` (or the temporary folder's), a folder only the user
can enter, and the service serves only its own user (the peer's credentials are checked).

What differs from a command that runs itself: the command's CPU time is counted in the
service's children (`time` on the command shows only its own small part), and its resource
limits are the service's.

Only the standard library is imported at the top of this module: the client side is part of
every command's start.
"""

from __future__ import annotations

import array
import json
import os
import signal
import socket
import struct
import sys
import time
import zlib
from collections.abc import Callable
from typing import Any

SERVICE_ENV = "PIPELINE_SERVICE"  # "off": never hand a command to a service
DEFAULT_IDLE_TIMEOUT_S = 1800.0
REQUEST_TIMEOUT_S = 5.0  # how long the service waits for a connected command's request
STOP_TIMEOUT_S = 10.0  # how long a stopping service waits for its commands to end
_HEADER = struct.Struct(">I")
_MAX_REQUEST = 16 << 20
# Commands that never go through the service: itself, `solve` (its own fast start), and shell
# completion (which finds the user's shell among the command's parent processes).
_NOT_SERVED = ("serve", "solve", "--install-completion", "--show-completion")
_COMPLETION_ENV = "_PIPELINE_COMPLETE"


# -- where ------------------------------------------------------------------------------------
def _package_dir() -> str:
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def socket_dir() -> str:
    """The folder of this user's service sockets (only the user may enter it)."""
    base = os.environ.get("XDG_RUNTIME_DIR") or os.environ.get("TMPDIR") or "/tmp"
    return os.path.join(base, f"gamebench-{os.getuid()}")


def socket_path() -> str:
    """This installation's service socket: one per interpreter and `pipeline` package folder."""
    key = zlib.crc32(f"{sys.executable}\0{_package_dir()}".encode())
    return os.path.join(socket_dir(), f"pipeline-{key:08x}.sock")


def _private_dir(path: str) -> bool:
    """Whether `path` is a real folder of this user that no one else can enter."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return (info.st_uid == os.getuid() and (info.st_mode & 0o077) == 0
            and os.path.isdir(path) and not os.path.islink(path))


# -- the command's side -----------------------------------------------------------------------
def run_in_service(argv: list[str]) -> int | None:
    """Run the command `argv` in the service when one serves this installation: its exit
    status; None when there is none (or it declined), and the command runs itself."""
    if os.environ.get(SERVICE_ENV, "").lower() in ("off", "0", "no") or any(
            word.partition("=")[0] in _NOT_SERVED for word in argv) or (
            _COMPLETION_ENV in os.environ):
        return None
    path = socket_path()
    if not os.path.exists(path) or not _private_dir(os.path.dirname(path)):
        return None
    pending: list[int] = []
    handed = {signum: signal.signal(signum, lambda s, _f: pending.append(s))
              for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.connect(path)
        request = json.dumps({"argv": argv, "argv0": sys.argv[0] if sys.argv else "pipeline",
                              "cwd": os.getcwd(), "env": dict(os.environ),
                              "umask": _umask()}).encode()
        connection.sendmsg([_HEADER.pack(len(request))], [(
            socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [0, 1, 2]))])
        connection.sendall(request)
        answers = connection.makefile("rb")
        first = answers.readline()
    except OSError:  # no service there, or one that went away: the command runs itself
        connection.close()
        _restore(handed, pending)
        return None
    if not first.startswith((b"pid ", b"exit ")):  # declined ("cold ..."): it runs itself
        connection.close()
        _restore(handed, pending)
        return None
    copy: list[int] = []  # a pidfd of the copy, once the service said its pid

    def pass_on(signum: int, _frame=None) -> None:
        if copy:
            try:
                signal.pidfd_send_signal(copy[0], signum)
            except OSError:  # it has ended
                pass
        else:
            pending.append(signum)

    line = first
    while line.startswith(b"pid "):
        try:
            copy.append(os.pidfd_open(int(line.split()[1])))
        except OSError:  # it has ended already: its status follows
            pass
        for signum in handed:
            signal.signal(signum, pass_on)
        held, pending[:] = pending[:], []  # what came before the pid, passed on now
        for early in held:
            pass_on(early)
        try:
            line = answers.readline()
        except OSError:
            line = b""
    if line.startswith(b"exit "):  # from the copy as it ends, or from the service after
        try:  # the service is told this command let go of its socket on purpose
            connection.sendall(b"done\n")
        except OSError:
            pass
        return int(line.split()[1])
    sys.stderr.write("error: the pipeline service stopped before the command ended\n")
    return 1


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _restore(handlers: dict, pending: list[int]) -> None:
    """Put the signal handlers back; a signal that came meanwhile is raised again."""
    for signum, handler in handlers.items():
        signal.signal(signum, handler)
    for signum in pending:
        os.kill(os.getpid(), signum)


# -- the service's side -----------------------------------------------------------------------
def preload() -> None:
    """Import every module of `pipeline` a command may need, and the libraries they import.

    Left out: the numba kernels (they start a thread, and compile per problem) and the Dask
    executor (Dask and distributed start threads and are 0.5 s of a start that `--executor
    dask` alone needs); each is imported by the command that uses it."""
    import importlib
    import pkgutil

    import pipeline

    for module in pkgutil.walk_packages(pipeline.__path__, "pipeline."):
        if not module.name.endswith(("__main__", ".kernels", ".dask_executor")):
            importlib.import_module(module.name)


def code_stamp() -> dict[str, int]:
    """The modification time of each loaded module's file of `pipeline`, and of each loaded
    top-level library's: a change of one means the service runs old code."""
    package = _package_dir() + os.sep
    stamp = {}
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if not path or not (path.startswith(package) or "." not in name):
            continue
        try:
            stamp[path] = os.stat(path).st_mtime_ns
        except OSError:
            stamp[path] = -1
    return stamp


def _stale(stamp: dict[str, int]) -> bool:
    for path, mtime in stamp.items():
        try:
            if os.stat(path).st_mtime_ns != mtime:
                return True
        except OSError:
            if mtime != -1:
                return True
    return False


class ServiceError(Exception):
    """A service cannot start (one runs already, or its folder is not private)."""


def serve(idle_timeout_s: float, run_command: Callable[[list[str]], object],
          prepare: Callable[[], None] = lambda: None,
          say: Callable[[str], None] | None = None) -> int:
    """Serve this installation's socket until stopped (SIGINT, SIGTERM) or idle for
    `idle_timeout_s` seconds (0: never), running each command's argv with `run_command` (which
    returns what the command exits with, as `SystemExit.code`) in a copy of this process; the
    exit status. `prepare` runs once the modules are loaded (what every copy should find
    done); `say` prints a line."""
    import gc
    import select

    say = say or (lambda line: print(line, file=sys.stderr, flush=True))
    if not hasattr(os, "pidfd_open"):
        raise ServiceError("pipeline serve needs Linux 5.3 or later (pidfd_open)")
    path = socket_path()
    listener = _listen(path)
    inode = os.stat(path).st_ino
    started = time.monotonic()
    preload()
    prepare()
    gc.freeze()  # what is loaded stays as it is: a copy's collections never walk (or write) it
    stamp = code_stamp()
    say(f"pipeline service: serving {path} (pid {os.getpid()}, ready in "
        f"{time.monotonic() - started:.1f} s); stop it with Ctrl-C or `kill {os.getpid()}`")
    commands: dict[int, _Command] = {}  # by pidfd
    restart = False
    last_active = time.monotonic()

    def stop(signum, _frame) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGHUP, stop)
    try:
        while True:
            if restart and not commands:
                break
            readable: list[Any] = [listener, *(c.pidfd for c in commands.values()),
                        *(c.connection for c in commands.values() if not c.hung_up)]
            timeout = None
            if idle_timeout_s > 0 and not commands:
                timeout = max(0.0, last_active + idle_timeout_s - time.monotonic())
            ready, _, _ = select.select(readable, [], [], timeout)
            if not ready and not commands and idle_timeout_s > 0 \
                    and time.monotonic() - last_active >= idle_timeout_s:
                say(f"pipeline service: idle for {idle_timeout_s:g} s, stopping")
                break
            for item in ready:
                if item is listener:
                    command = _accept(listener, None if restart else stamp, readable,
                                      run_command)
                    if command is _STALE:
                        if not restart:
                            say("pipeline service: the pipeline's code changed on disk; "
                                "restarting with it once no command runs")
                        restart = True
                    elif isinstance(command, _Command):
                        commands[command.pidfd] = command
                    last_active = time.monotonic()
                elif isinstance(item, int):
                    _finished(commands.pop(item), say)
                    last_active = time.monotonic()
                else:  # the command's end of the socket: `done` once it has the status
                    for command in commands.values():  # (not one reaped just now)
                        if command.connection is item and not command.hung_up:
                            command.readable()
    except KeyboardInterrupt:
        say("pipeline service: stopping")
        _stop_all(commands, say)
    finally:
        _unlink_if_ours(path, inode)
        listener.close()
    if restart:
        say("pipeline service: restarting")
        sys.stderr.flush()
        os.execv(sys.executable, [sys.executable, "-m", "pipeline", "serve",
                                  "--idle-timeout", f"{idle_timeout_s:g}"])
    return 0


def _listen(path: str) -> socket.socket:
    folder = os.path.dirname(path)
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
    except OSError as error:
        raise ServiceError(
            f"cannot make the service's folder {folder}: {error.strerror}") from error
    if not _private_dir(folder):
        raise ServiceError(f"the service's folder {folder} is not a folder of this user's that "
                           "only this user may enter")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(path)
    except OSError:  # none listens: a socket file left by a service that died is removed
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
    else:
        raise ServiceError(f"a pipeline service already serves {path}")
    finally:
        probe.close()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    return listener


def _unlink_if_ours(path: str, inode: int) -> None:
    """Remove the socket file, unless another service has put its own there since."""
    try:
        if os.stat(path).st_ino == inode:
            os.unlink(path)
    except OSError:
        pass


class _Command:
    """A command the service runs: its process (and a descriptor that is readable once it has
    ended), the connection to the command waiting for it, what it is."""

    def __init__(self, pid: int, connection: socket.socket, argv: list[str]) -> None:
        self.pid = pid
        self.pidfd = os.pidfd_open(pid)
        self.connection = connection
        self.argv = argv
        self.started = time.monotonic()
        self.hung_up = False  # nothing more to read from the waiting command
        self.gone = False  # the waiting command died before its copy ended

    def readable(self) -> None:
        """The waiting command's end of the socket has something: `done` (it has its status
        and let go), or its end (it died or was killed before: the copy is interrupted)."""
        self.hung_up = True  # either way, nothing more to watch on it
        try:
            said = self.connection.recv(16, socket.MSG_DONTWAIT)
        except OSError:
            said = b""
        if said.startswith(b"done"):
            return
        self.gone = True
        self.send(signal.SIGTERM)

    def send(self, signum: int) -> None:
        """Send the copy `signum` (by its pidfd: never to another process that took its pid)."""
        try:
            signal.pidfd_send_signal(self.pidfd, signum)
        except OSError:  # it has ended
            pass


_STALE = object()


def _accept(listener: socket.socket, stamp: dict[str, int] | None, others: list,
            run_command: Callable[[list[str]], object]) -> object:
    """Take one command from the socket and start it: its `_Command`, `_STALE` when the code
    on disk changed since `stamp` was taken or the service is to restart (None; the command
    is told to run itself), or None (nothing to run)."""
    connection, _ = listener.accept()
    try:
        connection.settimeout(REQUEST_TIMEOUT_S)
        credentials = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                            struct.calcsize("3i"))
        _peer_pid, peer_uid, _peer_gid = struct.unpack("3i", credentials)
        if peer_uid != os.getuid():
            connection.close()
            return None
        request, descriptors = _read_request(connection)
    except (OSError, ValueError):
        connection.close()
        return None
    try:
        if stamp is None or _stale(stamp):
            connection.sendall(b"cold the service's code is older than the files on disk\n")
            connection.close()
            return _STALE
        pid = os.fork()
        if pid == 0:
            _child(request, descriptors, connection, [listener, *others], run_command)
        connection.sendall(f"pid {pid}\n".encode())
        connection.settimeout(None)
        return _Command(pid, connection, request["argv"])
    except OSError:
        connection.close()
        return None
    finally:
        for descriptor in descriptors:
            os.close(descriptor)


def _read_request(connection: socket.socket) -> tuple[dict, list[int]]:
    size = socket.CMSG_SPACE(3 * array.array("i").itemsize)
    data, ancillary, _flags, _ = connection.recvmsg(_HEADER.size, size)
    descriptors: list[int] = []
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            found = array.array("i")
            found.frombytes(payload[:len(payload) - len(payload) % found.itemsize])
            descriptors += list(found)
    try:
        if len(data) != _HEADER.size or len(descriptors) != 3:
            raise ValueError("not a pipeline command's request")
        (length,) = _HEADER.unpack(data)
        if length > _MAX_REQUEST:
            raise ValueError("request too large")
        body = bytearray()
        while len(body) < length:
            chunk = connection.recv(length - len(body))
            if not chunk:
                raise ValueError("request cut short")
            body += chunk
        request = json.loads(bytes(body))
        if not isinstance(request.get("argv"), list) or not isinstance(request.get("env"), dict):
            raise ValueError("not a pipeline command's request")
    except BaseException:
        for descriptor in descriptors:
            os.close(descriptor)
        raise
    return request, descriptors


def _child(request: dict, descriptors: list[int], connection: socket.socket,
           service_sockets: list, run_command: Callable[[list[str]], object]) -> None:
    """In the forked copy: become the command, run it, exit with its status. Never returns.

    The copy tells the waiting command its status itself, once it has done all but end (its
    workers and programs are gone, its output flushed, its locks let go): the end of a
    process this size (unmapping what it shares with the service) is 10-30 ms the command
    need not wait for. The service still reaps it, and says how it ended if it died before
    saying so."""
    try:
        os.setsid()
        from pipeline.programs.processes import die_with_parent

        die_with_parent(os.getppid(), signal.SIGTERM)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
            signal.signal(signum, signal.SIG_DFL)
        for item in service_sockets:  # the listener, connections, other commands' pidfds
            try:
                if isinstance(item, int):
                    os.close(item)
                else:
                    item.close()
            except OSError:
                pass
        for target, descriptor in enumerate(descriptors):
            os.dup2(descriptor, target)
        for descriptor in descriptors:
            if descriptor > 2:
                os.close(descriptor)
        os.environ.clear()
        os.environ.update({str(k): str(v) for k, v in request["env"].items()})
        os.umask(int(request.get("umask", 0o022)))
        import tempfile

        tempfile.tempdir = None  # the command's TMPDIR, not the service's
        _standard_streams()
        sys.argv = [str(request.get("argv0") or "pipeline"), *map(str, request["argv"])]
        try:
            os.chdir(request["cwd"])
        except OSError as error:
            print(f"error: cannot enter the current folder {request['cwd']}: "
                  f"{error.strerror}", file=sys.stderr)
            os._exit(1)
        from pipeline.commands.ending import exit_now

        def announce(status: int) -> None:
            # done: no signal may interrupt what is left, the process's own end
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM,
                                                      signal.SIGHUP})
            try:
                connection.sendall(f"exit {status}\n".encode())
            except OSError:
                pass

        exit_now(run_command(sys.argv[1:]), announce)
    except BaseException as error:  # a bug of the service's: said in one line, as a command's
        try:
            os.write(2, f"internal error: the pipeline service could not start the command: "
                        f"{type(error).__name__}: {error}\n".encode())
        except OSError:
            pass
    os._exit(70)


def _standard_streams() -> None:
    """sys.stdin, stdout and stderr on the command's descriptors, buffered as Python would
    buffer them for it (line by line on a terminal; stderr always; none when PYTHONUNBUFFERED
    is set)."""
    import io

    unbuffered = bool(os.environ.get("PYTHONUNBUFFERED"))
    encoding, _, errors = os.environ.get("PYTHONIOENCODING", "").partition(":")
    for name, descriptor, mode in (("stdin", 0, "r"), ("stdout", 1, "w"), ("stderr", 2, "w")):
        old = getattr(sys, name)
        try:
            terminal = os.isatty(descriptor)
        except OSError:
            terminal = False
        line_buffered = mode == "w" and (terminal or name == "stderr")
        try:
            binary = open(descriptor, mode + "b", closefd=False,
                             buffering=0 if unbuffered and mode == "w" else -1)
            stream = io.TextIOWrapper(
                binary, encoding=encoding or getattr(old, "encoding", None) or "utf-8",
                errors=errors or getattr(old, "errors", None) or "strict",
                line_buffering=line_buffered and not unbuffered,
                write_through=unbuffered and mode == "w")
        except (OSError, ValueError):
            continue
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


def _finished(command: _Command, say) -> None:
    """Reap a command's copy and send the waiting command its exit status."""
    import shlex

    try:
        _, wait_status = os.waitpid(command.pid, 0)
        code = os.waitstatus_to_exitcode(wait_status)
    except ChildProcessError:
        code = 1
    os.close(command.pidfd)
    status = code if code >= 0 else 128 - code
    try:
        command.connection.sendall(f"exit {status}\n".encode())
    except OSError:
        pass
    command.connection.close()
    say(f"pipeline service: `pipeline {shlex.join(command.argv)}` (pid {command.pid}) "
        f"exit {status} in {time.monotonic() - command.started:.2f} s"
        + (" (its command was gone)" if command.gone else ""))


def _stop_all(commands: dict[int, _Command], say) -> None:
    """Interrupt the commands still running (SIGTERM) and wait for them, killing those that
    outlast `STOP_TIMEOUT_S`."""
    import select

    for command in commands.values():
        command.send(signal.SIGTERM)
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while commands:
        left = deadline - time.monotonic()
        ready, _, _ = select.select(list(commands), [], [], max(0.0, left))
        if not ready:
            for command in commands.values():
                command.send(signal.SIGKILL)
            deadline = time.monotonic() + STOP_TIMEOUT_S
            continue
        for pidfd in ready:
            _finished(commands.pop(pidfd), say)
