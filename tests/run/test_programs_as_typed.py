"""Programs as a user types them: a source file (`--external sol.cpp`), `java Sol.java` (built
once per content, its options and arguments kept), `python3 sol.py` through a shim on PATH, a
virtualenv's interpreter importing its own package, and programs that cannot start.

Every run is a real `pipeline` process over real cases of the built-in problem
bipartitebattle, generated and ingested by the pipeline's own commands. The solutions are
written here from the problem's method (its solutions/README.md): the answer is 0 when the sum
of a_i + b_i is odd, else 2^(sum of a_i * b_i - 1) mod 1e9+7; the C++ one is the problem's own.
"""

from __future__ import annotations

import os
import pickle
import re
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from runkit import REPO, pipeline_argv, results

from pipeline.programs.jobs import SolverSpec
from pipeline.programs.languages import build_here
from pipeline.run.request import changed, external_identity
from pipeline.run.solvers import packed, parse_external, ready
from pipeline.tables.results import read_runs

PROBLEM = "bipartitebattle"
CPP = REPO / "pipeline" / "problems" / PROBLEM / "solutions" / "main.cpp"
SOLVE = """\
def solve(text):
    numbers = list(map(int, text.split()))
    n, pairs = numbers[0], numbers[1:]
    parity = sum(pairs[:2 * n]) % 2
    edges = sum(pairs[2 * i] * pairs[2 * i + 1] for i in range(n))
    return 0 if parity else pow(2, edges - 1, 10**9 + 7)
"""
SOLUTION_PY = SOLVE + "\nimport sys\nprint(solve(sys.stdin.read()))\n"
SOLUTION_JAVA = """\
import java.io.*;

public class Sol {
    public static void main(String[] args) throws IOException {
        String[] words = new String(System.in.readAllBytes()).trim().split("\\\\s+");
        final long P = 1_000_000_007L;
        int n = Integer.parseInt(words[0]);
        long parity = 0, edges = 0;
        for (int i = 0; i < n; i++) {
            long a = Long.parseLong(words[1 + 2 * i]), b = Long.parseLong(words[2 + 2 * i]);
            parity ^= (a ^ b) & 1;
            edges = (edges + (a % (P - 1)) * (b % (P - 1))) % (P - 1);
        }
        if (parity != 0) { System.out.println(0); return; }
        long e = (edges + P - 2) % (P - 1), r = 1, base = 2;
        while (e > 0) { if ((e & 1) == 1) r = r * base % P; base = base * base % P; e >>= 1; }
        System.out.println(r);
    }
}
"""


