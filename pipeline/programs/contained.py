"""The one runner of every program the pipeline runs: `run` (or `start` and `finish`, for the
two sides of an interactive pair) takes one program, its stdio, a folder, `Limits` and the
sandbox switch into one `Measured`.

1. The launcher (`launcher.c`) runs it as the init of a new PID namespace: its peak memory is
   its own, its descendants die with it; a pids cgroup of this process caps its processes.
2. Sandboxed, it sees the file system read-only but for `hidden_paths`, writes only its folder
   and a private /tmp (a tmpfs of `Limits.written_bytes`), with no network or capabilities.
3. Its CPU time is held to its limit and its own clock (wall clock less waits for a core) to
   `wall_cap_s`; starved of a core far past that (`busy_s`) it is not judged.
4. Without a C compiler it runs in a session of its own, unsandboxed (`Measured.floor_kb`).

Details: docs/commands.md ("Limits and containment") and docs/faults.md.
"""

from __future__ import annotations

import contextlib
import functools
import glob
import itertools
import os
import re
import resource
import select
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from pipeline.errors import UserError
from pipeline.programs.launcher import (
    SandboxError,
    launcher_path,
    launcher_problem,
    parse_result,
    probe,
    read_result,
    sandbox_template,
)
from pipeline.programs.processes import (
    CLOCK_TICKS,
    NextChildNamespace,
    die_with_parent,
    end_sessions,
    ownerless,
    proc_stats,
    stat_fields,
)

MB = 1024 * 1024
# How long past the wall-clock cap the caller waits for the launcher before stopping it.
LAUNCHER_GRACE_S = 10.0  # (a fork bomb's hundreds of processes take a while to die)
CPU_POLL_S = 0.05  # without the launcher: how often the program's CPU time is looked at
CREDIT_STEP_S = 0.05  # `first_ended`: the least time between two looks at the waits credited
PROCESS_CAP = 256  # processes and threads of one caller's programs at once (the pids cgroup)
HIDE_ENV = "PIPELINE_HIDDEN_DATA"  # data folders hidden from contained programs (os.pathsep)
KEPT_IN_DATA = ("build", "problems")  # what of a data folder stays in sight
# --sandbox: used where it works (saying why not in the run's summary), refused to run
# without, or never used; a command decides once (`set_sandbox`), each job carries it.
SANDBOX_MODES = ("auto", "on", "off")

# The user's private files that no contained program sees, under each home folder.
SENSITIVE_IN_HOME = (".ssh", ".gnupg", ".aws", ".azure", ".config/gcloud", ".kube", ".docker",
                     ".netrc", ".git-credentials", ".pgpass", ".my.cnf", ".password-store",
                     ".local/share/keyrings", ".bash_history", ".zsh_history", ".history",
                     ".python_history", ".node_repl_history", ".mysql_history", ".psql_history",
                     ".sqlite_history", ".lesshst", ".viminfo")
SENSITIVE_ON_MACHINE = ("/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-",
                        "/etc/sudoers", "/etc/sudoers.d", "/etc/ssh/ssh_host_rsa_key",
                        "/etc/ssh/ssh_host_ecdsa_key", "/etc/ssh/ssh_host_ed25519_key",
                        "/run")  # /run: the machine's daemons' sockets

Stream = int | IO[bytes] | None


@dataclass(frozen=True)
class Limits:
    """What a program may use. None: no limit of that kind."""

    memory_mb: int | None = None      # address space (RLIMIT_AS)
    stack_mb: int | None = None       # RLIMIT_STACK
    file_bytes: int | None = 64 * MB  # each file it writes, stdout and stderr too (RLIMIT_FSIZE)
    cpu_s: float | None = None        # killed once it has used this much CPU time
    wall_s: float | None = None       # killed once this much wall-clock time has passed
    written_bytes: int | None = None  # sandbox: its folder and /tmp in total (None: file_bytes)
    truncate_output: bool = False     # a write past file_bytes fails (SIGXFSZ ignored), not kills


@dataclass(frozen=True)
class Measured:
    """What one run of a program came to, as the launcher (or this process) measured it."""

    status: int | None = None   # wait status; None if it never ran or was never reaped
    cpu_ms: float | None = None
    rss_kb: int | None = None
    wall_ms: float | None = None
    killed: str = "none"        # none, cpu, wall or term: who stopped it (busy: see `busy_s`)
    start_error: str | None = None
    setup_error: str | None = None
    written_full: bool = False  # it filled its capped folder and /tmp (sandbox)
    floor_kb: int = 0           # peak memory below this may be the caller's (no launcher)
    lost: bool = False          # the launcher died without cleaning up (what it left is ended)
    ended_ns: int | None = None  # time.monotonic_ns() when it was reaped (None: not known)
    unread: bool | None = None  # its stdout, a pipe, had no reader left when it ended

    @property
    def exit_code(self) -> int | None:
        """Its exit code, or minus the signal that ended it (None if it never ran)."""
        return None if self.status is None else os.waitstatus_to_exitcode(self.status)


# -- what is hidden and whether to sandbox -----------------------------------------------------

def hide(data_dir: str | Path) -> None:
    """Hide the data folder `data_dir` (`data_folder_hidden`) from every program contained
    from now on, here and (through the environment) in processes started from here."""
    real = os.path.realpath(data_dir)
    known = [p for p in os.environ.get(HIDE_ENV, "").split(os.pathsep) if p]
    if real not in known:
        os.environ[HIDE_ENV] = os.pathsep.join([*known, real])


