"""What in a package is a program, and what happens to one that cannot run here (issue 20):

- only program files are programs: a README among the input validators is none (problemtools
  and BAPCtools skip a file whose language is not told by its name);
- `*.disabled` and `*.template` files and folders are skipped, as BAPCtools' util.glob does;
- a toolchain that does not really run (a shim for a missing `python2`) is tried once: its
  programs are SKIP with the reason, and a validator in it is one note for the package, not a
  reject per input; spec languages with no toolchain here are SKIP, not CE;
- a compile runs under its own limits, not a run's file-size limit;
- answer validators run on every .ans, and a rejected answer is a reject;
- a legacy custom grader is one note, not a JE on every group;
- `ingest --allow-rejects` does not exit 0 when nothing could be used.

Packages are built here (`packagekit`) and ingested by a real `pipeline`; BAPCtools' own
packages are read from its snapshot when it is present.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from packagekit import judged_by_run, snapshot, tiny_kattis, write_tree

from pipeline.packages import load_package
from pipeline.programs import languages
from pipeline.programs.languages import LANGUAGES, build_program, detect_language
from pipeline.programs.program import Program
from pipeline.verdicts import Verdict

REPO = Path(__file__).resolve().parents[2]
BAPCTOOLS = snapshot("RagnarGrootKoerkamp/BAPCtools")
GOOD_SOURCES = ["good/data/sample/1.in", "good/data/secret/01.in", "good/data/secret/02.in"]
TWO_INTEGERS = ("import re, sys\n"
                "sys.exit(42 if re.fullmatch(r'\\d+ \\d+\\n', sys.stdin.read()) else 43)\n")


def pipeline(data: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline", "--data-dir", str(data), *args],
                          cwd=REPO, capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})})


def stored(data: Path, problem: str = "good") -> list[str]:
    path = data / "tables" / "cases" / f"{problem}.parquet"
    return sorted(pl.read_parquet(path)["source"].to_list()) if path.exists() else []


def rejects(data: Path, problem: str = "good") -> dict[str, tuple[str, str]]:
    path = data / "tables" / "rejects" / f"{problem}.parquet"
    if not path.exists():
        return {}
    return {s: (r, m) for s, r, m in
            pl.read_parquet(path).select("source", "rule", "message").iter_rows()}


def notes(out: str) -> list[str]:
    return [line.split("note: ", 1)[1] for line in out.splitlines() if ": note: " in line]


def bapctools_problem(name: str, target: Path) -> Path:
    """BAPCtools' test/problems/NAME, extracted from its snapshot (skips when absent)."""
    if not (BAPCTOOLS / "HEAD").is_file():
        pytest.skip(f"BAPCtools snapshot absent at {BAPCTOOLS}: its packages are not tried")
    target.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "--git-dir", str(BAPCTOOLS), "archive", "HEAD",
                              f"test/problems/{name}"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    return target / "test" / "problems" / name


def failing_shim(folder: Path, tool: str) -> Path:
    """A folder holding `tool` as pyenv's shim for an interpreter that is not installed."""
    write_tree(folder, {tool: f"#!/bin/sh\necho 'pyenv: {tool}: command not found' >&2\n"
                              "exit 127\n"})
    (folder / tool).chmod(0o755)
    return folder


def kept_builds(cache: Path) -> list[str]:
    """The builds kept in a build cache (the lock files beside them are not builds)."""
    folder = cache / "builds"
    return sorted(p.name for p in folder.iterdir() if not p.name.startswith(".")) \
        if folder.exists() else []


# -- what is a program ----------------------------------------------------------------------

