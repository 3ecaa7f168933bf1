"""How a run isolates its external programs: the sandbox setting, what it shows, what to say.

`--sandbox auto` (the default) runs each program in the launcher's sandbox where it works
(its own mount, network and IPC namespaces, as user nobody; see `launcher.c`) and otherwise
without it, saying why in one line of the run's summary; `on` refuses to run where it cannot
work; `off` never uses it. The sandbox shows the system folders, the case's working directory,
and what `visible_paths` picks from the program's command line; never the data folder.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from pipeline.errors import UserError
from pipeline.run.launcher import launcher_problem, probe

SANDBOX_MODES = ("auto", "on", "off")
# Shown by the launcher anyway (launcher.c's SYSTEM_FOLDERS).
SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")


@dataclass(frozen=True)
class SandboxChoice:
    enabled: bool
    note: str | None  # for the run's summary: why the sandbox is off although not refused


def choose_sandbox(mode: str) -> SandboxChoice:
    """Whether programs run sandboxed under `mode`; ValueError for `on` where it cannot."""
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


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def visible_paths(argv: tuple[str, ...], data_dir: Path) -> tuple[str, ...]:
    """What the sandbox shows of a command line, read-only: the program file; the folder it
    is installed in when it lives in a `bin/` folder (an interpreter finds its library
    there); and every argument that is an absolute path to something that exists. System
    folders are shown anyway; a folder that holds the data folder never is."""
    data = os.path.realpath(data_dir)
    shown: list[str] = []

    def show(path: str, whole_folder_ok: bool = True) -> None:
        path = os.path.abspath(path)
        if path in shown or any(_inside(path, folder) for folder in SYSTEM_FOLDERS):
            return
        if os.path.isdir(path) and (not whole_folder_ok or _inside(data, os.path.realpath(path))):
            return
        if os.path.exists(path):
            shown.append(path)

    if argv:
        show(argv[0], whole_folder_ok=False)
        real = os.path.realpath(argv[0])
        if os.path.basename(os.path.dirname(real)) == "bin":
            prefix = os.path.dirname(os.path.dirname(real))
            if prefix != "/":
                show(prefix)
    for word in argv[1:]:
        if word.startswith("/") and os.path.exists(word):
            show(word)
    kept: list[str] = []  # a path inside a shown folder is shown with it
    for path in sorted(shown, key=len):
        if not any(_inside(path, folder) for folder in kept):
            kept.append(path)
    return tuple(sorted(kept))


def sandbox_blocker(argv: tuple[str, ...]) -> str | None:
    """Why user nobody could not start this program (None when it can)."""
    if not argv:
        return None
    try:
        mode = os.stat(argv[0]).st_mode
        with open(argv[0], "rb") as handle:
            script = handle.read(2) == b"#!"
    except OSError as error:
        return f"{argv[0]}: {error.strerror}"
    needed = stat.S_IXOTH | (stat.S_IROTH if script else 0)
    if mode & needed != needed:
        return (f"{argv[0]} (mode {stat.S_IMODE(mode):04o}) cannot be "
                f"{'read and run' if script else 'run'} by other users, and the sandbox runs "
                "programs as user nobody")
    return None


def containment_note() -> str | None:
    """One line for the run's summary when programs are less contained than they should be."""
    found = probe(False).containment
    if found == "worker":
        return (f"external programs run without the launcher ({launcher_problem()}): their "
                "peak memory includes the worker's size, and a descendant that calls setsid "
                "outlives a worker killed with SIGKILL")
    if found == "subreaper":
        return ("no PID namespace here: the launcher kills the programs' descendants as a "
                "subreaper (one it has not found yet survives a SIGKILL of the launcher)")
    return None
