"""A package's own programs are contained like submissions (issue 22's P18, P17, P11): an input
validator, an output validator, a testlib checker, an interactor and a generator, each a real
hostile program built in the test and run through the package code's own entry points. Each
tries to write outside its folder, read the data folder, connect to a socket on loopback, fork
without end and leave a daemon behind, and tells by its verdict whether any of it worked: it
gives its "good" answer (valid, accepted, a case) only when all of it failed.

The data folder lives outside /tmp (under /var/tmp), so that a program's private /tmp is not
what hides it. The sandbox needs root.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

import pytest
from processkit import hostile_program, processes_marked

from pipeline.packages.generators import GeneratorError, run_generator
from pipeline.packages.interactive import run_exchange
from pipeline.packages.validate import validate_input
from pipeline.programs import external
from pipeline.programs.checkers import run_output_validator, run_testlib_checker
from pipeline.programs.contained import HIDE_ENV, PROCESS_CAP
from pipeline.programs.languages import build_program, detect_language
from pipeline.programs.program import Program
from pipeline.verdicts import Verdict

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the sandbox needs root")


@pytest.fixture
def outside():
    if not os.access("/var/tmp", os.W_OK):
        pytest.skip("no writable /var/tmp")
    folder = Path(tempfile.mkdtemp(prefix="gamebench-test-", dir="/var/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def attack(outside, tmp_path, monkeypatch):
    """Everything a hostile program aims at: a data folder (hidden from every contained
    program), places outside its folder, a listening socket, and a marker for its daemon."""
    data = outside / "data"
    (data / "tables").mkdir(parents=True)
    (data / "tables" / "answers.txt").write_text("the stored answers\n")
    monkeypatch.setenv(HIDE_ENV, str(data))
    with socket.create_server(("127.0.0.1", 0)) as server:
        marker = f"gamebench-hostile-{os.getpid()}-{time.monotonic_ns()}"
        # (what it writes under /tmp goes to its private /tmp: not an escape)
        # (a clone under /tmp has its folder in the program's private /tmp: no escape there)
        escapes = [outside / "escaped", Path("/var/tmp") / f"{marker}-escaped",
                   *([] if str(REPO).startswith("/tmp/") else [REPO / f"{marker}-escaped"])]
        yield dict(outside=escapes, secret=data / "tables" / "answers.txt",
                   port=server.getsockname()[1], marker=marker)
    for path in escapes:
        assert not path.exists(), f"it wrote {path}"
    deadline = time.monotonic() + 10
    while processes_marked(marker):  # its daemon died with it
        assert time.monotonic() < deadline, "its daemon outlived it"
        time.sleep(0.05)


def _role(good: str, bad: str) -> str:
    """The hostile program's last lines: `good` when every attack failed, else `bad`."""
    return (f"if report.get('wrote') or report['read'] is not None or report['connect'] "
            f"or report['forks'] >= {PROCESS_CAP}:\n    {bad}\nelse:\n    {good}\n")


def _build(tmp_path: Path, attack: dict, then: str, name: str = "hostile.py"):
    folder = tmp_path / name.replace(".", "-")
    folder.mkdir()
    argv = hostile_program(folder, then=then, **attack)
    path = Path(argv[1])
    build = build_program(Program(name=name, role="validator", path=path, files=(path,),
                                  language=detect_language([path])), tmp_path / "cache")
    assert build.ok, build.message
    return build


def _files(tmp_path: Path) -> tuple[Path, Path, Path]:
    paths = tuple(tmp_path / name for name in ("case.in", "case.ans", "team.out"))
    for path, text in zip(paths, ("1 2\n", "3\n", "3\n")):
        path.write_text(text)
    return paths


def test_p18_a_hostile_input_validator_is_contained(tmp_path, attack):
    validator = _build(tmp_path, attack, _role("sys.exit(42)", "sys.exit(43)"))
    case, _, _ = _files(tmp_path)
    result = validate_input([validator], case, time_s=20, workdir=tmp_path)
    assert result.valid, result.rejections


def test_p18_a_hostile_output_validator_is_contained(tmp_path, attack):
    validator = _build(tmp_path, attack, _role("sys.exit(42)", "sys.exit(43)"))
    case, answer, team = _files(tmp_path)
    result = run_output_validator(validator, case, answer, team, (), time_s=20,
                                  workdir=tmp_path)
    assert result.verdict == "AC", result.message


