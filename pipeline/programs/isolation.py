"""How a run isolates its programs: `--sandbox auto` uses the sandbox where it works (saying
why not in the run's summary), `on` refuses to run where it cannot, `off` never uses it. A
command decides once (`set_sandbox`); the decision travels with each job (`SolverSpec.sandbox`).
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.errors import UserError
from pipeline.programs.contained import process_cap_note, use_sandbox
from pipeline.programs.launcher import launcher_problem, probe

SANDBOX_MODES = ("auto", "on", "off")


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
    """Set under `mode` whether this process's programs run sandboxed: `on` where it cannot
    work is a UserError now; `auto` is decided where first needed (no program: no probe)."""
    use_sandbox(None if mode == "auto" else choose_sandbox(mode).enabled)


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
