"""Which solvers a run uses: configured and command-line externals, and their cached builds.

Builds are real processes: a small Python build step that copies a script into place (and logs
each time it runs), and g++ where a compiler's own failure matters.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from runkit import PROGRAMS

from pipeline.run.solvers import (BuildError, ExternalSolver, configured_externals,
                                  parse_external, prepare)


def _script(path: Path, answer: str) -> Path:
    path.write_text(f"#!{sys.executable}\nprint({answer!r})\n")
    return path


def _builds(log: Path) -> list[list[str]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def _copying(name: str, source: Path, log: Path, extra: str = "") -> ExternalSolver:
    return ExternalSolver(name=name, problem="toy", source=source.name, run="{exe}",
                          build=f"{sys.executable} {PROGRAMS / 'build_copy.py'} {{source}} "
                                f"{{exe}} {log}{extra}")


def _output(argv: tuple[str, ...]) -> str:
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout


def test_a_build_runs_once_per_source_and_is_reused(tmp_path):
    data, log = tmp_path / "data", tmp_path / "builds.log"
    source = _script(tmp_path / "prog.py", "one")
    solver = _copying("mine", source, log)
    first = prepare(solver, data, base_dir=tmp_path)
    again = prepare(solver, data, base_dir=tmp_path)
    assert first == again and len(_builds(log)) == 1
    assert Path(first[0]).is_relative_to((data / "build").resolve())
    assert _output(first) == "one\n"
    _script(source, "two")  # a changed source is built again, beside the old build
    changed = prepare(solver, data, base_dir=tmp_path)
    assert changed != first and len(_builds(log)) == 2
    assert (_output(changed), _output(first)) == ("two\n", "one\n")


def test_two_solvers_built_alike_each_get_a_program(tmp_path):
    data, log = tmp_path / "data", tmp_path / "builds.log"
    source = _script(tmp_path / "prog.py", "same")
    for name in ("first", "second"):
        argv = prepare(_copying(name, source, log), data, base_dir=tmp_path)
        assert Path(argv[0]).exists(), f"{name}: {argv[0]} was never built"
        assert _output(argv) == "same\n"


def test_build_words_are_filled_in_after_splitting_and_never_run_by_a_shell(tmp_path):
    data, log, marker = tmp_path / "data", tmp_path / "builds.log", tmp_path / "pwned"
    source = _script(tmp_path / "my prog; $(touch x).py", "ok")
    solver = _copying("odd", source, log, extra=f" ; touch {marker} '$(touch {marker})'")
    argv = prepare(solver, data, base_dir=tmp_path)
    [build] = _builds(log)
    assert Path(build[0]).name == source.name  # one word, spaces and all (its copy, built)
    assert build[3:] == [";", "touch", str(marker), f"$(touch {marker})"]
    assert not marker.exists() and not (tmp_path / "x").exists()
    assert _output(argv) == "ok\n"


def test_a_failing_build_is_reported_with_the_compilers_message_each_time(tmp_path):
    source = tmp_path / "broken.cpp"
    source.write_text("int main() { return undeclared_thing; }\n")
    solver = ExternalSolver(name="broken", problem="toy", source=source.name, run="{exe}",
                            build="g++ -o {exe} {source}")
    for _ in range(2):
        with pytest.raises(BuildError, match="undeclared_thing"):
            prepare(solver, tmp_path / "data", base_dir=tmp_path)


def test_a_command_without_a_build_is_only_split(tmp_path):
    solver = parse_external("mine = python3 'my file.py' --flag=1 ", "toy")
    assert (solver.name, solver.run) == ("mine", "python3 'my file.py' --flag=1")
    assert prepare(solver, tmp_path) == ("python3", "my file.py", "--flag=1")
    for bad in ("no-equals", "=cmd", "name=", "name=   "):
        with pytest.raises(ValueError, match="NAME=COMMAND"):
            parse_external(bad, "toy")


def test_configured_solvers_are_the_problems_own_then_the_users(tmp_path, toy):
    (tmp_path / "solvers.toml").write_text(
        '[[solver]]\nname = "mine"\nproblem = "toy"\nrun = "./a.out"\ntime_limit_s = 2.5\n\n'
        '[[solver]]\nname = "py"\nproblem = "other"\nrun = "python3 x.py"\n')
    assert configured_externals(toy, tmp_path) == [
        ExternalSolver(name="mine", problem="toy", run="./a.out", time_limit_s=2.5)]
    assert configured_externals(toy, tmp_path / "missing") == []