@contextlib.contextmanager
def settings_kept() -> Iterator[None]:
    """What `hide` and `use_sandbox` set within it is undone at its end (a long-lived process
    runs one data folder after another)."""
    global _sandbox
    hidden, sandbox = os.environ.get(HIDE_ENV), _sandbox
    try:
        yield
    finally:
        if hidden is None:
            os.environ.pop(HIDE_ENV, None)
        else:
            os.environ[HIDE_ENV] = hidden
        _sandbox = sandbox


def data_folder_hidden(data_dir: str | Path) -> tuple[str, ...]:
    """What of a data folder no program sees: all but its builds and the problems' package
    copies (validators read answer files there); kept while its entries are unchanged."""
    try:
        found = os.stat(data_dir)
    except OSError:
        return ()
    key, stamp = os.fspath(data_dir), (found.st_dev, found.st_ino, found.st_mtime_ns)
    kept = _data_hidden.get(key)
    if kept is not None and kept[0] == stamp:
        return kept[1]
    real = os.path.realpath(data_dir)
    try:
        entries = sorted(os.listdir(real))
    except OSError:
        return ()
    hidden = tuple(os.path.join(real, e) for e in entries if e not in KEPT_IN_DATA)
    return _remember(_data_hidden, 64, key, (stamp, hidden))[1]


_data_hidden: dict[str, tuple[tuple[int, int, int], tuple[str, ...]]] = {}


def _remember(cache: dict, most: int, key: object, value: tuple) -> tuple:
    if len(cache) > most:
        cache.clear()
    cache[key] = value
    return value


@dataclass(frozen=True)
class SandboxChoice:
    enabled: bool
    note: str | None  # for the run's summary: why the sandbox is off although not refused


def choose_sandbox(mode: str) -> SandboxChoice:
    """Whether programs run sandboxed under `mode`; a UserError for `on` where it cannot."""
    if mode not in SANDBOX_MODES:
        raise UserError(f"--sandbox must be one of {', '.join(SANDBOX_MODES)}, not {mode!r}")
    if mode == "off":
        return SandboxChoice(False, None)
    problem = probe(True).sandbox_error
    if problem is None:
        return SandboxChoice(True, None)
    if mode == "on":
        raise UserError(f"--sandbox on: the sandbox cannot work here: {problem}")
    return SandboxChoice(False, f"sandbox off: {problem}")


def set_sandbox(mode: str) -> None:
    """Set whether this process's programs run sandboxed (`auto`: decided where first
    needed, so a command that runs no program probes nothing)."""
    use_sandbox(None if mode == "auto" else choose_sandbox(mode).enabled)


def use_sandbox(enabled: bool | None) -> None:
    """Set whether this process's programs run sandboxed (None: not decided)."""
    global _sandbox
    _sandbox = enabled


def sandbox_switch() -> bool | None:
    """This process's sandbox switch as set (`use_sandbox`); None: not decided."""
    return _sandbox


def default_sandbox() -> bool:
    """This process's sandbox switch; not decided: wherever the sandbox works (`auto`)."""
    return _sandbox if _sandbox is not None else probe(True).sandbox_error is None


_sandbox: bool | None = None


def warm_up() -> None:
    """Probe how this process's programs will be contained (what `default_sandbox` and
    `containment_note` read) on a thread of its own, now: the first program to start, or the
    caller, finds the answer kept rather than waiting for it."""
    threading.Thread(target=probe, args=(_sandbox is not False,), name="sandbox probe",
                     daemon=True).start()


