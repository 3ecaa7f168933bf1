"""Timing hooks for `package_phases`: imported by a `sitecustomize` in every Python process of
a profiled `pipeline run` (the parent and its pool workers; contained programs get a clean
environment and never see it), when `PIPELINE_PHASES_LOG` names a file.

Each hooked function is wrapped right after its module is first imported (before any other
module can import the name), and every call appends one line `PID ROLE PHASE SECONDS` to the
log (O_APPEND: lines of several processes never mix). ROLE is `parent` or `worker`. Besides
the hooked calls, each process logs `start-up` once: the time from its start (from
/proc/self/stat) to its first hooked entry point (`runner.run` in the parent, `worker_main` in
a worker).
"""

from __future__ import annotations

import functools
import importlib.abc
import importlib.machinery
import os
import sys
import time

LOG_ENV = "PIPELINE_PHASES_LOG"

# module -> [(attribute, phase)]: the function looked up as `module.attribute` is timed as
# `phase`. Names imported into a module (`from x import f`) are hooked where they are called.
HOOKS: dict[str, list[tuple[str, str]]] = {
    "pipeline.run.runner": [("run", "run() in all"), ("write_results_chunk", "write results"),
                            ("write_run", "write run row"), ("_hold", "hold expectations"),
                            ("fill_expected", "fill expected"), ("load_cases", "load cases"),
                            ("solver_specs", "solver specs")],
    "pipeline.packages.submissions": [("derive_limit", "time-limit derivation pass")],
    "pipeline.packages.invalid": [("check_validators", "validators on invalid data")],
    "pipeline.run.worker": [("worker_main", "worker life"), ("execute", "job")],
    "pipeline.packages.runjob": [("submission_build", "build submission"),
                                 ("judge_case", "judge_case")],
    "pipeline.packages.problem": [("_builds", "build package programs"),
                                  ("_loaded", "load package")],
    "pipeline.packages.judge": [("run_external", "submission process"),
                                ("_check", "output validator / checker"),
                                ("run_exchange", "interactive pair")],
    "pipeline.programs.contained": [("start", "program start (launcher spawn)"),
                                    ("_template", "sandbox template")],
    "pipeline.programs.external": [("scratch_root", "scratch root")],
}
_ENTRY = {"run() in all": "parent", "worker life": "worker"}

_target: str | None = None
_role = "parent"
_started_logged = False


def _process_age_s() -> float:
    """Seconds since this process started (10 ms resolution)."""
    with open("/proc/self/stat", "rb") as handle:
        fields = handle.read().rsplit(b")", 1)[1].split()
    started = int(fields[19]) / os.sysconf("SC_CLK_TCK")
    return time.clock_gettime(time.CLOCK_BOOTTIME) - started


def log(phase: str, seconds: float) -> None:
    if _target is not None:  # opened at each line: the worker server closes what it inherits
        fd = os.open(_target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, f"{os.getpid()} {_role} {phase.replace(' ', '_')} {seconds:.6f}\n"
                     .encode())
        finally:
            os.close(fd)


def _wrap(function, phase: str):
    @functools.wraps(function)
    def timed(*args, **kwargs):
        global _role, _started_logged
        if phase in _ENTRY and not _started_logged:
            _role = _ENTRY[phase]
            _started_logged = True
            log("start-up", _process_age_s())
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            log(phase, time.perf_counter() - started)
    timed.__wrapped_phase__ = phase
    return timed


class _Loader(importlib.abc.Loader):
    def __init__(self, inner, name: str) -> None:
        self.inner, self.name = inner, name

    def create_module(self, spec):
        return self.inner.create_module(spec)

    def exec_module(self, module) -> None:
        self.inner.exec_module(module)
        for attribute, phase in HOOKS.get(self.name, ()):
            function = getattr(module, attribute, None)
            if callable(function) and not hasattr(function, "__wrapped_phase__"):
                setattr(module, attribute, _wrap(function, phase))


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name not in HOOKS:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _Loader(spec.loader, name)
        return spec


def install() -> None:
    global _target
    target = os.environ.get(LOG_ENV)
    if not target or _target is not None:
        return
    _target = target
    sys.meta_path.insert(0, _Finder())