def test_a_readme_among_the_input_validators_is_not_a_validator(tmp_path):
    raw, data = tmp_path / "raw", tmp_path / "data"
    tiny_kattis(raw / "good", {
        "input_validators/validate.py": TWO_INTEGERS,
        "input_validators/README.txt": "The validator checks two integers.\n",
        "input_validators/docs/README.md": "# notes\n",
        "data/secret/03.in": "1 x\n", "data/secret/03.ans": "0\n"})
    done = pipeline(data, "ingest", str(raw))
    assert done.returncode == 1, done.stderr  # the one bad input
    assert "skipped 2 not programs" in done.stdout
    assert "input_validators/README.txt" in done.stdout and "input_validators/docs" in done.stdout
    assert "cannot determine the language" not in done.stdout
    assert stored(data) == GOOD_SOURCES
    rule, message = rejects(data)["good/data/secret/03.in"]
    assert rule == "validator" and "validate.py rejected the input (exit code 43)" in message


def test_disabled_and_template_files_are_skipped_as_bapctools_does(tmp_path):
    package = tiny_kattis(tmp_path / "good", {
        "submissions/accepted/sum.cpp.disabled": "int main( {\n",
        "submissions/accepted/name.cpp.template": "{{name}}\n",
        "submissions/accepted/prolog.disabled/main.pl": ":- initialization(main).\n",
        "submissions/accepted/both/sum.py": "print(sum(map(int, input().split())))\n",
        "submissions/accepted/both/old.py.disabled": "raise SystemExit(1)\n",
        "input_validators/check.py.disabled": "import sys; sys.exit(43)\n",
        "input_validators/validate.py": TWO_INTEGERS})
    loaded = load_package(package, tmp_path / "build")
    assert [p.name for p in loaded.submissions] == ["accepted/both", "accepted/sum.py"]
    both = loaded.submission("accepted/both")
    assert [f.name for f in both.files] == ["sum.py"]
    assert [p.name for p in loaded.input_validators] == ["validate.py"]
    [note] = [n for n in loaded.notes if "disabled" in n]
    assert note.startswith("skipped 4 disabled") and "submissions/accepted/sum.cpp.disabled" in note


def test_bapctools_different_loads_without_its_disabled_submissions(tmp_path):
    package = bapctools_problem("different", tmp_path / "bt")
    loaded = load_package(package, tmp_path / "build")
    names = [p.name for p in loaded.submissions]
    assert not [n for n in names if "disabled" in n]
    assert "accepted/different.c" in names and "accepted/Different.java" in names
    assert len([n for n in loaded.notes if n.startswith("skipped 11 disabled")]) == 1


# -- toolchains that cannot run -------------------------------------------------------------

def test_a_python2_validator_whose_interpreter_is_a_failing_shim_is_one_note(tmp_path):
    raw, data = tmp_path / "raw", tmp_path / "data"
    shims = failing_shim(tmp_path / "shims", "python2")
    tiny_kattis(raw / "good", {"input_validators/validate.py": "#!/usr/bin/env python2\n"
                               + TWO_INTEGERS})
    done = pipeline(data, "ingest", str(raw), env={"PATH": f"{shims}:{os.environ['PATH']}"})
    assert done.returncode == 0, done.stdout + done.stderr
    [note] = [n for n in notes(done.stdout) if "cannot run here" in n]
    assert note.startswith("input validator validate.py cannot run here (toolchain for "
                           "Python 2 does not run here: python2 (")
    assert "exited with code 127: pyenv: python2: command not found" in note
    assert note.endswith("validation by it is skipped (good)")
    assert stored(data) == GOOD_SOURCES and rejects(data) == {}