def hidden_paths(extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    """What a sandboxed program never sees, by real path: the `SENSITIVE_*` paths, the data
    folders given to `hide`, and `extra`; kept while the folders deciding it are unchanged."""
    key = (os.environ.get(HIDE_ENV, ""), os.environ.get("HOME", ""), extra)
    kept = _hidden_kept.get(key)
    if kept is not None and all(_mtime_ns(folder) == when for folder, when in kept[1]):
        return kept[0]
    found: list[str] = []
    data_folders = [data for data in key[0].split(os.pathsep) if data]
    folders = {"/home", *data_folders}
    homes = sorted(h for h in {os.path.expanduser("~"), "/root", *glob.glob("/home/*")}
                   if os.path.isdir(h))
    candidates = [*(os.path.join(h, name) for h in homes for name in SENSITIVE_IN_HOME),
                  *SENSITIVE_ON_MACHINE,
                  *(hidden for data in data_folders for hidden in data_folder_hidden(data)),
                  *extra]
    for path in candidates:
        real = os.path.realpath(path)
        folders.update((os.path.dirname(os.path.abspath(path)), os.path.dirname(real)))
        if os.path.lexists(real) and real not in found:
            found.append(real)
    watched = tuple((folder, _mtime_ns(folder)) for folder in sorted(folders))
    return _remember(_hidden_kept, 64, key, (tuple(sorted(found)), watched))[0]


_hidden_kept: dict[tuple, tuple[tuple[str, ...], tuple[tuple[str, int | None], ...]]] = {}


def _mtime_ns(folder: str) -> int | None:
    try:
        return os.stat(folder).st_mtime_ns
    except OSError:
        return None


def shown_under_tmp(argv: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The existing paths under /tmp a program's command names (a file's folder in its place,
    also within an option: `-I/tmp/inc`, `-cp /tmp/a.jar:/tmp/b`), shown in its private /tmp."""
    return _named_under_tmp(argv)[0]


def _bound(argv: list[str], shown: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """What a sandboxed program's /tmp shows read-only: `shown`, the paths its command names
    and the pipeline's Python; kept per command (a worker runs one on hundreds of cases)."""
    key = (tuple(argv), tuple(shown), os.environ.get("PATH"))
    kept = _bound_kept.get(key)
    if kept is not None and all(os.path.exists(path) for path in kept[1]):
        return kept[0]
    named, complete = _named_under_tmp(argv)
    bound = _outermost([*shown, *named, *pipeline_python()])
    if complete:
        _remember(_bound_kept, 256, key, (bound, named))
    return bound


_bound_kept: dict[tuple, tuple[tuple[str, ...], tuple[str, ...]]] = {}


def _named_under_tmp(argv: tuple[str, ...] | list[str]) -> tuple[tuple[str, ...], bool]:
    """`shown_under_tmp`, and whether every path under /tmp the command names exists."""
    complete = True
    shown: list[str] = []
    words = [shutil.which(argv[0]) or argv[0], *argv[1:]] if argv else []
    words += _interpreter(words[0]) if words else []
    for word in words:
        for part in _paths_named(word):
            # Both the path as named (it may pass through a link: `.../gen/gen.py` where `gen`
            # links to its build) and where it really is.
            for path in dict.fromkeys((os.path.abspath(part), os.path.realpath(part))):
                if not path.startswith("/tmp/"):
                    continue
                if not os.path.exists(path):
                    complete = False
                    continue
                folder = os.path.dirname(path)
                shown.append(path if os.path.isdir(path) or folder == "/tmp" else folder)
    return _outermost(shown), complete


def _paths_named(word: str) -> list[str]:
    """The absolute paths one word may name: itself, what follows its first `=`, and each
    piece between `=`, `:` and `,` (`-I/tmp/inc` names `/tmp/inc`)."""
    pieces = [piece[piece.index("/"):] if piece.startswith("-") and "/" in piece else piece
              for piece in re.split(r"[=:,]", word)]
    return [p for p in dict.fromkeys([word, word.partition("=")[2], *pieces]) if p.startswith("/")]


@functools.cache
def pipeline_python() -> tuple[str, ...]:
    """The paths under /tmp of the Python running the pipeline (the languages' `{python3}`)."""
    found = list(shown_under_tmp([sys.executable])) if sys.executable else []
    prefix = os.path.realpath(sys.prefix)
    if prefix.startswith("/tmp/") and os.path.isdir(prefix):
        found.append(prefix)
    return _outermost(found)


def _interpreter(program: str) -> list[str]:
    """The interpreter a script's `#!` line names ([] for none): it must show too."""
    try:
        with open(program, "rb") as handle:
            first = handle.readline(256)
    except OSError:
        return []
    return first[2:].decode("utf-8", "replace").split()[:1] if first.startswith(b"#!") else []


def _outermost(paths: list[str]) -> tuple[str, ...]:
    """`paths` without those inside another one (a bind of a folder shows what is in it)."""
    kept: list[str] = []
    for path in sorted(set(paths), key=len):
        if not any(path == k or path.startswith(k + "/") for k in kept):
            kept.append(path)
    return tuple(sorted(kept))


# -- the process cap: a pids cgroup of this process -------------------------------------------

_cgroup: str | None = None
_cgroup_problem: str | None = None
_cap_threads = 0  # this process's threads when pids.max was last written


def _pids_hierarchy() -> str | None:
    """Where this process's pids cgroup is (cgroup v1's pids controller, or v2 with pids)."""
    try:
        mounts = Path("/proc/self/mountinfo").read_text().splitlines()
        own = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    # This process's cgroup by controller (v1), the unified one (v2) under "".
    paths = {name: path for _, names, path in (entry.split(":", 2) for entry in own)
             for name in names.split(",")}
    for line in mounts:
        fields = line.split()
        dash = fields.index("-")
        kind, options, point = fields[dash + 1], fields[dash + 3], fields[4]
        if kind == "cgroup" and "pids" in options.split(",") and "pids" in paths:
            return point + paths["pids"].rstrip("/")
        if kind == "cgroup2" and os.path.exists(f"{point}/cgroup.controllers"):
            folder = point + paths.get("", "/").rstrip("/")
            with contextlib.suppress(OSError):
                if "pids" in Path(f"{folder}/cgroup.controllers").read_text().split():
                    return folder
    return None


@functools.cache
def _cgroups_base() -> str | None:
    """Where the pids cgroups of pipeline processes go (a worker's beside its parent's)."""
    own = _pids_hierarchy()
    return None if own is None else re.sub(r"(/gamebench-\d+)+$", "", own)


def process_cgroup() -> str | None:
    """The pids cgroup this process joined, capping its programs at `PROCESS_CAP` besides its
    own threads; joined once (a write to cgroup.procs takes a lock every fork waits for)."""
    global _cgroup, _cgroup_problem, _cap_threads
    if _cgroup is not None:
        with contextlib.suppress(OSError):
            _keep_cap()
        return _cgroup
    if _cgroup_problem is not None:
        return None
    base = _cgroups_base()
    if base is None:
        _cgroup_problem = "no pids cgroup controller on this machine"
        return None
    for stale in ownerless(Path(base).glob("gamebench-*"), lambda f: f.name.rsplit("-", 1)[1]):
        with contextlib.suppress(OSError):
            os.rmdir(stale)
    folder = f"{base}/gamebench-{os.getpid()}"
    try:
        os.makedirs(folder, exist_ok=True)
        _cgroup = folder
        _keep_cap()
        Path(folder, "cgroup.procs").write_text("0\n")
    except OSError as error:
        _cgroup, _cgroup_problem = None, f"cannot make a pids cgroup under {base}: {error.strerror}"
        return None
    return folder


def _keep_cap() -> None:
    """Keep pids.max at `PROCESS_CAP` besides this process's threads as they are now."""
    global _cap_threads
    threads = len(os.listdir("/proc/self/task"))
    if threads != _cap_threads:
        Path(f"{_cgroup}/pids.max").write_text(f"{PROCESS_CAP + threads}\n")
        _cap_threads = threads


def remove_process_cgroup() -> None:
    """Leave this process's pids cgroup and remove it (at the process's end)."""
    global _cgroup
    if _cgroup is not None:
        with contextlib.suppress(OSError):
            Path(f"{_cgroups_base()}/cgroup.procs").write_text("0\n")
            os.rmdir(_cgroup)
        _cgroup = None


def process_cap_note() -> str | None:
    """One line when programs run with no cap on their number of processes."""
    if launcher_path() is None or _cgroup is not None:
        return None  # (no launcher: `containment_note` says it)
    base = _pids_hierarchy()
    problem = _cgroup_problem or (
        "no pids cgroup controller on this machine" if base is None else
        None if os.access(base, os.W_OK) else f"cannot make a pids cgroup under {base}")
    return None if problem is None else f"no cap on the number of a program's processes ({problem})"


def containment_note() -> str | None:
    """One line for the run's summary when programs are less contained than they should be."""
    found = probe(False).containment
    if found == "worker":
        return (f"programs run without the launcher ({launcher_problem()}): their "
                "peak memory includes the worker's size, and a descendant that calls setsid "
                "outlives a worker killed with SIGKILL")
    if found == "subreaper":
        return ("no PID namespace here: the launcher kills the programs' descendants as a "
                "subreaper (one it has not found yet survives a SIGKILL of the launcher)")
    return process_cap_note()


# -- running -----------------------------------------------------------------------------------

class ChildTracker:
    """The launchers (or programs) running now, for a clean shutdown."""

    running: dict[int, bool] = {}  # pid -> started through the launcher
    sessions: dict[int, set[int]] = {}  # a program run without the launcher -> its sessions

    @classmethod
    def kill_current(cls) -> None:
        """Stop every program running now: a launcher by SIGTERM (it kills its program and
        every descendant), a program without one with the sessions it made."""
        for pid, via_launcher in list(cls.running.items()):
            if via_launcher:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGTERM)
        for sessions in list(cls.sessions.values()):
            end_sessions(sessions, reap=False)