def pipeline(data: Path, *args: str, cwd: Path,
             timeout: float = 300) -> subprocess.CompletedProcess:
    """`python -m pipeline --data-dir DATA ARGS...` in a real process started in `cwd`."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    return subprocess.run(pipeline_argv(data, *args), cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    """A data folder with 24 cases of bipartitebattle (answers from its brute force stage)."""
    root = tmp_path_factory.mktemp("typed")
    folder = root / "data"
    for recipe, count in (("tiny", 20), ("medium", 4)):
        done = pipeline(folder, "generate", PROBLEM, "--recipe", recipe, "--count", str(count),
                        "--out", str(root / "raw" / PROBLEM / recipe), cwd=root)
        assert done.returncode == 0, done.stderr
    done = pipeline(folder, "ingest", str(root / "raw"), cwd=root)
    assert done.returncode == 0, done.stderr
    return folder


def run_id_of(done: subprocess.CompletedProcess) -> str:
    match = re.match(r"run (\S+): ", done.stdout)
    assert match, done.stdout + done.stderr
    return match.group(1)


def verdicts_of(data: Path, done: subprocess.CompletedProcess, solver: str) -> set[str]:
    frame = results(data, run_id_of(done))
    return set(frame.filter(pl.col("solver") == solver)["verdict"])


def run_mine(data: Path, cwd: Path, program: str, *options: str) -> subprocess.CompletedProcess:
    return pipeline(data, "run", "--problem", PROBLEM, "--external", program, "--solver",
                    program.partition("=")[0] if "=" in program else Path(program).stem,
                    *options, cwd=cwd)


def shim(folder: Path, interpreter: str) -> Path:
    """A `python3` shim as pyenv installs one: a script on PATH that reads where the real
    interpreter is from a file in its own 0700 home, then execs it. Returns the shim."""
    home, bin_dir = folder / "shim-home", folder / "shim-bin"
    home.mkdir(mode=0o700)
    bin_dir.mkdir()
    (home / "version").write_text(interpreter + "\n")
    script = bin_dir / "python3"
    script.write_text(f'#!/bin/sh\nreal="$(cat {home}/version)" || exit 127\n'
                      'exec "$real" "$@"\n')
    script.chmod(0o755)
    return script


def real_python() -> str:
    return os.path.realpath(sys.executable)


# -- a source file is a program ----------------------------------------------------------------

def test_a_cpp_source_file_is_built_by_its_language_once_per_content_and_gets_ac(data, tmp_path):
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    shutil.copy(CPP, tmp_path / "sol.cpp")
    builds = data / "build" / "builds"

    def built() -> set[Path]:
        return {path for path in builds.iterdir() if path.is_dir()} if builds.exists() else set()

    before = built()
    done = run_mine(data, tmp_path, "sol.cpp")  # no NAME=: the file's stem names it
    assert done.returncode == 0, done.stderr
    assert verdicts_of(data, done, "sol") == {"AC"}
    made = built() - before
    assert len(made) == 1, "one build of sol.cpp"
    again = run_mine(data, tmp_path, "mine=sol.cpp")  # same content: the same build
    assert again.returncode == 0, again.stderr
    assert verdicts_of(data, again, "mine") == {"AC"} and built() - before == made
    with open(tmp_path / "sol.cpp", "a") as source:
        source.write("// changed\n")
    changed_run = run_mine(data, tmp_path, "mine=sol.cpp")
    assert changed_run.returncode == 0 and len(built() - before) == 2


def test_a_source_that_does_not_compile_stops_the_run_with_the_compilers_message(
        data, tmp_path):
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    (tmp_path / "broken.cpp").write_text("int main() { return undeclared_thing; }\n")
    runs = read_runs(data).height
    done = run_mine(data, tmp_path, "broken.cpp")
    assert done.returncode == 1 and "undeclared_thing" in done.stderr
    assert "Traceback" not in done.stderr and read_runs(data).height == runs


def test_a_python_source_and_a_java_source_are_built_by_their_languages(data, tmp_path):
    (tmp_path / "sol.py").write_text(SOLUTION_PY)
    done = run_mine(data, tmp_path, "sol.py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert verdicts_of(data, done, "sol") == {"AC"}
    if shutil.which("javac") is None:
        print("javac is not installed: the Java source is not tried")
        return
    (tmp_path / "Sol.java").write_text(SOLUTION_JAVA)
    done = run_mine(data, tmp_path, "Sol.java", "--timeout", "10")  # a JVM starts slowly
    assert done.returncode == 0, done.stdout + done.stderr
    assert verdicts_of(data, done, "Sol") == {"AC"}


def test_the_run_identity_of_a_source_file_is_its_content(tmp_path, monkeypatch):
    source = tmp_path / "sol.cpp"
    shutil.copy(CPP, source)
    monkeypatch.chdir(tmp_path)
    solver = parse_external("sol.cpp")
    assert (solver.name, solver.path) == ("sol", source)
    identity = external_identity(solver)
    assert identity.program().builds_from_source and changed(identity, PROBLEM) is None
    with open(source, "a") as handle:
        handle.write("// changed\n")
    assert "changed since the run started" in changed(identity, PROBLEM)


def test_a_worker_builds_a_source_from_what_travelled_alone(tmp_path, monkeypatch):
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    shutil.copy(CPP, tmp_path / "sol.cpp")
    monkeypatch.chdir(tmp_path)
    program = pickle.loads(pickle.dumps(packed(parse_external("mine=sol.cpp"))))
    (tmp_path / "sol.cpp").unlink()  # the worker has only what travelled
    argv = build_here(program, tmp_path / "worker-cache")
    assert Path(argv[0]).is_relative_to(tmp_path / "worker-cache")
    answer = subprocess.run(argv, input="3\n4 1\n2 2\n3 2\n", capture_output=True, text=True)
    assert answer.stdout == "8192\n"


# -- commands as typed ---------------------------------------------------------------------------

@pytest.mark.parametrize("sandbox", ["auto", "off"])
def test_java_running_a_source_file_gets_ac(data, tmp_path, sandbox):
    if shutil.which("java") is None:
        pytest.skip("java is not installed")
    (tmp_path / "Sol.java").write_text(SOLUTION_JAVA)
    # a JVM starts slowly on a loaded machine, which is not what this test is about
    done = run_mine(data, tmp_path, "mine=java Sol.java", "--sandbox", sandbox,
                    "--timeout", "30")
    assert done.returncode == 0, done.stdout + done.stderr
    assert verdicts_of(data, done, "mine") == {"AC"}


def builds_of(data: Path) -> set[Path]:
    """The build folders in the data folder's build cache."""
    builds = data / "build" / "builds"
    return {path for path in builds.iterdir() if path.is_dir()} if builds.exists() else set()