def test_p18_a_hostile_testlib_checker_is_contained(tmp_path, attack):
    checker = _build(tmp_path, attack, _role("sys.exit(0)", "sys.exit(1)"))
    case, answer, team = _files(tmp_path)
    result = run_testlib_checker(checker, case, team, answer, time_s=20,
                                 workdir=tmp_path)
    assert result.verdict == "AC", result.message


def test_p18_a_hostile_interactor_is_contained(tmp_path, attack):
    interactor = _build(tmp_path, attack, "print(5, flush=True)\nreply = input()\n" + _role(
        "sys.exit(42 if reply == '10' else 43)", "sys.exit(43)"))
    feedback = tmp_path / "scratch" / "feedback"
    feedback.mkdir(parents=True)
    case, answer, _ = _files(tmp_path)
    exchange = run_exchange(
        [sys.executable, "-c", "print(2 * int(input()), flush=True)"],
        [*interactor.argv, str(case), str(answer), str(feedback) + "/"],
        workdir=tmp_path / "scratch" / "run", submission_cpu_s=5,
        submission_memory_mb=None, output_mb=8, validator_cpu_s=20, validator_memory_mb=None)
    assert exchange.validator.exit_code == 42, exchange.validator
    assert exchange.submission.exit_code == 0, exchange.submission


def test_p17_p18_a_hostile_generator_is_contained(tmp_path, attack):
    generator = _build(tmp_path, attack, _role("print('1 2')", "sys.exit(1)"))
    assert run_generator(tuple(generator.argv), "hostile").strip() == "1 2"


def test_p17_a_generator_that_forks_forever_fails_and_leaves_nothing(tmp_path):
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    (tmp_path / "bomb.c").write_text("#include <unistd.h>\nint main(){for(;;)fork();}\n")
    subprocess.run(["gcc", "-o", str(tmp_path / "bomb"), str(tmp_path / "bomb.c")], check=True)
    import pipeline.packages.generators as generators

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(generators, "GENERATOR_TIME_S", 0.5)
        # (timed out; on a loaded machine its few hundred processes may take longer to die
        # than the launcher is given, and the launcher is then killed, taking them all)
        with pytest.raises(GeneratorError, match="timed out|did not finish"):
            run_generator((str(tmp_path / "bomb"),), "bomb")
    assert not _children_named("bomb")


