"""The compiled launcher of external programs (`launcher.c`): built once per machine, then found.

`launcher_path()` compiles `launcher.c` on first use with the machine's C compiler (`$CC`, else
`cc`, else `gcc`), statically linked where the C library allows it (it then starts about
0.2 ms sooner) and dynamically otherwise, into the user's cache folder
(`$XDG_CACHE_HOME/gamebench/`, by default `~/.cache/gamebench/`; a folder under the system's
temporary folder when that is not writable). The file is named by the hash of the source and
the compiler, so an edited launcher is a new file; it is compiled under a temporary name and
renamed into place, so processes compiling at the same time never see half a file.

Where no compiler works, `launcher_path()` is None and `launcher_problem()` says why: external
programs then run without the launcher (see `external`).

`sandbox_template` builds a sandbox template (once per worker and set of visible paths) and
keeps its namespaces as file descriptors. `probe(sandbox)` runs the launcher once on `true`
the way a case would run, and tells how programs will be contained (a PID namespace or a
subreaper) and whether the sandbox works here.
"""

from __future__ import annotations

import hashlib
import os
import select
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

SOURCE = Path(__file__).with_name("launcher.c")
COMPILE_TIMEOUT_S = 120
TEMPLATE_TIMEOUT_S = 10.0


def _compiler() -> list[str] | None:
    """The C compiler's command: `$CC` (which may carry flags) when set, else cc, else gcc."""
    if os.environ.get("CC"):
        words = shlex.split(os.environ["CC"])
        found = shutil.which(words[0]) if words else None
        return [found, *words[1:]] if found else None  # no silent substitute for a given $CC
    found = shutil.which("cc") or shutil.which("gcc")
    return [found] if found else None


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    folder = Path(base) / "gamebench"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if os.access(folder, os.W_OK):
            return folder
    except OSError:
        pass
    folder = Path(tempfile.gettempdir()) / f"gamebench-cache-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder


_problem: str | None = None


@lru_cache(maxsize=1)
def launcher_path() -> Path | None:
    """The compiled launcher, compiling it first if this machine has none yet."""
    global _problem
    compiler = _compiler()
    if compiler is None:
        _problem = (f"no C compiler ($CC={os.environ['CC']!r} not found)" if os.environ.get("CC")
                    else "no C compiler (cc or gcc) to build the launcher")
        return None
    source = SOURCE.read_bytes()
    digest = hashlib.sha256(source + b"\0" + "\0".join(compiler).encode()).hexdigest()[:16]
    target = cache_dir() / f"launcher-{digest}"
    if os.access(target, os.X_OK):
        return target
    errors = []
    for static in (["-static"], []):
        temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        try:
            built = subprocess.run([*compiler, "-O2", *static, "-o", str(temporary), str(SOURCE)],
                                   capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S)
        except (OSError, subprocess.SubprocessError) as error:
            errors.append(str(error))
            continue
        if built.returncode == 0:
            os.replace(temporary, target)
            return target
        temporary.unlink(missing_ok=True)
        errors.append(built.stderr.strip().splitlines()[-1] if built.stderr.strip() else
                      f"exit code {built.returncode}")
    _problem = f"compiling the launcher with {compiler[0]} failed: {errors[-1]}"
    return None


def launcher_problem() -> str | None:
    """Why `launcher_path()` is None (None when there is a launcher)."""
    launcher_path()
    return _problem


@dataclass(frozen=True)
class Probe:
    containment: str            # "pidns", "subreaper", or "worker" (no launcher)
    sandbox_error: str | None   # None when the sandbox works (if it was asked for)


def parse_result(text: str) -> dict[str, str]:
    """The launcher's result file as {key: value} (later lines win)."""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith(("setup_error=", "start_error=")):
            key, _, value = line.partition("=")
            fields[key] = value
            continue
        for word in line.split():
            key, _, value = word.partition("=")
            fields[key] = value
    return fields


class SandboxError(RuntimeError):
    """The launcher could not build a sandbox template."""


def sandbox_template(launcher: Path, root: Path, shared: Path,
                     visible: tuple[str, ...]) -> tuple[int, int]:
    """Build a sandbox template (see launcher.c's -T) and return file descriptors of its mount
    and network namespaces (close-on-exec; pass them to each case with -M and -N)."""
    argv = [str(launcher), "-T", str(root), "-S", str(shared)]
    for path in visible:
        argv += ["-b", path]
    holder = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, start_new_session=True)
    try:
        ready, _, _ = select.select([holder.stdout], [], [], TEMPLATE_TIMEOUT_S)
        line = holder.stdout.readline().decode("utf-8", "replace").strip() if ready else ""
        if line != "ready":
            problem = line.partition("=")[2] if line.startswith("setup_error=") else (
                line or f"no answer within {TEMPLATE_TIMEOUT_S:g} s")
            raise SandboxError(problem)
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


@lru_cache(maxsize=2)
def probe(sandbox: bool) -> Probe:
    """Run `true` under the launcher (in a sandbox if asked) as a case runs, and report what
    worked."""
    launcher = launcher_path()
    if launcher is None:
        return Probe("worker", launcher_problem() if sandbox else None)
    true = shutil.which("true", path="/usr/bin:/bin")
    if true is None:
        return Probe("worker", "no `true` program to probe the launcher with")
    with tempfile.TemporaryDirectory(prefix="gamebench-probe-") as folder:
        shared = Path(folder)
        shared.chmod(0o711)  # as a worker's scratch folder: user nobody passes through
        work = shared / "work"
        work.mkdir()
        result = shared / "result"
        argv = [str(launcher), "-o", str(result), "-d", str(work), "-w", "10000"]
        fds: tuple[int, ...] = ()
        try:
            if sandbox:
                fds = sandbox_template(launcher, shared / "root", shared, ())
                argv += ["-M", str(fds[0]), "-N", str(fds[1]), "-S", str(shared)]
            subprocess.run([*argv, "--", true], stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=30, start_new_session=True, pass_fds=fds)
            fields = parse_result(result.read_text())
        except SandboxError as error:
            return Probe(probe(False).containment, str(error))
        except (OSError, subprocess.SubprocessError) as error:
            return Probe("worker", f"the launcher did not run: {error}")
        finally:
            for fd in fds:
                os.close(fd)
    problem = fields.get("setup_error") or fields.get("start_error")
    if problem is None and fields.get("status") != "0":
        problem = f"`true` ended with wait status {fields.get('status')}"
    return Probe(fields.get("containment", "worker"), problem if sandbox else None)