def test_java_running_a_source_file_is_built_once_per_content_and_says_so(data, tmp_path):
    if shutil.which("javac") is None or shutil.which("java") is None:
        pytest.skip("javac or java is not installed")
    (tmp_path / "Sol.java").write_text(SOLUTION_JAVA + "// built once\n")  # a build of its own
    before = builds_of(data)
    first = run_mine(data, tmp_path, "mine=java Sol.java", "--timeout", "30")
    assert first.returncode == 0, first.stdout + first.stderr
    assert verdicts_of(data, first, "mine") == {"AC"}
    [made] = builds_of(data) - before  # one build, holding the class the JVM runs
    assert (made / "Sol.class").is_file()
    assert "  note: external mine: `java Sol.java` built once as Java (Sol.java)" in \
        first.stdout.splitlines()
    again = run_mine(data, tmp_path, "mine=java Sol.java", "--timeout", "30")
    assert again.returncode == 0, again.stdout + again.stderr
    assert verdicts_of(data, again, "mine") == {"AC"}
    assert builds_of(data) - before == {made}  # the same content: the same build


ARGS_JAVA = """\
import java.lang.management.ManagementFactory;

public class Args {
    public static void main(String[] args) {
        System.out.println(String.join(" ",
            ManagementFactory.getRuntimeMXBean().getInputArguments()));
        System.out.println(String.join(" ", args));
    }
}
"""


def ready_external(text: str, data: Path, on_workers: bool = False) -> tuple[SolverSpec,
                                                                            list[str]]:
    """The spec of `--external TEXT` (started in the current folder) ready to run, and the
    lines it adds to the run's notes."""
    notes: list[str] = []
    spec = SolverSpec(name="mine", kind="external", problem=PROBLEM, timeout_s=10,
                      program=parse_external(text), memory_mb=512)
    return ready(spec, data, on_workers, notes), notes