@pytest.mark.parametrize("tool, language, name, text, reason", [
    ("python2", "python2", "old.py", "#!/usr/bin/env python2\nprint 1\n",
     "toolchain for Python 2 does not run here: python2 ("),
    ("g++", "cpp", "hi.cpp", "int main() { return 0; }\n",
     "toolchain for C++ does not run here: g++ ("),
])
def test_a_submission_whose_compiler_is_a_failing_shim_is_skip_with_the_reason(
        tmp_path, monkeypatch, tool, language, name, text, reason):
    """The compiler is asked its version once its compile failed: one that does not run is
    SKIP with the reason (not CE), and no build is kept for it."""
    shims = failing_shim(tmp_path / "shims", tool)
    monkeypatch.setenv("PATH", f"{shims}:{os.environ['PATH']}")
    monkeypatch.setattr(languages, "_probed", {})
    source = write_tree(tmp_path / "src", {name: text})
    program = Program(name=name, role="submission", path=source / name,
                      files=(source / name,), language=language)
    build = build_program(program, tmp_path / "cache")
    assert build.verdict is Verdict.SKIP, build.message
    assert reason in build.message and f"pyenv: {tool}: command not found" in build.message
    assert kept_builds(tmp_path / "cache") == []


def test_a_compiler_that_compiles_is_not_asked_its_version_first(tmp_path, monkeypatch):
    """A build whose compile succeeds starts the compiler once, for the compile (its version
    probe was a contained run of its own ahead of every compile); a compile error is still
    CE, the compiler being asked then and found to run."""
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    monkeypatch.setattr(languages, "_probed", {})
    source = write_tree(tmp_path / "src", {"hi.cpp": "int main() { return 0; }\n",
                                           "bad.cpp": "int main( {\n"})
    good = Program(name="hi.cpp", role="submission", path=source / "hi.cpp",
                   files=(source / "hi.cpp",), language="cpp")
    assert build_program(good, tmp_path / "cache").ok
    assert "g++" not in languages._probed
    bad = Program(name="bad.cpp", role="submission", path=source / "bad.cpp",
                  files=(source / "bad.cpp",), language="cpp")
    failed = build_program(bad, tmp_path / "cache")
    assert failed.verdict is Verdict.CE and "bad.cpp" in failed.message
    assert languages._probed["g++"] is None  # asked after the failed compile: it runs


def test_bapctools_disabled_sources_in_spec_languages_without_a_toolchain_are_skip(tmp_path):
    package = bapctools_problem("different", tmp_path / "bt")
    accepted = package / "submissions" / "accepted"
    codes = {"Different.scala": "scala", "different.cs": "csharp", "different.hs": "haskell",
             "different.lisp": "lisp", "different.ml": "ocaml", "different.php": "php"}
    (accepted / "prolog.disabled").rename(tmp_path / "prolog")
    sources = {name: accepted / f"{name}.disabled" for name in codes}
    sources["different.pl"] = tmp_path / "prolog" / "different.pl"
    codes["different.pl"] = "prolog"
    tried = 0
    for name, path in sources.items():
        code = codes[name]
        if all(shutil.which(tool) for tool in LANGUAGES[code].toolchain):
            continue  # installed here: it builds as any other language
        target = tmp_path / "src" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
        assert detect_language([target]) == code
        build = build_program(Program(name=name, role="submission", path=target,
                                      files=(target,), language=code), tmp_path / "cache")
        assert build.verdict is Verdict.SKIP, (name, build.message)
        assert build.message.startswith(f"toolchain missing for {LANGUAGES[code].name}")
        tried += 1
    assert tried or pytest.skip("every spec language's toolchain is installed here")


# -- compiles -------------------------------------------------------------------------------

def test_a_compile_writing_a_binary_larger_than_a_runs_file_limit_builds(tmp_path):
    source = write_tree(tmp_path / "src", {"big.cpp": "char a[96 << 20] = {1};\n"
                                           "int main() { return a[10]; }\n"})
    build = build_program(Program(name="big.cpp", role="submission", path=source / "big.cpp",
                                  files=(source / "big.cpp",), language="cpp"),
                          tmp_path / "cache")
    assert build.verdict is None, build.message
    assert (build.directory / "program.bin").stat().st_size > 96 << 20


