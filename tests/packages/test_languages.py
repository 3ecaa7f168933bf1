"""Language detection and builds: judges' commands, a cache keyed by the sources, CE and SKIP."""

from __future__ import annotations

import multiprocessing
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.programs.languages import (
    LANGUAGES,
    build_program,
    detect_language,
    run_argv,
    toolchain_missing,
)
from pipeline.programs.program import Program
from pipeline.verdicts import Verdict


def program(path: Path, **extra) -> Program:
    files = tuple(sorted(p for p in path.rglob("*") if p.is_file())) if path.is_dir() else (path,)
    return Program(name=path.name, role="submission", path=path, files=files,
                   language=extra.pop("language", None) or detect_language(list(files)), **extra)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.mark.parametrize("files, language", [
    ({"a.c": ""}, "c"),
    ({"a.cpp": ""}, "cpp"), ({"a.cc": ""}, "cpp"), ({"a.cxx": ""}, "cpp"), ({"a.C": ""}, "cpp"),
    ({"a.py": "print(1)\n"}, "python3"),
    ({"a.py": "#!/usr/bin/env python2\nprint 1\n"}, "python2"),
    ({"Main.java": ""}, "java"), ({"a.kt": ""}, "kotlin"), ({"a.rs": ""}, "rust"),
    ({"a.go": ""}, "go"),
    ({"main.cpp": "", "util.cpp": "", "helper.py": ""}, "cpp"),   # most files wins
    ({"a.c": "", "b.cpp": ""}, "cpp"),                             # a tie goes by priority
    ({"check": "#!/bin/sh\nexit 42\n"}, "script"),
    ({"build": "#!/bin/sh\n", "run": "#!/bin/sh\n"}, "build-run"),
    ({"notes.txt": "hello\n"}, None),
])
def test_language_is_told_by_extension_shebang_and_count(tmp_path, files, language):
    paths = [write(tmp_path / name, text) for name, text in files.items()]
    assert detect_language(paths) == language


def test_c_cpp_and_python_build_with_the_judges_flags_and_run(tmp_path):
    sources = {
        "sum.c": "#include <stdio.h>\nint main(void){long a,b;scanf(\"%ld %ld\",&a,&b);"
                 "printf(\"%ld\\n\",a+b);return 0;}\n",
        "sum.cpp": "#include <iostream>\nint main(){long a,b;std::cin>>a>>b;"
                   "std::cout<<a+b<<\"\\n\";}\n",
        "sum.py": "a, b = map(int, input().split())\nprint(a + b)\n",
    }
    for name, text in sources.items():
        build = build_program(program(write(tmp_path / "src" / name, text)), tmp_path / "cache")
        assert build.verdict is None, build.message
        done = subprocess.run(run_argv(build, 256), input="40 2\n", capture_output=True,
                              text=True, cwd=tmp_path)
        assert done.stdout == "42\n"
    assert LANGUAGES["c"].compile[:4] == ("gcc", "-g", "-O2", "-std=gnu17")
    assert "-std={cpp_std}" in LANGUAGES["cpp"].compile


@pytest.mark.parametrize("name, text", [
    ("Sum.java", "import java.util.*;\npublic class Sum { public static void main(String[] a) {"
                 " Scanner s = new Scanner(System.in);\n"
                 " System.out.println(s.nextLong() + s.nextLong()); } }\n"),
    ("sum.kt", "fun main() { val (a, b) = readLine()!!.split(\" \").map { it.toLong() }\n"
               " println(a + b) }\n"),
    ("sum.rs", "use std::io::*;\nfn main() { let mut t = String::new();\n"
               " stdin().read_to_string(&mut t).unwrap();\n"
               " let s: i64 = t.split_whitespace().map(|w| w.parse::<i64>().unwrap()).sum();\n"
               " println!(\"{}\", s); }\n"),
    ("sum.go", "package main\nimport \"fmt\"\nfunc main() { var a, b int64\n"
               " fmt.Scan(&a, &b)\n fmt.Println(a + b) }\n"),
])
def test_each_installed_toolchain_builds_contained_and_its_program_runs(tmp_path, name, text):
    """Compilers run contained like every program (sandboxed here where programs are): HOME
    read-only (a rustup `rustc` still finds its toolchain there), caches in the private /tmp
    (go's build cache), the build folder written through. Each toolchain installed here builds,
    and its program runs."""
    source = write(tmp_path / "src" / name, text)
    built = program(source)
    missing = toolchain_missing(built.language)
    if missing:
        pytest.skip(missing)
    build = build_program(built, tmp_path / "cache")
    assert build.verdict is None, build.message
    done = subprocess.run(run_argv(build, 256), input="40 2\n", capture_output=True,
                          text=True, cwd=tmp_path)
    assert done.stdout == "42\n", done.stderr


def test_a_second_build_of_the_same_sources_is_a_cache_hit(tmp_path):
    source = write(tmp_path / "src/hello.cpp", "#include <cstdio>\nint main(){puts(\"hi\");}\n")
    first = build_program(program(source), tmp_path / "cache")
    again = build_program(program(source), tmp_path / "cache")
    assert (first.cached, again.cached) == (False, True)
    assert first.directory == again.directory
    source.write_text("#include <cstdio>\nint main(){puts(\"hello\");}\n")
    changed = build_program(program(source), tmp_path / "cache")
    assert not changed.cached and changed.directory != first.directory