def test_java_built_once_keeps_the_options_and_arguments_typed(tmp_path, monkeypatch):
    if shutil.which("javac") is None or shutil.which("java") is None:
        pytest.skip("javac or java is not installed")
    (tmp_path / "Args.java").write_text(ARGS_JAVA)
    monkeypatch.chdir(tmp_path)
    spec, notes = ready_external("mine=java -Xss200m -Dwho=me Args.java one two", tmp_path)
    assert notes == ["external mine: `java -Xss200m -Dwho=me Args.java one two` built once "
                     "as Java (Args.java)"]
    assert "Args.java" not in " ".join(spec.argv) and spec.memory_mb is None  # a JVM's heap
    said = subprocess.run(spec.argv, capture_output=True, text=True, check=True).stdout
    flags, arguments = said.splitlines()
    assert {"-Xss200m", "-Dwho=me", "-Xmx512m"} <= set(flags.split())
    assert "-Xss64m" not in flags and arguments == "one two"
    # a cluster's worker builds it from what travelled alone, and runs it the same way
    travelled, _ = ready_external("mine=java -Xss200m -Dwho=me Args.java one two", tmp_path,
                                  on_workers=True)
    assert travelled.argv == () and travelled.program is not None
    program = pickle.loads(pickle.dumps(travelled.program))
    (tmp_path / "Args.java").unlink()
    argv = build_here(program, tmp_path / "worker-cache")
    assert subprocess.run(argv, capture_output=True, text=True, check=True).stdout == said


def test_java_a_source_javac_does_not_build_alone_runs_as_typed_and_says_why(tmp_path,
                                                                             monkeypatch):
    if shutil.which("javac") is None or shutil.which("java") is None:
        pytest.skip("javac or java is not installed")
    # java's source launcher runs a public class of any name; javac wants it in Main.java
    (tmp_path / "sol.java").write_text(SOLUTION_JAVA.replace("class Sol", "class Main"))
    monkeypatch.chdir(tmp_path)
    spec, notes = ready_external("mine=java sol.java", tmp_path / "data")
    assert len(notes) == 1 and notes[0].startswith(
        "external mine: `java sol.java` runs as typed, compiling sol.java at every start: ")
    assert "does not compile it alone" in notes[0]
    assert spec.argv[-1] == str(tmp_path / "sol.java")  # the command as typed
    answer = subprocess.run(spec.argv, input="3\n4 1\n2 2\n3 2\n", capture_output=True,
                            text=True, timeout=60)
    assert answer.stdout == "8192\n", answer.stderr
    spec, notes = ready_external("mine=java -showversion sol.java", tmp_path / "data")
    assert notes == ["external mine: `java -showversion sol.java` runs as typed, compiling "
                     "sol.java at every start: its option -showversion is not one it is "
                     "built once with"]


def test_python_running_a_source_file_runs_as_typed(tmp_path, monkeypatch):
    (tmp_path / "sol.py").write_text(SOLUTION_PY)
    monkeypatch.chdir(tmp_path)
    python = real_python()
    spec, notes = ready_external(f"mine={python} sol.py", tmp_path / "data")
    assert spec.argv == (python, str(tmp_path / "sol.py")) and notes == []
    assert not (tmp_path / "data").exists()  # nothing built


@pytest.mark.parametrize("sandbox", ["auto", "off"])
def test_python3_through_a_shim_on_path_gets_ac(data, tmp_path, sandbox):
    (tmp_path / "sol.py").write_text(SOLUTION_PY)
    python3 = shim(tmp_path, real_python())
    done = run_mine(data, tmp_path, f"mine={python3} sol.py", "--sandbox", sandbox)
    assert done.returncode == 0, done.stdout + done.stderr
    assert verdicts_of(data, done, "mine") == {"AC"}


@pytest.mark.parametrize("sandbox", ["auto", "off"])
def test_a_virtualenvs_interpreter_importing_its_own_package_gets_ac(data, tmp_path, sandbox):
    venv = tmp_path / "venv"
    subprocess.run([real_python(), "-m", "venv", "--without-pip", str(venv)], check=True)
    [site] = venv.glob("lib/python*/site-packages")
    (site / "battle").mkdir()
    (site / "battle" / "__init__.py").write_text(SOLVE)
    (tmp_path / "sol.py").write_text("import sys\nimport battle\n"
                                     "print(battle.solve(sys.stdin.read()))\n")
    done = run_mine(data, tmp_path, f"mine={venv}/bin/python sol.py", "--sandbox", sandbox)
    assert done.returncode == 0, done.stdout + done.stderr
    assert verdicts_of(data, done, "mine") == {"AC"}


