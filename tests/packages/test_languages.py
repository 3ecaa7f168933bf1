"""Language detection and builds: judges' commands, a cache keyed by the sources, CE and SKIP."""

from __future__ import annotations

import multiprocessing
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from packagekit import judged_by_run, tiny_kattis

from pipeline.packages import load_package
from pipeline.programs.languages import (
    LANGUAGES,
    Build,
    build_program,
    detect_language,
    launch,
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


# -- every role, every language: one place sets the limits (`launch`) --------------------------
JAVA_GEN = """public class Gen {
    public static void main(String[] args) {
        System.out.println(args[0] + " " + args[1]);
    }
}
"""
JAVA_INPUT_VALIDATOR = """import java.util.Scanner;
public class Val {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        long a = in.nextLong(), b = in.nextLong();
        System.exit(a >= 0 && b >= 0 && !in.hasNext() ? 42 : 43);
    }
}
"""
JAVA_OUTPUT_VALIDATOR = """import java.nio.file.*;
import java.util.Scanner;
public class Check {
    public static void main(String[] args) throws Exception {
        String expected = new String(Files.readAllBytes(Paths.get(args[1]))).trim();
        Scanner in = new Scanner(System.in);
        String got = in.hasNext() ? in.next() : "";
        System.exit(got.equals(expected) && !in.hasNext() ? 42 : 43);
    }
}
"""
JAVA_SUM = """import java.util.Scanner;
public class Sum {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        System.out.println(in.nextLong() + in.nextLong());
    }
}
"""
NODE_SUM = ("const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/)"
            ".map(Number);\nconsole.log(a + b);\n")


@pytest.mark.skipif(not (shutil.which("javac") and shutil.which("java") and shutil.which("node")),
                    reason="needs Java (javac, java) and node on PATH")
def test_java_and_node_programs_run_in_every_role_under_the_formats_memory_limit(tmp_path):
    """A Java generator, input validator and output validator and Java and JavaScript
    submissions, under the default 2048 MiB: the JVMs by -Xmx with no address-space limit
    (under one they cannot start: "Could not allocate compressed class space"), node with no
    stack limit as large as the memory limit (with one it aborts in `uv_thread_create`)."""
    root = tiny_kattis(tmp_path / "javaroles", {
        "problem.yaml": "name: Java Roles\nvalidation: custom\n",
        "generators/Gen.java": JAVA_GEN,
        "generators/generators.yaml": ("solution: /submissions/accepted/sum.py\n"
                                       "data:\n  secret:\n    data:\n"
                                       "      - made: Gen.java 7 8\n"),
        "input_validators/Val.java": JAVA_INPUT_VALIDATOR,
        "output_validators/Check.java": JAVA_OUTPUT_VALIDATOR,
        "submissions/accepted/Sum.java": JAVA_SUM,
        "submissions/accepted/sum.js": NODE_SUM,
        "submissions/wrong_answer/Off.java": JAVA_SUM.replace("class Sum", "class Off")
        .replace("in.nextLong())", "in.nextLong() + 1)"),
    })
    judged = judged_by_run(root, tmp_path / "data")
    assert judged.rejections == () and judged.package.rejects == ()
    assert judged.package.limits.memory_mb == 2048
    assert any(case.name.endswith("made") for case in judged.package.cases)
    verdicts = {solver: {result.verdict for result in cases.values()}
                for solver, cases in judged.results.items()}
    assert verdicts == {"accepted/sum.py": {Verdict.AC}, "accepted/Sum.java": {Verdict.AC},
                        "accepted/sum.js": {Verdict.AC}, "wrong_answer/Off.java": {Verdict.WA}}


def test_launch_sets_each_languages_limits_in_one_place(tmp_path):
    """`launch`: a JVM's heap by -Xmx and no address-space limit; node's stack unlimited;
    any other program the memory limit as its address space and the runner's stack."""
    def built(language: str, argv: tuple[str, ...], by_rlimit: bool = True) -> Build:
        return Build(Program(name="p"), None, argv, language, "", tmp_path, True,
                     memory_by_rlimit=by_rlimit)
    java = launch(built("java", LANGUAGES["java"].run, False), 1024)
    assert "-Xmx1024m" in java.argv and java.memory_mb is None and java.stack_mb is None
    kotlin = launch(built("kotlin", LANGUAGES["kotlin"].run, False), 512)
    assert "-J-Xmx512m" in kotlin.argv and kotlin.memory_mb is None
    node = launch(built("javascript", LANGUAGES["javascript"].run), 2048)
    assert (node.memory_mb, node.stack_mb) == (2048, 0)
    cpp = launch(built("cpp", ("./a.out",)), 2048)
    assert (cpp.argv, cpp.memory_mb, cpp.stack_mb) == (("./a.out",), 2048, None)


@pytest.mark.parametrize("head", ["name: Legacy\n", "problem_format_version: 2023-07\nname: New\n"])
def test_a_package_without_a_memory_limit_gets_2048_mib_as_bapctools_gives(tmp_path, head):
    """BAPCtools' default memory (also compilation and validation memory) is 2048 MiB in both
    format versions; problemtools takes its installation's, and the format leaves it to the
    system: a package's own limit wins."""
    plain = load_package(tiny_kattis(tmp_path / "plain", {"problem.yaml": head}), tmp_path / "b1")
    assert (plain.limits.memory_mb, plain.limits.compilation_memory_mb,
            plain.limits.validation_memory_mb) == (2048, 2048, 2048)
    own = load_package(tiny_kattis(tmp_path / "own", {
        "problem.yaml": head + "limits:\n  memory: 300\n"}), tmp_path / "b2")
    assert own.limits.memory_mb == 300 and own.rejects == ()
