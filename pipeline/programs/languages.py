"""Which language a program is in, and building it once the way the judges build it.

Detection and commands follow problemtools (docs/packages.md, "Languages and builds"); a
program's own build and run commands are a language of their own (`program_language`). A build
is cached by the hash of its language, commands and sources, made in a temporary folder and
renamed into place under a lock; a compile error is `CE` and cached, a missing toolchain `SKIP`
and not. Every build step runs through `run_build`, contained as the program it builds.
"""

from __future__ import annotations

import contextlib
import fcntl
import fnmatch
import functools
import glob
import hashlib
import importlib.metadata
import json
import os
import py_compile
import re
import shlex
import shutil
import sys
import tempfile
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pipeline.fsutil import atomic_write, file_sha256, scratch_folder
from pipeline.programs.procs import ProcessResult, describe_failure, run_limited
from pipeline.programs.program import Program
from pipeline.untrusted import (
    WRITTEN,
    LeftBehind,
    chmod_regular,
    excerpt,
    kind_of,
    read_regular,
    write_regular,
)
from pipeline.verdicts import Verdict


@dataclass(frozen=True)
class Language:
    """How one language is detected, compiled and run (problemtools' metavariables)."""

    code: str
    name: str
    priority: int
    patterns: tuple[str, ...]
    compile: tuple[str, ...] | None       # argv template, run in the build folder
    run: tuple[str, ...]
    toolchain: tuple[str, ...]            # executables that must be on PATH
    memory_by_rlimit: bool = True         # JVMs take their limit as a flag instead
    stack_by_rlimit: bool = True          # node sizes its threads' stacks by RLIMIT_STACK
    builder: str = "the compiler"         # who is said to have failed or left a file


def _python3(program: Program) -> str:
    """What runs a Python 3 program: its own `interpreter` (PyPy), else this interpreter."""
    return program.interpreter or sys.executable or shutil.which("python3") or "python3"


def _language(code: str, name: str, priority: int, patterns: str, compile: str | None,
              run: str, memory_by_rlimit: bool = True, stack_by_rlimit: bool = True) -> Language:
    """A row of the table below: patterns and commands split as a shell would; the toolchain,
    the programs its commands start (not `{python3}` nor the `{binary}` built)."""
    compile_argv = tuple(shlex.split(compile)) if compile is not None else None
    run_argv = tuple(shlex.split(run))
    tools = dict.fromkeys(argv[0] for argv in (compile_argv, run_argv)
                          if argv and not argv[0].startswith("{"))
    return Language(code, name, priority, tuple(patterns.split()), compile_argv, run_argv,
                    tuple(tools), memory_by_rlimit, stack_by_rlimit)