@dataclass
class Started:
    """A program started by `start`, until `finish`."""

    pid: int | None
    wall_s: float
    result_fd: int = -1     # readable once it has ended: the launcher's result pipe, or its pidfd
    started: float = 0.0
    floor_kb: int = 0
    early: Measured | None = None  # it could not be started: what came of it

    def fileno(self) -> int:
        """What becomes readable when the program (and all it started) has ended."""
        return self.result_fd


_templates: dict[tuple[str, ...], tuple[int, int]] = {}
_namespace = NextChildNamespace()  # each launcher starts as the init of a new PID namespace
_exiting: list[int] = []  # launchers done with their program, still exiting: reaped later
# Threads of one process may start programs at once (the validators' tests): the template
# cache and the reaping of `_exiting` are taken by one thread at a time.
_shared = threading.Lock()


def _forget_in_a_child() -> None:
    """A forked child forgets its parent's programs, templates, descriptors and cgroup."""
    global _namespace, _shared, _cgroup, _cap_threads
    ChildTracker.running.clear()
    ChildTracker.sessions.clear()
    _templates.clear()
    _exiting.clear()
    _namespace, _shared = NextChildNamespace(), threading.Lock()
    _own_pidfd.cache_clear()
    _cgroup, _cap_threads = None, 0


os.register_at_fork(after_in_child=_forget_in_a_child)


