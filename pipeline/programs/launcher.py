"""The launcher of every program the pipeline runs (`launcher.c`), built once per machine as
native code (`pipeline.native`): statically linked with musl where `musl-gcc` is installed, else
with glibc, else dynamically; where no compiler works, `launcher_path()` is None and
`launcher_problem()` says why. `probe(sandbox)` tells how programs will be contained here.

Why musl first: the launcher starts once per run, and a glibc program's start reads the CPU's
cache layout with `cpuid`, which a virtual machine's hypervisor traps; musl's start does not.
"""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from pipeline import native
from pipeline.fsutil import scratch_folder

SOURCE = Path(__file__).with_name("launcher.c")
# musl's headers lack the kernel's (linux/, asm/): the system's, searched after musl's own
MUSL = native.program("launcher-musl", SOURCE, compilers=("musl-gcc",), flags=(
    "-O2", "-static", "-idirafter", "/usr/include",
    "-idirafter", f"/usr/include/{os.uname().machine}-linux-gnu"))
STATIC = native.program("launcher-static", SOURCE, flags=("-O2", "-static"))
DYNAMIC = native.program("launcher", SOURCE)
TEMPLATE_TIMEOUT_S = 60.0  # building one takes well under a second; a loaded machine more

_probing = threading.RLock()  # one probe at a time (reentrant: a failed sandbox probe asks again)


def _native_setting() -> tuple[str | None, ...]:
    """What of the environment decides which launcher there is (a test may switch native code
    off): the answers below are kept per setting."""
    return tuple(os.environ.get(name) for name in (
        native.SWITCH_VARIABLE, native.CACHE_VARIABLE, "XDG_CACHE_HOME", "HOME"))


def launcher_path() -> Path | None:
    """The compiled launcher (static where possible), building it first if needed."""
    return _launcher_for(_native_setting())[0]


def launcher_problem() -> str | None:
    """Why `launcher_path()` is None (None when there is a launcher)."""
    return _launcher_for(_native_setting())[1]


@lru_cache(maxsize=4)
def _launcher_for(setting: tuple[str | None, ...]) -> tuple[Path | None, str | None]:
    if not native.enabled():
        return None, native.SWITCHED_OFF
    errors = []
    for variant in (MUSL, STATIC, DYNAMIC):
        try:
            return native.build(variant), None
        except (native.BuildError, OSError) as error:
            errors.append(str(error))
    return None, f"the launcher cannot be built: {errors[-1]}"


@dataclass(frozen=True)
class Probe:
    containment: str            # "pidns", "subreaper", or "worker" (no launcher)
    sandbox_error: str | None   # None when the sandbox works (if it was asked for)


def parse_result(text: str) -> dict[str, str]:
    """The launcher's result file as {key: value} (later lines win)."""
    fields: dict[str, str] = {}
    for line in text.splitlines():  # an error's line is one field, its words the value
        for word in [line] if line.startswith(("setup_error=", "start_error=")) else line.split():
            key, _, value = word.partition("=")
            fields[key] = value
    return fields


class SandboxError(RuntimeError):
    """The launcher could not build a sandbox template."""


def sandbox_template(launcher: Path, hidden: tuple[str, ...]) -> tuple[int, int]:
    """Build a sandbox template (launcher.c's -T) hiding `hidden`; descriptors of its mount
    and network namespaces (for -M and -N)."""
    argv = [str(launcher), "-T", *(part for path in hidden for part in ("-H", path))]
    holder = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, start_new_session=True)
    assert holder.stdin and holder.stdout and holder.stderr  # all three are pipes
    try:
        ready, _, _ = select.select([holder.stdout], [], [], TEMPLATE_TIMEOUT_S)
        line = holder.stdout.readline().decode("utf-8", "replace").strip() if ready else ""
        if line != "ready":
            if line.startswith("setup_error="):
                raise SandboxError(line.partition("=")[2])
            if not ready:
                raise SandboxError(f"no answer within {TEMPLATE_TIMEOUT_S:g} s")
            # It ended without a word on stdout: what it said on stderr, if anything.
            holder.stdin.close()
            complaint = holder.stderr.read(500).decode("utf-8", "replace").strip()
            raise SandboxError(line or (complaint.splitlines() or [""])[0]
                               or f"the launcher ended without an answer "
                                  f"(exit status {holder.wait()})")
        return (os.open(f"/proc/{holder.pid}/ns/mnt", os.O_RDONLY | os.O_CLOEXEC),
                os.open(f"/proc/{holder.pid}/ns/net", os.O_RDONLY | os.O_CLOEXEC))
    finally:
        holder.stdin.close()  # the holder exits; the namespaces live on in the descriptors
        try:
            holder.wait(timeout=TEMPLATE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            holder.kill()
            holder.wait()
        holder.stdout.close()
        holder.stderr.close()


def read_result(fd: int) -> str:
    """Everything the launcher wrote into its result pipe (`fd`, the read end), to its end."""
    return b"".join(iter(lambda: os.read(fd, 4096), b"")).decode("utf-8", "replace")


def probe(sandbox: bool) -> Probe:
    """Run `true` under the launcher (in a sandbox if asked) as a case runs; what worked
    (once a process and native setting). Unsandboxed, a sandbox probe that worked answers
    already: the sandbox needs the PID namespace the launcher makes outside it too."""
    setting = _native_setting()
    with _probing:
        if not sandbox and (sandboxed := _sandbox_worked.get(setting)) is not None:
            return Probe(sandboxed.containment, None)
        found = _probe(sandbox, setting)
        if sandbox and found.sandbox_error is None:
            _sandbox_worked[setting] = found
        return found


_sandbox_worked: dict[tuple[str | None, ...], Probe] = {}  # setting -> its sandbox probe


@lru_cache(maxsize=8)
def _probe(sandbox: bool, setting: tuple[str | None, ...]) -> Probe:
    launcher = launcher_path()
    if launcher is None:
        return Probe("worker", launcher_problem() if sandbox else None)
    true = shutil.which("true", path="/usr/bin:/bin")
    if true is None:
        return Probe("worker", "no `true` program to probe the launcher with")
    with scratch_folder(prefix="gamebench-probe-") as folder:
        work = Path(folder) / "work"
        work.mkdir()
        result_read, result_write = os.pipe2(os.O_CLOEXEC)
        argv = [str(launcher), "-D", str(result_write), "-d", str(work), "-w", "10000"]
        fds: tuple[int, ...] = ()
        try:
            if sandbox:
                fds = sandbox_template(launcher, ())
                argv += ["-M", str(fds[0]), "-N", str(fds[1])]
            subprocess.run([*argv, "--", true], stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=30, start_new_session=True, pass_fds=(*fds, result_write))
            os.close(result_write)
            result_write = -1
            fields = parse_result(read_result(result_read))
        except SandboxError as error:
            return Probe(probe(False).containment, str(error))
        except (OSError, subprocess.SubprocessError) as error:
            return Probe("worker", f"the launcher did not run: {error}")
        finally:
            for fd in (*fds, result_read, result_write):
                if fd >= 0:
                    os.close(fd)
    problem = fields.get("setup_error") or fields.get("start_error")
    if problem is None and fields.get("status") != "0":
        problem = f"`true` ended with wait status {fields.get('status')}"
    return Probe(fields.get("containment", "worker"), problem if sandbox else None)