def test_a_compile_error_is_its_own_result_with_the_compilers_message(tmp_path):
    source = write(tmp_path / "src/broken.cpp", "int main() { return undefined_name; }\n")
    build = build_program(program(source), tmp_path / "cache")
    assert build.verdict is Verdict.CE and not build.ok
    assert "undefined_name" in build.message and "the compiler exited with code" in build.message
    assert build_program(program(source), tmp_path / "cache").cached  # kept like a success
    syntax = write(tmp_path / "src/broken.py", "def f(:\n")
    broken = build_program(program(syntax), tmp_path / "cache")
    assert broken.verdict is Verdict.CE
    assert 'File "broken.py", line 1' in broken.message and "SyntaxError" in broken.message


def test_a_python_build_is_byte_compiled_as_py_compile_does(tmp_path, monkeypatch):
    """A Python program's build is `python3 -m py_compile` of its files by the interpreter that
    runs it, done in the pipeline's own process (it runs none of the program's code): the
    bytecode of every file lands beside it in the build, and the program runs from there."""
    from pipeline.programs import languages

    def no_process(argv, *args, **kwargs):
        raise AssertionError(f"a Python build started {argv}")

    monkeypatch.setattr(languages, "run_build", no_process)
    main = write(tmp_path / "src/main.py", "import helper\nprint(helper.answer())\n")
    write(tmp_path / "src/helper.py", "def answer():\n    return 42\n")
    built = build_program(Program(name="main.py", role="submission", path=main,
                                  files=(main, tmp_path / "src/helper.py"), language="python3"),
                          tmp_path / "cache")
    assert built.ok, built.message
    assert sorted(p.name for p in (built.directory / "__pycache__").iterdir()) == [
        f"helper.{sys.implementation.cache_tag}.pyc", f"main.{sys.implementation.cache_tag}.pyc"]
    ran = subprocess.run(list(built.argv), capture_output=True, text=True, timeout=30)
    assert ran.stdout == "42\n", ran.stderr


def test_a_polygon_cpp20_type_compiles_with_cpp20(tmp_path):
    source = write(tmp_path / "src/span.cpp", "#include <span>\n#include <cstdio>\nint main()"
                   "{int a[2]={1,2};std::span<int> s(a);std::printf(\"%zu\\n\",s.size());}\n")
    # gnu++17 by default
    assert build_program(program(source), tmp_path / "a").verdict is Verdict.CE
    typed = program(source, declared_type="cpp.g++20")
    assert build_program(typed, tmp_path / "b").verdict is None


def test_a_missing_toolchain_is_a_skip_with_the_reason(tmp_path):
    absent = [code for code in ("kotlin", "go", "ruby", "javascript", "python2")
              if any(shutil.which(t) is None for t in LANGUAGES[code].toolchain)]
    if not absent:
        pytest.skip("every optional toolchain is installed here")
    code = absent[0]
    extension = LANGUAGES[code].patterns[0][1:]
    source = write(tmp_path / f"src/prog{extension}", "x\n")
    build = build_program(program(source, language=code), tmp_path / "cache")
    assert build.verdict is Verdict.SKIP
    assert build.message.startswith(f"toolchain missing for {LANGUAGES[code].name}")
    assert not (tmp_path / "cache" / "builds").exists()  # nothing cached for it


def test_a_build_already_made_needs_no_compiler_to_run(tmp_path, monkeypatch):
    """A C++ program built once is ready again with no g++ on PATH (its binary runs without
    one), while a program still to be built is SKIP for the missing compiler."""
    built = build_program(program(write(tmp_path / "src/hi.cpp", "#include <cstdio>\n"
                                        "int main(){puts(\"hi\");}\n")), tmp_path / "cache")
    assert built.ok, built.message
    no_compiler = tmp_path / "bin"
    no_compiler.mkdir()
    monkeypatch.setenv("PATH", str(no_compiler))
    again = build_program(program(tmp_path / "src/hi.cpp"), tmp_path / "cache")
    assert (again.verdict, again.cached, again.directory) == (None, True, built.directory)
    assert subprocess.run(run_argv(again, 64), capture_output=True, text=True).stdout == "hi\n"
    other = build_program(program(write(tmp_path / "new/other.cpp", "int main(){}\n")),
                          tmp_path / "cache")
    assert other.verdict is Verdict.SKIP
    assert other.message == "toolchain missing for C++: g++ not found on PATH"


def test_included_files_are_copied_in_and_win_over_the_programs_own(tmp_path):
    write(tmp_path / "src/main.cpp", "#include \"answer.h\"\n#include <cstdio>\n"
          "int main(){std::printf(\"%d\\n\", ANSWER);}\n")
    write(tmp_path / "src/answer.h", "#define ANSWER 1\n")
    include = write(tmp_path / "include/answer.h", "#define ANSWER 42\n")
    folder = program(tmp_path / "src", include_files=(include,))
    build = build_program(folder, tmp_path / "cache")
    assert build.ok, build.message
    assert subprocess.run(run_argv(build, 64), capture_output=True, text=True).stdout == "42\n"


def _build_in_a_process(args) -> tuple[Verdict | None, str]:
    source, cache = args
    build = build_program(program(Path(source)), Path(cache))
    return build.verdict, str(build.directory)


def test_two_processes_building_the_same_program_end_with_one_build(tmp_path):
    source = write(tmp_path / "src/race.cpp", "#include <cstdio>\nint main(){puts(\"race\");}\n")
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        results = pool.map(_build_in_a_process, [(str(source), str(tmp_path / "cache"))] * 2)
    assert [verdict for verdict, _ in results] == [None, None]
    assert results[0][1] == results[1][1]
    builds = [p for p in (tmp_path / "cache" / "builds").iterdir() if p.is_dir()]
    assert len(builds) == 1 and not builds[0].name.startswith(".tmp")  # and its lock file
    out = subprocess.run([str(builds[0] / "program.bin")], capture_output=True, text=True)
    assert out.stdout == "race\n"