def environment(home: bool = False) -> dict[str, str]:
    """A contained program's whole environment: PATH and LC_ALL=C (and HOME when asked)."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"}
    if home:
        env["HOME"] = os.environ.get("HOME", "/tmp")
    return env


def run(argv: tuple[str, ...] | list[str], *, stdin: Stream, stdout: Stream, stderr: Stream,
        workdir: Path, limits: Limits, sandbox: bool, hidden: tuple[str, ...] = (),
        shown: tuple[str, ...] = (), writable: tuple[str, ...] = (),
        kept: tuple[str, ...] = (), env: dict[str, str] | None = None) -> Measured:
    """Run `argv` contained in `workdir` (which must exist) and wait for it."""
    return finish(start(argv, stdin=stdin, stdout=stdout, stderr=stderr, workdir=workdir,
                        limits=limits, sandbox=sandbox, hidden=hidden, shown=shown,
                        writable=writable, kept=kept, env=env))


def start(argv: tuple[str, ...] | list[str], *, stdin: Stream, stdout: Stream, stderr: Stream,
          workdir: Path, limits: Limits, sandbox: bool, hidden: tuple[str, ...] = (),
          shown: tuple[str, ...] = (), writable: tuple[str, ...] = (),
          kept: tuple[str, ...] = (), env: dict[str, str] | None = None,
          release_stdio: bool = False) -> Started:
    """Start `argv` as `run` does; `finish` waits for it.

    Args: `hidden` adds to `hidden_paths()`; `shown`: paths under /tmp shown read-only;
    `writable`: written through, uncapped (a build's folder); `kept`: folders written as copies
    within `Limits.written_bytes`, copied back at its end; `release_stdio`: the launcher keeps
    no copy of its stdio."""
    argv = list(argv)
    env = env if env is not None else environment()
    wall_s = limits.wall_s if limits.wall_s is not None else 24 * 3600.0
    launcher = launcher_path()
    if launcher is None:
        if sandbox:
            return Started(None, wall_s, early=Measured(
                setup_error="the sandbox needs the launcher, and there is none"))
        return _start_in_process(argv, stdin, stdout, stderr, workdir, limits, env, wall_s,
                                 release_stdio)
    command = [str(launcher), "-d", os.path.realpath(workdir),
               "-a", str((limits.memory_mb or 0) * MB), "-s", str((limits.stack_mb or 0) * MB),
               "-f", str(limits.file_bytes or 0), *(["-X"] if limits.truncate_output else []),
               "-c", str(max(1, round(limits.cpu_s * 1000)) if limits.cpu_s else 0),
               "-w", str(max(1, round(wall_s * 1000))), *(["-R"] if release_stdio else [])]
    process_cgroup()
    fds: tuple[int, ...] = ()
    if sandbox:
        try:
            fds = _template(str(launcher), hidden_paths(hidden))
        except (SandboxError, OSError) as error:
            return Started(None, wall_s, early=Measured(
                setup_error=f"cannot build the sandbox: {error}"))
        command += ["-W", str(limits.written_bytes or limits.file_bytes or 64 * MB)]
        for flag, paths in (("-b", _bound(argv, shown)), ("-B", map(os.path.realpath, writable)),
                            ("-K", map(os.path.realpath, kept))):
            command += [part for path in paths for part in (flag, path)]
    _reap_exiting()
    result_read, result_write = os.pipe2(os.O_CLOEXEC)
    null = -1
    try:
        if subprocess.DEVNULL in (stdin, stdout, stderr):
            null = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
        stdio = [null if stream == subprocess.DEVNULL else
                 stream if stream is None or isinstance(stream, int) else stream.fileno()
                 for stream in (stdin, stdout, stderr)]
        passed = (_own_pidfd(), result_write, *fds)
        # Each descriptor the launcher gets lands above every one named here, so that no
        # copy overwrites one still to be copied; its stdio by way of one such copy too.
        top = max(2, *passed, *(fd for fd in stdio if fd is not None))
        given = [top + 1 + index for index in range(len(passed) + 3)]
        actions = [(os.POSIX_SPAWN_DUP2, fd, to) for fd, to in zip(passed, given)]
        for number, fd in enumerate(stdio):
            if fd is not None:
                staged = given[len(passed) + number]
                actions += [(os.POSIX_SPAWN_DUP2, fd, staged),
                            (os.POSIX_SPAWN_DUP2, staged, number)]
        command[1:1] = ["-P", str(given[0]), "-D", str(given[1]),
                        *(["-M", str(given[2]), "-N", str(given[3])] if fds else [])]
        entered = _namespace.enter()
        try:
            # The launcher closes every other descriptor it is given (a spawn closes none).
            pid = os.posix_spawn(command[0], [*command, "--", *argv], env,
                                 file_actions=actions, setsid=True,
                                 setsigdef=(signal.SIGPIPE, signal.SIGXFSZ))
        finally:
            if entered:
                _namespace.leave()
    except OSError as error:
        os.close(result_read)
        return Started(None, wall_s, early=Measured(
            setup_error=f"cannot start the launcher {launcher}: {error}"))
    finally:
        os.close(result_write)
        if null >= 0:
            os.close(null)
    ChildTracker.running[pid] = True
    return Started(pid, wall_s, result_read, time.perf_counter())


def finish(started: Started, stop_after_s: float | None = None) -> Measured:
    """Wait for a started program (and all it started) to end; what came of it.
    `stop_after_s`: stop it once this much more time has passed (`killed` term)."""
    if started.early is not None:
        return started.early
    pid = started.pid
    assert pid is not None  # only a program that never started (`early`) has none
    if isinstance(started, _InProcess):
        return _finish_in_process(started, pid, stop_after_s)
    try:
        # The launcher writes its result and closes the pipe once every process of the program
        # is dead; its own exit (tearing down its namespaces) goes on meanwhile.
        limit = started.wall_s + LAUNCHER_GRACE_S - (time.perf_counter() - started.started)
        if stop_after_s is not None and stop_after_s < limit:
            if not _readable(started.result_fd, max(0.0, stop_after_s)):
                os.kill(pid, signal.SIGTERM)  # it kills the program and all it started
        done = _readable(started.result_fd, max(0.0, limit))
        text = read_result(started.result_fd) if done else ""
    finally:
        os.close(started.result_fd)
        ChildTracker.running.pop(pid, None)
    if not done:
        os.kill(pid, signal.SIGTERM)
        if not _wait_for(pid, LAUNCHER_GRACE_S):
            os.kill(pid, signal.SIGKILL)
        os.wait4(pid, 0)
        end_sessions({pid})  # what it left (in its session: the caller started it in its own)
        return Measured(setup_error="the launcher did not finish within "
                        f"{started.wall_s + LAUNCHER_GRACE_S:g} s", lost=True)
    fields = parse_result(text)
    if "status" not in fields and "setup_error" not in fields:
        _, status, _ = os.wait4(pid, 0)  # it died without a word: what of?
        end_sessions({pid})
        return Measured(setup_error=f"the launcher ended with wait status {status} and no "
                        "result", lost=True)
    _exiting.append(pid)
    if "setup_error" in fields:
        return Measured(setup_error=fields["setup_error"])
    if "start_error" in fields:
        number, step, path = (fields["start_error"].split(" ", 2) + ["", ""])[:3]
        return Measured(start_error=f"{step} {path}: {os.strerror(int(number))}")
    return Measured(status=int(fields["status"]),
                    cpu_ms=(int(fields["user_us"]) + int(fields["sys_us"])) / 1000,
                    rss_kb=int(fields["rss_kb"]), wall_ms=int(fields["wall_us"]) / 1000,
                    unread=fields["unread"] == "1" if "unread" in fields else None,
                    killed=fields.get("killed", "none"),
                    written_full=fields.get("written") == "full",
                    ended_ns=int(fields["ended_ns"]) if "ended_ns" in fields else None)


def first_ended(watched: list[Started], wall_s: float, credit: Callable[[], float],
                stuck: Callable[[], bool] | None = None, every_s: float = 0.1,
                computing: Callable[[], bool] | None = None) -> Started | None:
    """The first of `watched` to end; None once `wall_s` has passed on their own clock (the
    wall clock less `credit()`) unless `computing()`, or at once when `stuck()` (asked every
    `every_s`)."""
    started = time.monotonic()
    deadline = started + wall_s
    while True:
        now = time.monotonic()
        wait = max(0.0, min(deadline - now, every_s) if stuck is not None else deadline - now)
        ready, _, _ = select.select(watched, [], [], wait)
        if ready:
            return next(one for one in watched if one in ready)
        now = time.monotonic()
        if now < deadline:
            if stuck is not None and stuck():
                return None
            continue
        own = now - started - credit()
        if own >= wall_s and (computing is None or not computing()):
            return None
        deadline = now + max(wall_s - own, CREDIT_STEP_S)


# The one rule of a program's time. Its wall clock is held to its CPU-time limit and this
# much more, on its own clock (a program that sleeps or waits is stopped there: TLE)...
WALL_PAST_S = 0.5
# ... and a program still short of that after this many times it on the wall clock has had
# less than a core's share of as much: the machine is too busy to judge it.
BUSY_FACTOR = 8


def wall_cap_s(cpu_s: float) -> float:
    """The cap, on its own clock, of a program whose CPU-time limit is `cpu_s`."""
    return cpu_s + WALL_PAST_S


def busy_s(cpu_s: float) -> float:
    """The wall clock past which a program short of `wall_cap_s` is stopped, not judged."""
    return BUSY_FACTOR * wall_cap_s(cpu_s)


def descendants(root: int, stats: dict[int, list[bytes]]) -> list[int]:
    """`root` and every process below it, by the parents in `stats` (`proc_stats`)."""
    tree, todo = [], [root] if root in stats else []
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(child for child, fields in stats.items() if int(fields[1]) == pid)
    return tree


def tree_times(root: int | None) -> tuple[float, float]:
    """The CPU seconds (with the children they reaped) and seconds waiting for a core of
    process `root` and its descendants; (0, 0) when it is gone."""
    return (0.0, 0.0) if root is None else _times(root, proc_stats())


def trees_times(roots: list[int]) -> dict[int, tuple[float, float]]:
    """`tree_times` of each of `roots` (a pool's workers): from its pids cgroup's processes,
    else from one look at all of /proc."""
    found, stats = {}, None
    for root in roots:
        members = _cgroup_members(root)
        if members is None:
            stats = stats if stats is not None else proc_stats()
            found[root] = _times(root, stats)
        else:
            found[root] = _sum_times(members, stat_fields)
    return found


def _cgroup_members(root: int) -> list[int] | None:
    base = _cgroups_base()
    if base is None:
        return None
    try:
        with open(f"{base}/gamebench-{root}/cgroup.procs", "rb") as handle:
            members = [int(pid) for pid in handle.read().split()]
    except (OSError, ValueError):
        return None
    return members if root in members else None


def _times(root: int, stats: dict[int, list[bytes]]) -> tuple[float, float]:
    return _sum_times(descendants(root, stats), stats.get)


def _sum_times(pids: list[int], fields_of: Callable[[int], list[bytes] | None]
               ) -> tuple[float, float]:
    """The CPU seconds (with the children they reaped) and waits for a core of `pids`."""
    cpu = waited = 0.0
    for pid in pids:
        fields = fields_of(pid)
        if fields is not None:
            cpu += sum(int(fields[i]) for i in (11, 12, 13, 14)) / CLOCK_TICKS
            waited += waited_s(pid)
    return cpu, waited


def waits_credited(root: int | None, since: float) -> float:
    """The seconds since `since` the program of launcher `root` is not charged: its waits for
    a core, but its own clock never below its CPU time (parallel waits add up past it)."""
    cpu, waited = tree_times(root)
    return min(waited, time.monotonic() - since - cpu)


def computing(root: int | None, cpu_s: float) -> bool:
    """Whether a thread of launcher `root`'s program is in state R and it is under `cpu_s`."""
    if root is None:
        return False
    stats = proc_stats()
    tree = descendants(root, stats)
    return any(runnable(pid) for pid in tree[1:]) and _times(root, stats)[0] < cpu_s


def runnable(pid: int) -> bool:
    """Whether a thread of process `pid` is on a core or waiting for one (state R)."""
    return any(stat.rsplit(b")", 1)[-1].split()[:1] == [b"R"] for stat in _threads(pid, "stat"))


def waited_s(pid: int) -> float:
    """The seconds the live threads of process `pid` have waited for a core (0: gone)."""
    waited = 0.0
    for line in _threads(pid, "schedstat"):
        with contextlib.suppress(IndexError, ValueError):
            waited += int(line.split()[1]) / 1e9
    return waited


def _threads(pid: int, name: str) -> Iterator[bytes]:
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return
    for thread in threads:
        try:
            with open(f"/proc/{pid}/task/{thread}/{name}", "rb") as handle:
                yield handle.read()
        except OSError:
            continue


def stop(started: Started) -> None:
    """Kill and reap a started program its caller will not finish, with all it started."""
    pid = started.pid
    if started.early is not None or pid is None or pid not in ChildTracker.running:
        return  # never started, or finished (`finish` forgets it as it closes its descriptors)
    if isinstance(started, _InProcess):
        _finish_in_process(started, pid, stop_after_s=0)  # killed, reaped, and what it left ended
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)  # its namespace dies with it; else its session ends
    end_sessions({pid})
    os.close(started.result_fd)
    ChildTracker.running.pop(pid, None)


def close_templates() -> None:
    """At exit: reap the launchers still exiting (else their programs' CPU time counts in no
    one's children), forget the templates and cgroup. Not under `_shared`: a SIGTERM's
    clean-up may run this while a thread holds it."""
    for pid in list(_exiting):
        with contextlib.suppress(ChildProcessError, ProcessLookupError):
            if not _wait_for(pid, LAUNCHER_GRACE_S):
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        with contextlib.suppress(ValueError):  # reaped by another thread meanwhile
            _exiting.remove(pid)
    while _templates:  # popped first: a SIGTERM may run this again midway
        for fd in _templates.popitem()[1]:
            with contextlib.suppress(OSError):
                os.close(fd)
    remove_process_cgroup()


def _reap_exiting() -> None:
    with _shared:
        for pid in list(_exiting):
            with contextlib.suppress(ChildProcessError):
                if os.waitpid(pid, os.WNOHANG)[0] == 0:
                    continue  # still exiting
            _exiting.remove(pid)


@functools.cache
def _own_pidfd() -> int:
    """A pidfd of this process: the launcher sees by it whether this process died early."""
    return os.pidfd_open(os.getpid())


def _template(launcher: str, hidden: tuple[str, ...]) -> tuple[int, int]:
    with _shared:
        if hidden not in _templates:
            _templates[hidden] = sandbox_template(Path(launcher), hidden)
        return _templates[hidden]


# -- without the launcher ------------------------------------------------------------------------

def _limits(limits: Limits, mark: int | None):
    """The preexec_fn that puts the program under its limits, and its `mark` on it."""
    memory = (limits.memory_mb or 0) * MB or resource.RLIM_INFINITY
    stack = (limits.stack_mb or 0) * MB or resource.RLIM_INFINITY
    cpu_seconds = int(limits.cpu_s) + 2 if limits.cpu_s else None

    def apply() -> None:
        die_with_parent(None)
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_STACK, (stack, stack))
        if limits.file_bytes:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes,) * 2)
        if limits.truncate_output:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # kept across exec
        if cpu_seconds:
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if mark is not None:
            resource.setrlimit(resource.RLIMIT_MSGQUEUE,
                               (mark, resource.getrlimit(resource.RLIMIT_MSGQUEUE)[1]))
    return apply