LANGUAGES: dict[str, Language] = {lang.code: lang for lang in (
    _language("c", "C", 950, "*.c", "gcc -g -O2 -std=gnu17 -o {binary} {files} -lm", "{binary}"),
    _language("cpp", "C++", 1000, "*.cc *.C *.cpp *.cxx *.c++",
              "g++ -g -O2 -std={cpp_std} -o {binary} {files}", "{binary}"),
    _language("python2", "Python 2", 860, "*.py *.py2", "python2 -m py_compile {files}",
              "python2 {mainfile}"),
    _language("python3", "Python 3", 850, "*.py *.py3", "{python3} -m py_compile {files}",
              "{python3} {mainfile}"),
    _language("java", "Java", 800, "*.java",
              "javac -encoding UTF-8 -sourcepath {path} -d {path} {files}",
              "java -Dfile.encoding=UTF-8 -XX:+UseSerialGC -XX:-UsePerfData -Xss64m "
              "-Xms{memlim}m -Xmx{memlim}m -cp {path} {mainclass}", memory_by_rlimit=False),
    _language("kotlin", "Kotlin", 250, "*.kt", "kotlinc -d {path}/ -- {files}",
              "kotlin -Dfile.encoding=UTF-8 -J-XX:+UseSerialGC -J-XX:-UsePerfData -J-Xss64m "
              "-J-Xms{memlim}m -J-Xmx{memlim}m -cp {path}/ {Mainclass}Kt", memory_by_rlimit=False),
    _language("rust", "Rust", 575, "*.rs",
              "rustc -C opt-level=3 --crate-type bin --edition 2021 {mainfile} -o {binary}",
              "{binary}"),
    _language("go", "Go", 400, "*.go", "go build -o {binary} {files}", "{binary}"),
    _language("javascript", "JavaScript", 500, "*.js", None, "node {mainfile}",
              stack_by_rlimit=False),
    _language("ruby", "Ruby", 650, "*.rb", "ruby -c {mainfile}", "ruby {mainfile}"),
    _language("bash", "Bash", 100, "*.sh *.bash", None, "bash {mainfile}"),
    _language("checktestdata", "Checktestdata", 0, "*.ctd",
              "{python3} -P {checktestdata} --check {mainfile}",
              "{python3} -P {checktestdata} {mainfile}"),
    # VIVA validators (BAPCtools'): run by a `viva` command on PATH (`java -jar viva.jar "$@"`)
    _language("viva", "VIVA", 0, "*.viva", None, "viva {mainfile} /dev/stdin"),
    # The spec's other languages (as problemtools' and BAPCtools'): SKIP without their toolchain.
    _language("csharp", "C#", 700, "*.cs",
              "mcs -out:{binary}.exe -optimize+ -r:System.Numerics {files}", "mono {binary}.exe"),
    _language("fsharp", "F#", 675, "*.fs",
              "fsharpc --out:{binary}.exe --optimize+ -r:System.Numerics {files}",
              "mono {binary}.exe"),
    _language("haskell", "Haskell", 600, "*.hs",
              "ghc -O2 -ferror-spans -threaded -rtsopts -o {binary} {files}",
              "{binary} +RTS -M{memlim}m -K8m -RTS"),
    _language("scala", "Scala", 550, "*.sc *.scala",
              "scalac -encoding UTF-8 -sourcepath {path} -d {path} {files}",
              "scala -J-Xmx{memlim}m -classpath {path} {mainclass}", memory_by_rlimit=False),
    _language("php", "PHP", 450, "*.php", "php -n -l {files}",
              "php -n -d memory_limit={memlim}m -f {mainfile}"),
    _language("ocaml", "OCaml", 375, "*.ml", "ocamlopt -o {binary} unix.cmxa str.cmxa {files}",
              "{binary}"),
    _language("pascal", "Pascal", 350, "*.pas", "fpc -o{binary} -O2 -XS -Xt {mainfile}",
              "{binary}"),
    _language("lisp", "Common Lisp", 200, "*.lisp *.cl",
              "sbcl --noinform --non-interactive --eval '(compile-file \"{mainfile}\")'",
              "sbcl --noinform --non-interactive --load {mainfile}"),
    _language("prolog", "Prolog", 90, "*.pl",
              "swipl -O -q -g main -t halt -o {binary} -c {files}", "{binary}"),
    _language("cobol", "COBOL", 50, "*.cob", "cobc -o {binary} -O2 -x -free {files}", "{binary}"),
)}
CHECKTESTDATA = Path(__file__).with_name("checktestdata.py")  # run as a script by {python3}
COMMAND = "command"      # a program's own build and run commands (`program_language`)
# A compile writes files as large as its program needs (a 512 MB static array is a 512 MB
# binary), bounded only against a compiler that writes without end.
COMPILE_FILE_MB = 4096
SCRIPT = "script"        # a single file with a #! line and no known extension
BUILD_RUN = "build-run"  # a folder with `build` / `run` scripts
# The programs told by their files, which build and run themselves (no compile or run template).
_SELF_BUILT = {code: Language(code, code, 0, (), None, (), (), builder=builder)
               for code, builder in ((SCRIPT, "the compiler"), (BUILD_RUN, "the build script"))}
_PYTHON2_SHEBANG = re.compile(rb"^#!.*python2\b")


def _first_line(path: Path) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.readline(200)
    except OSError:
        return b""