def test_bapctools_test_memstatic_compiles(tmp_path):
    package = bapctools_problem("hello", tmp_path / "bt")
    source = package / "submissions" / "mixed" / "test-memstatic.cc"
    build = build_program(Program(name="test-memstatic.cc", role="submission", path=source,
                                  files=(source,), language="cpp"), tmp_path / "cache")
    assert build.verdict is None, build.message
    assert "File size limit exceeded" not in build.message


# -- answer validators ----------------------------------------------------------------------

def test_answer_validators_run_on_every_answer_and_a_rejected_answer_is_a_reject(tmp_path):
    raw, data = tmp_path / "raw", tmp_path / "data"
    tiny_kattis(raw / "good", {
        # BAPCtools: answer_validator input_file < answer_file, exit 42 valid.
        "answer_validators/sum_check.py":
            "import sys\n"
            "a, b = map(int, open(sys.argv[1]).read().split())\n"
            "answer = sys.stdin.read()\n"
            "if answer != f'{a + b}\\n':\n"
            "    print(f'expected {a + b}, the answer says {answer.strip()}', file=sys.stderr)\n"
            "    sys.exit(43)\n"
            "sys.exit(42)\n",
        "data/secret/03.in": "4 4\n", "data/secret/03.ans": "9\n"})
    done = pipeline(data, "ingest", str(raw))
    assert done.returncode == 1, done.stderr
    assert stored(data) == GOOD_SOURCES
    rule, message = rejects(data)["good/data/secret/03.ans"]
    assert rule == "answer-validator"
    assert message.startswith("answer validator sum_check.py rejected the answer (exit code "
                              "43): expected 8, the answer says 9")


# -- graders and exit codes -----------------------------------------------------------------

def test_a_legacy_custom_grader_is_one_note_and_groups_are_graded_by_default(tmp_path):
    package = tiny_kattis(tmp_path / "good", {
        "problem.yaml": "name: Tiny Sum\ntype: scoring\n",
        "data/secret/testdata.yaml": "grading: custom\n",
        "graders/grade.py": "print('AC 100')\n"})
    loaded = load_package(package, tmp_path / "build")
    [note] = [n for n in loaded.notes if "grader" in n]
    assert note == ("custom graders are not supported: the groups secret (grading: custom) "
                    "are graded by the default grader")
    report = judged_by_run(package, tmp_path / "data")
    assert report.agreement("accepted/sum.py").status == "agree", report.table()
    results = report.results["accepted/sum.py"]
    assert {r.verdict for r in results.values()} == {"AC"}


def test_allow_rejects_does_not_exit_0_when_nothing_could_be_used(tmp_path):
    data = tmp_path / "data"
    package = tiny_kattis(tmp_path / "broken", {"problem.yaml": "name: [unclosed\n"})
    done = pipeline(data, "ingest", str(package), "--allow-rejects")
    assert done.returncode == 1
    assert "nothing ingested: nothing could be used: 1 reject (the first: broken, rule " \
        "yaml-syntax)" in done.stderr
    # Beside a package that is stored, the reject is allowed.
    good = tiny_kattis(tmp_path / "good")
    done = pipeline(data, "ingest", str(good), str(package), "--allow-rejects")
    assert done.returncode == 0, done.stderr
    assert stored(data) == GOOD_SOURCES


def test_bapctools_helloproblemtools_answer_validator_accepts_its_answer_and_rejects_another(
        tmp_path):
    package = bapctools_problem("helloproblemtools", tmp_path / "bt")
    data = tmp_path / "data"
    done = pipeline(data, "ingest", str(package))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 added" in done.stdout and "0 rejected" in done.stdout
    (package / "data" / "secret" / "hello.ans").write_text("Hello world!\n")
    done = pipeline(data, "ingest", str(package))
    assert done.returncode == 1
    rule, message = rejects(data, "helloproblemtools")[
        "helloproblemtools/data/secret/hello.ans"]
    assert rule == "answer-validator", message
    assert message.startswith("answer validator validate.sh rejected the answer (exit code 43)")