MARK_SPAN = 1 << 16  # programs run at once by one process without the launcher, at most
_marks = itertools.count()


def _mark() -> int | None:
    """A mark for the next program run without the launcher (its soft RLIMIT_MSGQUEUE): all
    it starts inherits it, so its orphans adopted here are told apart. None: no room."""
    hard = resource.getrlimit(resource.RLIMIT_MSGQUEUE)[1]
    top = 1 << 30 if hard == resource.RLIM_INFINITY else hard
    return top - 1 - next(_marks) % MARK_SPAN if top > MARK_SPAN else None


def _marked_sessions(mark: int | None) -> set[int]:
    if mark is None:
        return set()
    me = os.getpid()
    return {int(fields[3]) for pid, fields in proc_stats().items()
            if int(fields[1]) == me and _mark_of(pid) == mark}


def _mark_of(pid: int) -> int | None:
    with contextlib.suppress(OSError, ValueError, IndexError), \
            open(f"/proc/{pid}/limits") as handle:
        for line in handle:
            if line.startswith("Max msgqueue size"):
                return int(line.split()[3])
    return None


def _end_left(started: _InProcess) -> None:
    """End what a program run without the launcher left: its sessions and marked orphans."""
    while True:
        end_sessions(started.sessions)
        more = _marked_sessions(started.mark) - started.sessions
        if not more:
            return
        started.sessions.update(more)