def detect_language(files: tuple[Path, ...] | list[Path]) -> str | None:
    """The language code of a program made of `files`, or None when none can be told."""
    names = [f for f in files if f.is_file()]
    if {f.name for f in names} & {"build", "run"}:
        return BUILD_RUN
    counts: dict[str, int] = {}
    for lang in LANGUAGES.values():
        for path in names:
            if not any(fnmatch.fnmatchcase(path.name, p) for p in lang.patterns):
                continue
            if path.suffix == ".py" and lang.code in ("python2", "python3") and \
                    (lang.code == "python2") != bool(_PYTHON2_SHEBANG.match(_first_line(path))):
                continue  # a `.py` file is Python 2 only by its #! line
            counts[lang.code] = counts.get(lang.code, 0) + 1
    if counts:
        return max(counts, key=lambda code: (counts[code], LANGUAGES[code].priority))
    return SCRIPT if len(names) == 1 and _first_line(names[0]).startswith(b"#!") else None


def polygon_language(source_type: str) -> tuple[str | None, str | None]:
    """(language code, C++ standard) for a Polygon source type such as `cpp.g++17`."""
    kind = source_type.lower()
    if kind.startswith("cpp") or kind.startswith("c++"):
        match = re.search(r"\+\+(\d\d)", kind)
        return "cpp", f"gnu++{match.group(1)}" if match else None
    for prefix, code in (("c.", "c"), ("python.2", "python2"), ("python.pypy2", "python2"),
                         ("python", "python3"), ("java", "java"), ("kotlin", "kotlin"),
                         ("rust", "rust"), ("go", "go"), ("ruby", "ruby"), ("js", "javascript")):
        if kind.startswith(prefix):
            return code, None
    return None, None


def main_file(program: Program, sources: list[str]) -> str:
    """problemtools' {mainfile}: the entry point, else `main.*`, else the first source."""
    if program.entrypoint and program.entrypoint in sources:
        return program.entrypoint
    ordered = sorted(sources)
    return next((name for name in ordered if re.fullmatch(r"[mM][aA][iI][nN]\..*", name)),
                ordered[0] if ordered else "")


@dataclass(frozen=True)
class Build:
    """A program ready to run (`verdict` None), or why it is not (`CE`, `SKIP`)."""

    program: Program
    verdict: Verdict | None
    argv: tuple[str, ...]
    language: str | None
    message: str
    directory: Path | None
    cached: bool
    memory_by_rlimit: bool = True

    @property
    def ok(self) -> bool:
        return self.verdict is None


BUILT = "ok"  # a build's `status` in its result.json (and a validator test's identity), or CE


def build_status(verdict: Verdict | None) -> str:
    """A build's `status` as its cached result.json says it."""
    return BUILT if verdict is None else verdict.value


_CE = build_status(Verdict.CE)


# How each tool is asked for its version (the rest answer `--version`).
VERSION_ARGS = {"go": ("version",), "java": ("-version",), "javac": ("-version",),
                "kotlin": ("-version",), "kotlinc": ("-version",), "scala": ("-version",),
                "scalac": ("-version",), "ocamlopt": ("-version",), "fpc": ("-iV",)}
PROBE_TIME_S = 60.0
_probed: dict[str, str | None] = {}
_probing = threading.Lock()  # two threads that want the same tool's answer run it once


def _tool_fails(tool: str) -> str | None:
    """Why `tool` does not really run here (asked its version once a process: a shim on PATH
    for a missing interpreter fails that), or None."""
    with _probing:
        if tool in _probed:
            return _probed[tool]
        path = shutil.which(tool)
        if path is None:
            _probed[tool] = f"{tool} not found on PATH"
            return _probed[tool]
        asked = VERSION_ARGS.get(tool, ("--version",))
        with scratch_folder(prefix="toolchain-") as scratch:  # run as compiles are
            done = run_build([path, *asked], Path(scratch), time_s=PROBE_TIME_S, memory_mb=None)
        _probed[tool] = None if done.exit_code == 0 else (
            f"{tool} ({path}) does not run: `{tool} {' '.join(asked)}` "
            f"{describe_failure(done, 'it').removeprefix('it ')}"
            + (f": {' '.join(done.output.split())[:200]}" if done.output else ""))
        return _probed[tool]


