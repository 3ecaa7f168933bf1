"""Which solvers a run uses: configured and command-line externals, and their cached builds.

Builds are real processes, contained as every build is: a small Python build step that copies
a script into place (and logs its argv into its build folder, the only place it may write),
and g++ where a compiler's own failure matters.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from runkit import PROGRAMS

from pipeline.programs import contained, languages
from pipeline.programs.languages import BuildError
from pipeline.programs.program import Program
from pipeline.run.solvers import configured_externals, parse_external, prepare


def _script(path: Path, answer: str) -> Path:
    path.write_text(f"#!{sys.executable}\nprint({answer!r})\n")
    return path


def _builds(data: Path) -> list[list[str]]:
    """The argv of each build kept in the data folder's build cache (its own `build.log`)."""
    return [json.loads(line) for log in sorted((data / "build").glob("builds/*/build.log"))
            for line in log.read_text().splitlines()]


@pytest.fixture
def compiles(monkeypatch) -> list[str]:
    """The programs compiled from now on, one entry per compile that ran (not found built)."""
    ran: list[str] = []
    real = languages._compile

    def counted(program, *args, **kwargs):
        ran.append(program.name)
        return real(program, *args, **kwargs)

    monkeypatch.setattr(languages, "_compile", counted)
    return ran


def _copying(name: str, source: Path, extra: str = "") -> Program:
    return Program(name=name, path=Path(source.name), base_dir=source.parent, run="{exe}",
                   build=f"{sys.executable} {PROGRAMS / 'build_copy.py'} {{source}} "
                         f"{{exe}}{extra}")


def _output(argv: tuple[str, ...]) -> str:
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout


def test_a_build_runs_once_per_source_and_is_reused(tmp_path, compiles):
    data = tmp_path / "data"
    source = _script(tmp_path / "prog.py", "one")
    solver = _copying("mine", source)
    first = prepare(solver, data)
    again = prepare(solver, data)
    assert first == again and len(_builds(data)) == len(compiles) == 1
    assert Path(first[0]).is_relative_to((data / "build").resolve())
    assert _output(first) == "one\n"
    _script(source, "two")  # a changed source is built again, beside the old build
    changed = prepare(solver, data)
    assert changed != first and len(_builds(data)) == len(compiles) == 2
    assert (_output(changed), _output(first)) == ("two\n", "one\n")


def test_two_solvers_built_alike_each_get_a_program(tmp_path):
    data = tmp_path / "data"
    source = _script(tmp_path / "prog.py", "same")
    for name in ("first", "second"):
        argv = prepare(_copying(name, source), data)
        assert Path(argv[0]).exists(), f"{name}: {argv[0]} was never built"
        assert _output(argv) == "same\n"


def test_build_words_are_filled_in_after_splitting_and_never_run_by_a_shell(tmp_path):
    data, marker = tmp_path / "data", tmp_path / "pwned"
    source = _script(tmp_path / "my prog; $(touch x).py", "ok")
    solver = _copying("odd", source, extra=f" ; touch {marker} '$(touch {marker})'")
    argv = prepare(solver, data)
    [build] = _builds(data)
    assert Path(build[0]).name == source.name  # one word, spaces and all (its copy, built)
    assert build[2:] == [";", "touch", str(marker), f"$(touch {marker})"]
    assert not marker.exists() and not (tmp_path / "x").exists()
    assert _output(argv) == "ok\n"


def test_a_failing_build_is_reported_with_the_compilers_message_each_time(tmp_path):
    source = tmp_path / "broken.cpp"
    source.write_text("int main() { return undeclared_thing; }\n")
    solver = Program(name="broken", path=Path(source.name), base_dir=tmp_path, run="{exe}",
                     build="g++ -o {exe} {source}")
    for _ in range(2):
        with pytest.raises(BuildError, match="undeclared_thing"):
            prepare(solver, tmp_path / "data")


def test_a_build_sees_the_include_folder_and_sources_its_command_names_under_tmp(tmp_path):
    """A build runs contained (sandboxed here), its /tmp a private one; what its command names
    under /tmp (an include folder joined to `-I`, a header given to `-include`, a second
    source) is shown to it read-only, so a multi-file build of a project under /tmp builds,
    and its program runs."""
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    if not contained.default_sandbox():
        pytest.skip("no sandbox here (it needs root)")
    project = tmp_path / "project"
    for name, text in {
            "include/answer.h": "int answer(int a, int b);\n",
            "config/config.h": "#define OFFSET 0\n",
            "lib/answer.cpp": '#include "answer.h"\nint answer(int a, int b) { return a + b; }\n',
            "main.cpp": '#include <cstdio>\n#include "answer.h"\nint main() { int a, b;\n'
                        '  if (scanf("%d %d", &a, &b) != 2) return 1;\n'
                        '  printf("%d\\n", answer(a, b) + OFFSET); }\n'}.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)
    solver = Program(
        name="multi", path=Path("main.cpp"), base_dir=project, run="{exe}",
        build=f"g++ -O1 -I{project / 'include'} -include {project / 'config' / 'config.h'} "
              f"-o {{exe}} {{source}} {project / 'lib' / 'answer.cpp'}")
    argv = prepare(solver, tmp_path / "data")
    done = subprocess.run(argv, input="2 3\n", capture_output=True, text=True)
    assert done.stdout == "5\n", done.stderr


def test_a_source_that_includes_the_stored_answers_fails_to_build_without_their_text(
        tmp_path, monkeypatch, outside_tmp):
    """`--external leak.cpp` whose source includes a file of the data folder by its absolute
    path: a run hides the data folder, then builds (`prepare`); the compiler, contained, cannot
    open the file, so the build fails and its message never holds the file's text. The data
    folder lives outside /tmp, so that the compiler's private /tmp is not what hides it."""
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    if not contained.default_sandbox():
        pytest.skip("no sandbox here (it needs root)")
    data = outside_tmp / "data"
    (data / "tables").mkdir(parents=True)
    secret = data / "tables" / "answers.txt"
    secret.write_text("the stored answers\n")
    (tmp_path / "leak.cpp").write_text(f'#include "{secret}"\nint main() {{}}\n')
    monkeypatch.chdir(tmp_path)  # `--external leak.cpp` typed in the source's folder
    with contained.settings_kept():
        contained.hide(data)
        with pytest.raises(BuildError) as failed:
            prepare(parse_external("leak.cpp"), data)
    assert str(secret) in str(failed.value)
    assert "the stored answers" not in str(failed.value)


def test_a_command_without_a_build_is_only_split(tmp_path):
    solver = parse_external("mine = python3 'my file.py' --flag=1 ")
    assert (solver.name, solver.run) == ("mine", "python3 'my file.py' --flag=1")
    assert prepare(solver, tmp_path) == ("python3", "my file.py", "--flag=1")
    for bad in ("no-equals", "=cmd", "name=", "name=   "):
        with pytest.raises(ValueError, match="NAME=COMMAND"):
            parse_external(bad)


def test_configured_solvers_are_the_problems_own_then_the_users(tmp_path, toy):
    (tmp_path / "solvers.toml").write_text(
        '[[solver]]\nname = "mine"\nproblem = "toy"\nrun = "./a.out"\ntime_limit_s = 2.5\n\n'
        '[[solver]]\nname = "py"\nproblem = "other"\nrun = "python3 x.py"\n')
    assert configured_externals(toy, tmp_path) == [
        Program(name="mine", run="./a.out", time_limit_s=2.5)]
    assert configured_externals(toy, tmp_path / "missing") == []