@dataclass
class _InProcess(Started):
    cpu_s: float | None = None
    sessions: set[int] = field(default_factory=set)  # its own, and those its descendants made
    mark: int | None = None  # what it and all it starts carry (`_mark`)
    held: tuple[int, int] | None = None  # copies of its stdin and stdout pipes (`_unread`)


# How long an exiting reader may take to let go of a program's output (launcher.c's
# UNREAD_WAIT_MS), told without the launcher as with it.
UNREAD_WAIT_S = 1.0


def _start_in_process(argv, stdin, stdout, stderr, workdir, limits, env, wall_s,
                      release_stdio: bool = False) -> Started:
    with open("/proc/self/statm") as statm:  # this process's resident memory: a fork's start
        floor = int(statm.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)
    mark = _mark()
    started = time.perf_counter()
    try:
        process = subprocess.Popen(argv, stdin=stdin, stdout=stdout, stderr=stderr, cwd=workdir,
                                   env=env, start_new_session=True, close_fds=True,
                                   preexec_fn=_limits(limits, mark))
    except OSError as error:
        return Started(None, wall_s, early=Measured(
            start_error=f"exec {argv[0] if argv else ''}: {error.strerror or error}"))
    process.returncode = 0  # reaped here
    held = None if release_stdio else _held_pipes(stdin, stdout)
    sessions = {process.pid}  # (start_new_session: its session is its pid)
    ChildTracker.running[process.pid] = False
    ChildTracker.sessions[process.pid] = sessions
    return _InProcess(process.pid, wall_s, os.pidfd_open(process.pid), started, floor,
                      cpu_s=limits.cpu_s, sessions=sessions, mark=mark, held=held)