def toolchain_missing(language: str | None, building: bool = True,
                      compiling: bool = False) -> str | None:
    """Why a language cannot be built or run here (a tool not on PATH, or not running), or
    None. A build already made (`building` False) needs only the tools its run command starts;
    `compiling`: its compiler is only looked for on PATH (asked its version if it fails)."""
    lang = LANGUAGES.get(language or "")
    if lang is None:
        return None
    tools = lang.toolchain if building else tuple(t for t in lang.toolchain if t in lang.run)
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if missing:
        return f"toolchain missing for {lang.name}: {', '.join(missing)} not found on PATH"
    compiler = lang.compile[0] if compiling and lang.compile else None
    failing = [reason for reason in map(_tool_fails, (t for t in tools if t != compiler))
               if reason]
    if failing:
        return f"toolchain for {lang.name} does not run here: {'; '.join(failing)}"
    return None


def toolchain_notes(programs: tuple[Program, ...] | list[Program]) -> list[str]:
    """One note for each program whose language cannot run here: it is skipped."""
    return [f"{program.role.replace('_', ' ')} {program.name} cannot run here ({reason}): "
            "validation by it is skipped" for program in programs
            if (reason := toolchain_missing(program.language))]


def _relative_sources(program: Program) -> list[tuple[str, Path]]:
    """(name inside the build folder, file) for the program's files and included files."""
    path = program.path
    assert path is not None  # a program built from files
    if path.is_dir():
        pairs = [(str(f.relative_to(path)), f) for f in program.files]
    else:
        pairs = [(path.name, path), *((f.name, f) for f in program.files if f != path)]
    for extra in program.include_files:  # included files overwrite the program's own
        pairs = [(n, f) for n, f in pairs if n != extra.name] + [(extra.name, extra)]
    return pairs


def _cpp_standard(program: Program) -> str:
    declared = polygon_language(program.declared_type)[1] if program.declared_type else None
    return declared or "gnu++17"


def _hash(program: Program, lang: Language, pairs: list[tuple[str, Path]]) -> str:
    digest = hashlib.sha256()
    recipe: dict[str, Any] = {
        "language": lang.code, "std": _cpp_standard(program), "entry": program.entrypoint,
        "compile": lang.compile, "run": lang.run or None,  # (None: a self-built program's)
        "python": _python3(program) if lang.code in ("python3", "checktestdata") else None,
        "format": 2}
    if lang.code == "checktestdata":  # the build runs this very file with the package
        tool = hashlib.sha256(CHECKTESTDATA.read_bytes()).hexdigest()
        try:
            version = importlib.metadata.version("checktestdata")
        except importlib.metadata.PackageNotFoundError:
            version = "absent"
        recipe["tool"] = [str(CHECKTESTDATA), tool, version]
    digest.update(json.dumps(recipe, sort_keys=True).encode())
    for name, path in sorted(pairs):
        digest.update(name.encode() + b"\0" + file_sha256(path).digest())
    return digest.hexdigest()


def _expand(template: tuple[str, ...], values: dict[str, str], files: list[str]) -> list[str]:
    return [word for part in template
            for word in (files if part == "{files}" else [part.format(**values)])]


