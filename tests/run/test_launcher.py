"""The launcher is compiled once into the native cache (`pipeline.native`), named by its hash,
and written whole even when several processes compile it at once; without a compiler there is
none, and the reason is told.

Each case runs `pipeline.programs.launcher` in a fresh Python process (its choices are made once
per process) with its own cache folder.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from runkit import REPO

FIND = "from pipeline.programs.launcher import launcher_path, launcher_problem; " \
       "print(launcher_path(), launcher_problem(), sep='|')"


def _find(cache, **env) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", FIND], cwd=REPO, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "PIPELINE_NATIVE_DIR": str(cache), **env})


def _path(process: subprocess.Popen) -> tuple[str, str]:
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    path, problem = out.strip().split("|")
    return path, problem


def test_the_launcher_is_compiled_once_into_the_cache_named_by_its_hash(tmp_path):
    path, problem = _path(_find(tmp_path))
    assert problem == "None"
    [built] = [p for p in tmp_path.iterdir() if not p.name.startswith(".")]
    assert str(built) == path and built.name.startswith("launcher-") and os.access(built, os.X_OK)
    modified = built.stat().st_mtime_ns
    again, _ = _path(_find(tmp_path))
    assert again == path and built.stat().st_mtime_ns == modified  # found, not rebuilt


def test_processes_compiling_at_once_all_get_a_whole_launcher(tmp_path):
    finders = [_find(tmp_path) for _ in range(4)]
    paths = {_path(finder)[0] for finder in finders}
    assert len(paths) == 1
    [path] = paths
    assert [p for p in tmp_path.iterdir() if not p.name.startswith(".")] == [Path(path)]
    probe = subprocess.run([path], capture_output=True, text=True)
    assert probe.returncode == 2 and "launcher:" in probe.stderr  # runs: a usage error


def test_without_a_compiler_there_is_no_launcher_and_the_reason_is_given(tmp_path):
    path, problem = _path(_find(tmp_path, PATH=str(tmp_path)))
    assert path == "None"
    assert problem.startswith("the launcher cannot be built: no C compiler on PATH"), problem
    assert not [p for p in tmp_path.iterdir() if not p.name.startswith(".")]


def test_a_cc_that_is_not_there_leaves_no_launcher_and_says_so(tmp_path):
    """$CC names the compiler to use: the musl build (musl-gcc's alone) stands aside too."""
    path, problem = _path(_find(tmp_path, CC=str(tmp_path / "no-cc")))
    assert path == "None"
    assert problem.startswith("the launcher cannot be built: $CC names "), problem
    assert "which is not on PATH" in problem
    assert not [p for p in tmp_path.iterdir() if not p.name.startswith(".")]


@pytest.mark.skipif(shutil.which("musl-gcc") is None, reason="musl-gcc is not installed "
                    "(make system installs musl-tools)")
def test_where_musl_is_installed_the_launcher_is_a_static_musl_program(tmp_path):
    """Its start makes no `cpuid` (glibc's start reads the CPU's caches with it, which a
    virtual machine traps): no program interpreter, and no glibc in it."""
    path, problem = _path(_find(tmp_path))
    assert problem == "None" and Path(path).name.startswith("launcher-musl-")
    binary = Path(path).read_bytes()
    assert b"/lib64/ld-linux" not in binary and b"GLIBC_" not in binary
    assert subprocess.run([path], capture_output=True).returncode == 2  # runs: a usage error


def test_a_contained_program_holds_no_descriptor_of_its_caller_but_its_stdio(tmp_path):
    """The launcher is spawned without its caller's descriptors closed first: it closes every
    one but those its options name, so a descriptor of the caller's that a child would
    inherit (a pipe, the worker's end of its connection) reaches neither it nor the program,
    sandboxed or not."""
    from pipeline.programs import contained
    from pipeline.programs.launcher import launcher_path

    if launcher_path() is None:
        return  # without the launcher a program is started with its caller's closed
    lister = "import os\nprint(sorted(int(fd) for fd in os.listdir('/proc/self/fd')))\n"
    read, write = os.pipe()
    os.set_inheritable(read, True)
    os.set_inheritable(write, True)
    try:
        for sandbox in ((False, True) if os.geteuid() == 0 else (False,)):
            work = tmp_path / f"work-{sandbox}"
            work.mkdir()
            with open(tmp_path / f"out-{sandbox}", "wb") as stdout, \
                    open(tmp_path / f"err-{sandbox}", "wb") as stderr:
                done = contained.run([sys.executable, "-c", lister], stdin=read, stdout=stdout,
                                     stderr=stderr, workdir=work, sandbox=sandbox,
                                     limits=contained.Limits(cpu_s=10, wall_s=30))
            assert done.exit_code == 0, (done, (tmp_path / f"err-{sandbox}").read_text())
            seen = (tmp_path / f"out-{sandbox}").read_text().strip()
            assert seen == "[0, 1, 2, 3]", seen  # (3: the folder os.listdir reads)
    finally:
        os.close(read)
        os.close(write)


PROBES = """
import json, sys, threading
from pipeline.programs import contained, launcher
order = sys.argv[1].split(",")
if order == ["warm"]:
    with launcher._probing:  # held: the probe waits on its own thread, not on this one
        contained.warm_up()
        [probing] = [t for t in threading.enumerate() if t.name == "sandbox probe"]
        before = launcher._probe.cache_info().currsize
    probing.join(60)
    print(json.dumps({"before": before, "probes": launcher._probe.cache_info().currsize,
                      "sandbox": contained.default_sandbox(),
                      "works": launcher.probe(True).sandbox_error is None}))
else:
    found = [launcher.probe(kind == "sandboxed") for kind in order]
    print(json.dumps({"probes": launcher._probe.cache_info().currsize,
                      "found": [[p.containment, p.sandbox_error] for p in found]}))
"""


def _probes(*args: str) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBES, *args], cwd=REPO, text=True,
                          capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_sandbox_that_works_answers_how_unsandboxed_programs_are_contained():
    """The sandbox needs the PID namespace the launcher makes for every program, so once a
    sandbox probe has worked an unsandboxed probe runs nothing more: its answer is the one a
    process asking it alone finds by running the launcher."""
    after = _probes("sandboxed,plain")
    (_, sandbox_error), derived = after["found"]
    alone = _probes("plain")
    assert alone["probes"] == 1 and alone["found"][0][1] is None
    if sandbox_error is not None:  # no sandbox here: both were probed by running them
        assert after["probes"] == 2 and derived == alone["found"][0]
        return
    assert after["probes"] == 1  # the sandbox's probe only
    assert derived == alone["found"][0] == ["pidns", None]


def test_warming_up_probes_on_its_own_thread_what_the_first_program_reads():
    """`warm_up` probes the sandbox on a thread of its own; the first program's question
    (`default_sandbox`) then finds the answer kept, the same as a probe's."""
    warm = _probes("warm")
    assert warm["before"] == 0
    assert warm["probes"] == (1 if warm["works"] else 2)  # (a failed one asks unsandboxed too)
    assert warm["sandbox"] == warm["works"]