def _finish_in_process(started: _InProcess, pid: int, stop_after_s: float | None) -> Measured:
    try:
        killed = _watch(started, stop_after_s)
        if killed != "none":
            end_sessions(started.sessions, reap=False)  # (the program is reaped below)
        _, status, usage = os.wait4(pid, 0)
    finally:
        os.close(started.result_fd)
        ChildTracker.running.pop(pid, None)
    ended_ns = time.monotonic_ns()
    wall_ms = (time.perf_counter() - started.started) * 1000
    unread = _unread(started.held, status, killed)
    _end_left(started)  # what it started, of its session, those they made, its orphans
    ChildTracker.sessions.pop(pid, None)
    return Measured(status=status, cpu_ms=(usage.ru_utime + usage.ru_stime) * 1000,
                    rss_kb=int(usage.ru_maxrss), wall_ms=wall_ms, killed=killed,
                    floor_kb=started.floor_kb, ended_ns=ended_ns, unread=unread)


def _held_pipes(stdin: Stream, stdout: Stream) -> tuple[int, int] | None:
    """Copies of the program's stdin and stdout when both are pipes, kept until it is reaped."""
    fds = [stream if isinstance(stream, int) else getattr(stream, "fileno", lambda: -1)()
           for stream in (stdin, stdout)]
    if any(fd < 0 or not stat.S_ISFIFO(os.fstat(fd).st_mode) for fd in fds):
        return None
    return os.dup(fds[0]), os.dup(fds[1])


def _unread(held: tuple[int, int] | None, status: int, killed: str) -> bool | None:
    """Whether the reader of the program's output was gone when it was reaped, as launcher.c's
    `unread` tells it; None without held pipes. Closes them."""
    if held is None:
        return None
    stdin_fd, stdout_fd = held
    try:
        out = select.poll()
        out.register(stdout_fd, 0)
        unread = any(event & select.POLLERR for _, event in out.poll(0))
        if not unread and status != 0 and killed == "none":
            hung = select.poll()
            hung.register(stdin_fd, 0)
            if any(event & select.POLLHUP for _, event in hung.poll(0)):
                unread = any(event & select.POLLERR
                             for _, event in out.poll(int(UNREAD_WAIT_S * 1000)))
        return unread
    finally:
        os.close(stdin_fd)
        os.close(stdout_fd)


def _watch(started: _InProcess, stop_after_s: float | None) -> str:
    """Wait for the program to exit ("none"), or "cpu", "wall" or "term" when a limit comes
    first; notes the sessions its descendants make meanwhile."""
    deadline = started.started + started.wall_s
    stop_at = time.perf_counter() + stop_after_s if stop_after_s is not None else None
    while True:
        now = time.perf_counter()
        if now >= deadline:
            return "wall"
        if stop_at is not None and now >= stop_at:
            return "term"
        if _readable(started.result_fd, min(CPU_POLL_S, deadline - now)):
            return "none"
        stats = proc_stats()
        started.sessions.update(sessions_below(started.sessions, stats))
        fields = stats.get(started.pid or 0)
        if started.cpu_s is not None and fields is not None and \
                (int(fields[11]) + int(fields[12])) / CLOCK_TICKS >= started.cpu_s:
            return "cpu"


def sessions_below(sessions: set[int], stats: dict[int, list[bytes]]) -> set[int]:
    """The sessions made (setsid) by processes below those of `sessions` (by `stats`)."""
    children: dict[int, list[int]] = {}
    for pid, fields in stats.items():
        children.setdefault(int(fields[1]), []).append(pid)
    todo = [pid for pid, fields in stats.items() if int(fields[3]) in sessions]
    seen, found = set(todo), set(sessions)
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in seen:
                seen.add(child)
                found.add(int(stats[child][3]))
                todo.append(child)
    return found - sessions


def _readable(fd: int, timeout_s: float) -> bool:
    return bool(select.select([fd], [], [], timeout_s)[0])


def _wait_for(pid: int, timeout_s: float) -> bool:
    fd = os.pidfd_open(pid)
    try:
        return _readable(fd, timeout_s)
    finally:
        os.close(fd)