def _children_named(name: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/comm") as handle:
                if handle.read().strip() == name:
                    found.append(int(entry))
        except (OSError, ValueError):
            continue
    return found


def test_p11_a_sleeping_validator_dies_with_a_kill_9_of_the_ingest(tmp_path, outside):
    """The pipeline's process is killed with its whole process group while its validator
    runs; the validator and the daemon it started die too."""
    marker = f"gamebench-hostile-{os.getpid()}-{time.monotonic_ns()}"
    argv = hostile_program(tmp_path, outside=[], secret="/nonexistent", port=1, marker=marker,
                           forks=0, then="time.sleep(120)")
    driver = ("import sys\nfrom pathlib import Path\n"
              "from pipeline.programs.procs import run_limited\n"
              f"run_limited({argv!r}, cwd=Path({str(tmp_path / 'work')!r}), time_s=120)\n")
    pipeline = subprocess.Popen([sys.executable, "-c", driver], cwd=REPO,
                                env={**os.environ, "PYTHONPATH": str(REPO)},
                                start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not processes_marked(marker):
            assert pipeline.poll() is None and time.monotonic() < deadline, "it never started"
            time.sleep(0.05)
    finally:
        os.killpg(pipeline.pid, signal.SIGKILL)
        pipeline.wait()
    deadline = time.monotonic() + 10
    while processes_marked(marker):
        assert time.monotonic() < deadline, "the validator's daemon outlived the pipeline"
        time.sleep(0.05)


def test_second_pass_a_hostile_build_script_is_contained(tmp_path, attack):
    """A program folder with a `build` script (BAPCtools' build/run) runs the package's own
    code at build time; it ran unsandboxed, as compilers do, and wrote outside its folder and
    listed the data folder. Now it is contained like the program it builds: it writes its
    `run` only when every attack failed, and the build must succeed."""
    folder = tmp_path / "evil"
    folder.mkdir()
    argv = hostile_program(folder, then=_role(
        "open('run', 'w').write('#!/bin/sh\\necho 3\\n')", "sys.exit(1)"), **attack)
    (folder / "build").write_text(f"#!/bin/sh\nexec {argv[0]} ./{Path(argv[1]).name}\n")
    files = (folder / "build", Path(argv[1]))
    program = Program(name="evil", role="submission", path=folder, files=files,
                      language=detect_language(list(files)))
    assert program.language == "build-run"
    build = build_program(program, tmp_path / "cache")
    assert build.ok, build.message


BUILD_WITH_OWN_PYTHON = """\
import sys
from pathlib import Path
from pipeline.programs.languages import build_program, detect_language
from pipeline.programs.program import Program

folder, cache = Path(sys.argv[1]), Path(sys.argv[2])
folder.mkdir()
(folder / "build").write_text(f"#!/bin/sh\\nexec {sys.executable} ./make_run.py\\n")
(folder / "make_run.py").write_text("open('run', 'w').write('#!/bin/sh\\\\necho 3\\\\n')\\n")
files = (folder / "build", folder / "make_run.py")
program = Program(name="own", role="submission", path=folder, files=files,
                  language=detect_language(list(files)))
build = build_program(program, cache)
print(sys.executable, build.ok, build.message)
"""


def test_second_pass_a_build_script_finds_the_pipelines_python_under_tmp(tmp_path):
    """The pipeline run from a checkout under /tmp (its virtualenv there, as `mktemp -d` and
    `make venv` make it): a build script that runs the pipeline's own Python (the language
    table's Python 3) found nothing there, since every contained program has a private /tmp
    (exit 127). That Python is shown to every sandboxed program, read-only, as it is anyway
    when it lies outside /tmp."""
    venv = tmp_path / "venv"
    subprocess.run([os.path.realpath(sys.executable), "-m", "venv", "--without-pip", str(venv)],
                   check=True)
    paths = [str(REPO), sysconfig.get_paths()["purelib"], os.environ.get("PYTHONPATH")]
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-c", BUILD_WITH_OWN_PYTHON, str(tmp_path / "program"),
         str(tmp_path / "cache")], capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, paths))})
    assert done.returncode == 0, done.stderr
    python, built_ok, *message = done.stdout.split()
    assert python.startswith("/tmp/") and built_ok == "True", done.stdout
    [built] = (tmp_path / "cache" / "builds").glob("*/run")
    assert subprocess.run([str(built)], capture_output=True, text=True).stdout == "3\n"


@pytest.mark.parametrize("source", ["sol.cpp", "sol.c"])
@pytest.mark.parametrize("target", ["stored answers", "package answer"])
def test_second_pass_a_compiler_cannot_read_what_the_sandbox_hides(source, target, attack,
                                                                    tmp_path, monkeypatch):
    """A submission whose source `#include`s a file by its absolute path: the data folder's
    stored answers (hidden from every contained program), or its package's own answer file
    (hidden from its submissions). The compiler ran unsandboxed and quoted the file's first
    lines into the stored CE message; now it runs contained like every program and cannot
    open it, so the message names the file but never holds its text. The same source with a
    system header builds, and runs."""
    compiler = "g++" if source.endswith(".cpp") else "gcc"
    if shutil.which(compiler) is None:
        pytest.skip(f"{compiler} is not installed")
    if target == "stored answers":
        secret = attack["secret"]
    else:  # a package outside /tmp whose folder its submissions never see (as a run hides it)
        package = attack["secret"].parent.parent.parent / "package"
        secret = package / "data" / "secret" / "01.ans"
        secret.parent.mkdir(parents=True)
        secret.write_text("the stored answers of the package\n")
        monkeypatch.setattr(external, "_hidden_from_submissions", [])
        external.hide_from_submissions(package)
    folder = tmp_path / "leaky"
    folder.mkdir()
    (folder / source).write_text(f'#include "{secret}"\nint main(void) {{ return 0; }}\n')
    program = Program(name=source, role="submission", path=folder / source,
                      files=(folder / source,), language=detect_language([folder / source]))
    build = build_program(program, tmp_path / "cache")
    assert build.verdict is Verdict.CE, build.message
    assert "the stored answers" not in build.message
    assert str(secret) in build.message  # the compiler says which include it could not open

    (folder / source).write_text("#include <stdio.h>\nint main(void) { puts(\"3\"); }\n")
    build = build_program(program, tmp_path / "cache")
    assert build.ok, build.message
    assert subprocess.run(build.argv, capture_output=True, text=True).stdout == "3\n"