def build_program(program: Program, cache_dir: Path, *, compile_time_s: float = 60.0,
                  compile_memory_mb: int | None = 4096, language: Language | None = None,
                  sandbox: bool | None = None, hidden: tuple[str, ...] = ()) -> Build:
    """Build `program` into `cache_dir` (or find the build there) as `language` says, else as
    its own or detected language. `sandbox`, `hidden`: as `run_build`'s."""
    cache_dir = Path(cache_dir)
    pairs = _relative_sources(program)
    names = [name for name, _ in pairs]
    code = None if language else program.language or detect_language([f for _, f in pairs])
    lang = language or LANGUAGES.get(code or "") or _SELF_BUILT.get(code or "")
    if lang is None:
        return Build(program, Verdict.CE, (), None, f"cannot determine the language of "
                     f"{program.name} from its files: {', '.join(names) or 'none'}", None, False)
    key = _hash(program, lang, pairs)
    final = cache_dir / "builds" / key[:32]
    cached = _read_result(program, final, lang)
    missing = toolchain_missing(lang.code, building=cached is None, compiling=cached is None)
    if missing:
        return Build(program, Verdict.SKIP, (), lang.code, missing, None, False)
    if cached is not None:
        return cached
    final.parent.mkdir(parents=True, exist_ok=True)
    with open(final.parent / f".{key[:32]}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a second process waits for the first one's build
        cached = _read_result(program, final, lang)
        if cached is not None:
            return cached
        if program.role == "submission":  # its compiler sees no more than its run will
            from pipeline.programs.external import submission_hidden
            hidden = (*hidden, *submission_hidden())
        step = functools.partial(run_build, time_s=compile_time_s, memory_mb=compile_memory_mb,
                                 sandbox=sandbox, hidden=hidden)
        failing = _build_into(program, lang, pairs, final, key, step)
    if failing:
        return Build(program, Verdict.SKIP, (), lang.code, failing, None, False)
    built = _read_result(program, final, lang, cached=False)
    assert built is not None, f"build of {program.name} vanished from {final}"
    return built


def _build_into(program: Program, lang: Language, pairs: list[tuple[str, Path]], final: Path,
                key: str, step: Callable[..., ProcessResult]) -> str | None:
    """Copy the sources into a temporary folder beside `final`, compile there (by `step`) and
    rename it into place; returns why not when its compiler does not run here (nothing kept)."""
    work = Path(tempfile.mkdtemp(prefix=f".tmp-{key[:12]}-", dir=final.parent))
    work.chmod(0o755)  # a sandboxed program runs as another user, who must read its build
    try:
        for name, path in pairs:
            target = work / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
        result = _compile(program, lang, work, [name for name, _ in pairs], step)
        result["sources"] = [str(path) for _, path in pairs]  # what was built (`make bench`
                                                               # reads it with its time)
        if result["status"] == _CE:
            failing = toolchain_missing(lang.code)  # the compiler asked its version now
            if failing:
                return failing
        left = kind_of(work / "result.json")  # the build's own file of the pipeline's name
        if left is not None:
            if left != "a regular file":
                result = _failed(LeftBehind(work / "result.json", left, WRITTEN).left_by(
                    lang.builder))
            if left == "a folder":
                shutil.rmtree(work / "result.json")
            else:
                os.unlink(work / "result.json")  # (a link itself, never what it names)
        write_regular(work / "result.json", json.dumps(result).encode("utf-8"))
        with contextlib.suppress(OSError):  # another process renamed its identical build
            os.rename(work, final)          # into place first: this one is removed below
    finally:
        shutil.rmtree(work, ignore_errors=True)  # (renamed: nothing left to remove)
    return None


def run_build(argv: list[str], work: Path, *, time_s: float, memory_mb: int | None,
              sandbox: bool | None = None, hidden: tuple[str, ...] = ()) -> ProcessResult:
    """Run one build step in `work`, the one way every build runs: contained as programs are,
    writing only `work` and its private /tmp, under `COMPILE_FILE_MB` a file."""
    return run_limited(argv, cwd=work, time_s=time_s, memory_mb=memory_mb,
                       file_mb=COMPILE_FILE_MB, sandbox=sandbox, writable=(work,),
                       hidden=hidden, build=True)


def _compile(program: Program, lang: Language, work: Path, names: list[str],
             step: Callable[..., ProcessResult]) -> dict:
    """Compile in `work`; the result (status, run argv with {dir}, message, and the CPU and
    wall seconds of its compiler or build script) as JSON data."""
    spent: dict[str, float] = {}
    if lang.code == BUILD_RUN:
        build_script = work / "build"
        if build_script.exists():
            build_script.chmod(0o755)
            done = step(["/bin/sh", "./build"], work)
            if done.exit_code != 0:
                return _failed(describe_failure(done, "build script") + "\n" + done.output)
            spent = {"cpu_s": done.cpu_s, "wall_s": done.wall_s}
        run_script = work / "run"
        if kind_of(run_script) is None:
            return _failed("the build script made no `run` file")
        try:  # (made executable here, outside the build's containment: never through a link)
            chmod_regular(run_script, 0o755, "it is not run")
        except LeftBehind as error:
            return _failed(error.left_by(lang.builder))
        return {"status": BUILT, "run": ["{dir}/run"], "message": "", **spent}
    if lang.code == SCRIPT:
        (work / names[0]).chmod(0o755)
        return {"status": BUILT, "run": ["{dir}/" + names[0]], "message": ""}
    sources = [n for n in names if any(fnmatch.fnmatchcase(Path(n).name, p)
                                       for p in lang.patterns)]
    mainfile = main_file(program, sources)
    mainclass = Path(mainfile).stem
    values = {"binary": "program.bin", "path": ".", "mainfile": mainfile,
              "mainclass": mainclass, "Mainclass": mainclass[:1].upper() + mainclass[1:],
              "memlim": "{memlim}", "cpp_std": _cpp_standard(program),
              "python3": _python3(program),
              "checktestdata": str(CHECKTESTDATA)}
    message = ""
    if lang.compile is not None:
        if lang.code == COMMAND:  # a program's own build: `{exe}` and `{source}` as full paths
            values = dict(values, binary=str(work / "program.bin"),
                          mainfile=str(work / mainfile) if mainfile else "")
        try:
            argv = _expand(lang.compile, values, sources)
        except (KeyError, IndexError, ValueError) as error:
            return _failed(f"the build command has a field that is not {{exe}} or {{source}}: "
                           f"{error}")
        if argv[:3] == [sys.executable, "-m", "py_compile"]:
            failure, message = _byte_compile_here(work, argv[3:])
            if failure is not None:
                return _failed(f"the compiler exited with code 1\n{message}{failure}")
        else:
            done = step(argv, work) if lang.memory_by_rlimit else step(argv, work, memory_mb=None)
            message = done.output
            if done.exit_code != 0:
                return _failed(describe_failure(done, "the compiler")
                               + ("\n" + message if message else ""))
            spent = {"cpu_s": done.cpu_s, "wall_s": done.wall_s}
    run_values = dict(values, binary="{dir}/program.bin", path="{dir}",
                      mainfile="{dir}/" + mainfile)
    try:
        run = _expand(lang.run, run_values, sources)
    except (KeyError, IndexError, ValueError) as error:
        return _failed(f"the run command has a field that is not {{exe}} or {{source}}: {error}")
    return {"status": BUILT, "run": run, "message": message, **spent}


def _failed(message: str) -> dict:
    return {"status": _CE, "run": [], "message": message}


def _byte_compile_here(work: Path, names: list[str]) -> tuple[str | None, str]:
    """`{python3} -m py_compile NAMES` in `work`, done in this process (it runs none of the
    program's code): the first error as py_compile prints it (None: none), and the warnings."""
    with warnings.catch_warnings(record=True) as printed:
        warnings.simplefilter("default")  # as a fresh interpreter prints them
        failure = None
        for name in names:
            try:
                py_compile.compile(str(work / name), doraise=True)
            except py_compile.PyCompileError as error:
                failure = error.msg.replace(str(work) + os.sep, "")
            except (OSError, ValueError, RecursionError, MemoryError) as error:
                failure = f"{name}: {type(error).__name__}: {error}"
            if failure is not None:
                break
    shown = "".join(warnings.formatwarning(w.message, w.category, w.filename, w.lineno)
                    for w in printed if not issubclass(w.category, DeprecationWarning))
    return failure, shown.replace(str(work) + os.sep, "")


def _read_result(program: Program, final: Path, lang: Language, *,
                 cached: bool = True) -> Build | None:
    try:
        data = json.loads(read_regular(final / "result.json") or b"")
    except LeftBehind as error:  # (a build cached before links there were refused)
        return Build(program, Verdict.CE, (), lang.code, f"{error}: remove {final} to build it "
                     "again", final, cached)
    except (OSError, ValueError):
        return None
    argv = tuple(part.replace("{dir}", str(final)) for part in data["run"])
    verdict = None if data["status"] == BUILT else Verdict.from_string(data["status"])
    return Build(program, verdict, argv, lang.code, data["message"], final, cached,
                 memory_by_rlimit=lang.memory_by_rlimit)


def run_argv(build: Build, memory_mb: int) -> tuple[str, ...]:
    """The build's command with the memory limit filled in (JVM flags)."""
    return tuple(part.replace("{memlim}", str(memory_mb)) for part in build.argv)


@dataclass(frozen=True)
class Launch:
    """How a program runs under a memory limit: its command and the limits the kernel sets."""

    argv: tuple[str, ...]
    memory_mb: int | None  # address space (RLIMIT_AS); None: none (a JVM's heap is -Xmx)
    stack_mb: int | None   # RLIMIT_STACK; None: the runner's default; 0: unlimited


def launch(build: Build, memory_mb: int) -> Launch:
    """The one place a program's limits are set from its language, as BAPCtools sets them:
    `{memlim}` filled in (a JVM's `-Xmx`); `memory_mb` as its address space except for a JVM
    (it cannot start under one); the stack unlimited for node (its threads' stack size)."""
    lang = LANGUAGES.get(build.language or "")
    stack = 0 if lang is not None and not lang.stack_by_rlimit else None
    return Launch(run_argv(build, memory_mb), memory_mb if build.memory_by_rlimit else None,
                  stack)


# -- a program built where it runs --------------------------------------------------------------
BUILD_DIR_VARIABLE = "PIPELINE_BUILD_DIR"
DEFAULT_JVM_MEMORY_MB = 2048  # a JVM's heap where the run sets no memory limit


class BuildError(RuntimeError):
    """A program that cannot be built (source unreadable, language unknown, build failed)."""


def worker_build_dir() -> Path:
    """Where `build_here` keeps builds: `PIPELINE_BUILD_DIR`, else the user's cache folder."""
    configured = os.environ.get(BUILD_DIR_VARIABLE)
    if configured:
        return Path(configured)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "gamebench" / "build"


def pack(program: Program) -> Program:
    """`program` with its source's bytes and its language (unless it has a `build` of its
    own): what `build_here` needs."""
    files = (program.path,) if program.path is not None else ()
    try:
        source = files[0].read_bytes() if files else None
    except OSError as error:
        raise BuildError(f"cannot read the source of {program.name}: {program.path}: "
                         f"{error.strerror or error}") from None
    language = None if program.build is not None else detect_language(files)
    if program.build is None and language not in LANGUAGES:
        known = ", ".join(sorted({p[1:] for lang in LANGUAGES.values() for p in lang.patterns}))
        raise BuildError(f"cannot tell the language of {program.name}'s source "
                         f"{program.path} from its name (known: {known})")
    return replace(program, files=files, language=language, content=source)


def source_key(program: Program) -> str:
    """The name of a packed program's build: a hash of its language, commands and source."""
    digest = hashlib.sha256(repr((program.language, program.build, program.run,
                                  program.path.name if program.path else None,
                                  program.interpreter)).encode())
    digest.update(program.content or b"")
    return digest.hexdigest()[:16]


def program_language(program: Program) -> Language:
    """How a packed program is built and run: its language, or its own commands as one, `build`
    (None: nothing to build) and `run` split as a shell would (never run through one), `{exe}`
    and `{source}` filled in after."""
    if program.language is not None:
        return LANGUAGES[program.language]

    def words(command: str) -> tuple[str, ...]:
        return tuple(word.replace("{exe}", "{binary}").replace("{source}", "{mainfile}")
                     for word in shlex.split(command))

    name = program.path.name if program.path else ""
    return Language(COMMAND, "its own build and run commands", 0,
                    (glob.escape(name),) if name else (),
                    words(program.build) if program.build is not None else None,
                    words(program.run or "{exe}"), (), builder="the build command")


def build_here(program: Program, cache_dir: Path | None = None, *, memory_mb: int | None = None,
               sandbox: bool | None = None, hidden: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The argv of the packed `program` here, built into `cache_dir` (default
    `worker_build_dir()`) unless there already; `memory_mb`: a JVM's heap."""
    cache = (cache_dir or worker_build_dir()).resolve()
    folder = cache / "sources" / source_key(program)
    folder.mkdir(parents=True, exist_ok=True)
    files: tuple[Path, ...] = ()
    if program.path is not None:
        source = folder / program.path.name
        if not source.is_file() or source.read_bytes() != program.content:
            atomic_write(source, lambda tmp: Path(tmp).write_bytes(program.content or b""))
        files = (source,)
    written = replace(program, path=files[0] if files else folder, files=files, content=None)
    build = build_program(written, cache, language=program_language(program), sandbox=sandbox,
                          hidden=hidden)
    if not build.ok:  # the message: how the compiler ended, then what it said
        how, _, said = build.message.strip().partition("\n")
        raise BuildError(f"building {program.name} failed ({how})"
                         + (f":\n{excerpt(said, 2000)}" if said.strip() else ""))
    return run_argv(build, memory_mb or DEFAULT_JVM_MEMORY_MB)