# -- a program that cannot start is no verdict ---------------------------------------------------

def test_a_program_that_cannot_start_makes_the_run_fail_and_its_summary_say_why(data, tmp_path):
    (tmp_path / "sol.py").write_text(SOLUTION_PY)
    python3 = shim(tmp_path, str(tmp_path / "gone" / "python3"))  # the version it names is gone
    done = run_mine(data, tmp_path, f"mine={python3} sol.py", "--sandbox", "off")
    assert done.returncode == 1, done.stdout + done.stderr
    assert verdicts_of(data, done, "mine") == {"RE"}  # the results are kept, as they are
    [line] = [line for line in done.stdout.splitlines() if "could not start" in line]
    assert re.search(rf"mine could not start \(24 of 24 cases\): exit code 127: .*"
                     rf"{re.escape(str(tmp_path / 'gone' / 'python3'))}.*\(hint: ", line)
    # the solver's own line shows its most common error beside its counts
    assert re.search(r"^  mine +RE=24; .*error: exit code 127: ", done.stdout, re.M)
    assert "mine could not start" in done.stderr and "Traceback" not in done.stderr


def test_a_script_argument_that_names_no_file_is_refused_before_the_run(data, tmp_path):
    runs = read_runs(data).height
    done = run_mine(data, tmp_path, "mine=python3 nosuch.py")
    assert done.returncode == 1
    assert done.stderr.strip() == (f"error: external program 'mine': its argument 'nosuch.py' "
                                   f"names no file: {tmp_path / 'nosuch.py'} does not exist")
    assert read_runs(data).height == runs  # nothing ran, nothing was written
    missing = run_mine(data, tmp_path, "nosuch.cpp")
    assert missing.returncode != 0 and f"{tmp_path / 'nosuch.cpp'} does not exist" in \
        missing.stderr


@pytest.mark.parametrize("command", ["stress", "hunt"])
def test_stress_and_hunt_keep_no_finding_of_a_program_that_cannot_start(tmp_path, command):
    (tmp_path / "sol.py").write_text(SOLUTION_PY)
    python3 = shim(tmp_path, str(tmp_path / "gone" / "python3"))
    data = tmp_path / "data"
    done = pipeline(data, command, "--problem", PROBLEM, "--solver", "mine", "--external",
                    f"mine={python3} sol.py", "--budget", "30s", "--sandbox", "off",
                    cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert re.search(r"error: mine could not start: exit code 127: .*\(hint: .*\); that is no "
                     r"verdict of it, so no finding is kept", done.stderr), done.stderr
    assert not (data / "raw" / PROBLEM).exists()  # nothing shrunk and kept under found/, hunt/
    assert not list(data.glob("tables/findings*/**/*.parquet"))


def test_stress_runs_external_programs_in_the_sandbox_mode_it_is_given(tmp_path):
    (tmp_path / "sol.py").write_text(SOLUTION_PY)
    python3 = shim(tmp_path, real_python())
    data = tmp_path / "data"
    done = pipeline(data, "stress", "--problem", PROBLEM, "--solver", "mine", "--external",
                    f"mine={python3} sol.py", "--budget", "3s", "--sandbox", "off",
                    cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 failures, 0 kept" in done.stdout
    for command in ("stress", "hunt"):
        bad = pipeline(data, command, "--problem", PROBLEM, "--solver", "fast", "--sandbox",
                       "maybe", cwd=tmp_path)
        assert (bad.returncode, bad.stderr.strip()) == (
            2, "error: --sandbox must be auto, on or off, not 'maybe'")
