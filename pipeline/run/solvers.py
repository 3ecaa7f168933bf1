"""External solvers of a run (`--external NAME=COMMAND`, the problem's `[[solutions]]`, the
user's `configs/solvers.toml`; docs/commands.md, "Your own programs"), each made ready to run:

1. its command's program resolved before the run starts (`resolve_program`);
2. a source, or its own `build`, built once per content (`languages`), on a cluster by each
   worker from its source (`languages.pack`); commands are never run through a shell;
3. a JVM given the memory limit as `-Xmx` (`jvm_command`), and `java Sol.java` compiled once
   by the `javac` beside it where it can be (`built_once`), said in one line.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from dataclasses import replace
from pathlib import Path

from pipeline.config import CONFIG_DIR, REPO_ROOT, read_configured_solvers
from pipeline.errors import UserError
from pipeline.problems import Problem
from pipeline.programs.jobs import SolverSpec
from pipeline.programs.languages import (
    LANGUAGES,
    BuildError,
    build_here,
    detect_language,
    pack,
    program_language,
)
from pipeline.programs.program import Program


def configured_externals(problem: Problem, config_dir: Path = CONFIG_DIR) -> list[Program]:
    """The problem's own solutions, then the user's configured solvers of the problem."""
    return [*problem.solutions, *(entry.program
                                  for entry in read_configured_solvers(config_dir / "solvers.toml")
                                  if entry.problem == problem.id)]


def submissions(problem: Problem) -> list[str]:
    """The names of a problem package's submissions (none for a built-in problem)."""
    return [program.name for program in problem.submissions]


# Arguments that name a file by these suffixes must name one that exists (`python3 nosuch.py`).
FILE_SUFFIXES = frozenset({p[1:] for lang in LANGUAGES.values() for p in lang.patterns}
                          | {".jar", ".class", ".pl", ".php", ".lua", ".R", ".jl", ".exe"})
JVM_STACK = "-Xss64m"
JVM_NO_PERF_DATA = "-XX:-UsePerfData"  # JVMs side by side race for /tmp/hsperfdata_* and warn


def source_language(path: Path) -> str | None:
    """The language of a program that is the single source file `path`, or None (no such
    file, no known suffix, or an executable script)."""
    if not path.is_file():
        return None
    code = detect_language([path])
    if code not in LANGUAGES:
        return None
    with open(path, "rb") as handle:
        script = handle.read(2) == b"#!"
    if script and os.access(path, os.X_OK):
        return None
    return code


def parse_external(text: str) -> Program:
    """`NAME=COMMAND`, `NAME=SOURCE` or `SOURCE` (named by its stem) from the command line."""
    cwd = Path(os.getcwd())
    name, sep, command = text.partition("=")
    if not sep:
        path = cwd / text.strip()
        name, command = path.stem, text
        if not text.strip() or source_language(path) is None:
            missing = path.suffix in FILE_SUFFIXES and not path.exists()
            raise UserError(f"--external {text}: {path} does not exist" if missing
                             else f"--external wants NAME=COMMAND or a source file, got {text!r}")
    if not name.strip() or not command.strip():
        raise UserError(f"--external wants NAME=COMMAND, got {text!r}")
    if any(ord(c) < 32 or ord(c) == 127 for c in name):  # a newline forged summary lines
        raise UserError(f"--external NAME may not hold a control character, got {name!r}")
    words = shlex.split(command)
    if len(words) == 1 and source_language(cwd / words[0]) is not None:
        source = (cwd / words[0]).resolve()
        return Program(name=name.strip(), path=source, files=(source,), base_dir=cwd)
    return Program(name=name.strip(), run=command.strip(), base_dir=cwd)


def resolve_program(program: Program, argv: tuple[str, ...]) -> tuple[str, ...]:
    """`argv` with its program as an absolute path; a UserError naming the program when it
    is no file this user may execute, or an argument with a source suffix names none."""
    if not argv:
        raise UserError(f"external program {program.name!r}: the command is empty")
    command = argv[0]
    base = _base(program)
    if "/" not in command:
        found = shutil.which(command)
        if found is None:
            raise UserError(f"external program {program.name!r}: {command!r} is not on PATH")
        path = os.path.abspath(found)
    else:
        path = os.path.abspath(base / command)
        if not os.path.exists(path):
            raise UserError(f"external program {program.name!r}: {path} does not exist"
                            f"{' (taken from ' + str(base) + ')' if command[0] != '/' else ''}")
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise UserError(f"external program {program.name!r}: {path} is not an executable file")
    return (path, *(_file_argument(program, word, base) for word in argv[1:]))


def _base(program: Program) -> Path:
    """Where the program's relative paths start: its `base_dir`, else the repository."""
    return Path(program.base_dir) if program.base_dir else REPO_ROOT


def _file_argument(program: Program, word: str, base: Path) -> str:
    """An argument that names an existing file (a `/` or a suffix: `sol.py`) as an absolute
    path, since the program runs in an empty folder; one with a source suffix and no file
    stops the run; any other word as it is."""
    if word.startswith("-") or "{" in word or not ("/" in word or Path(word).suffix):
        return word
    path = base / word
    if path.is_file():
        return os.path.abspath(path)
    if Path(word).suffix in FILE_SUFFIXES and not path.exists():
        raise UserError(f"external program {program.name!r}: its argument {word!r} names no "
                        f"file: {os.path.abspath(path)} does not exist")
    return word


def packed(program: Program) -> Program:
    """The built `program` with its source read in (`languages.pack`)."""
    return pack(program if program.path is None
                else replace(program, path=_base(program) / program.path))


def prepare(program: Program, data_dir: Path, memory_mb: int | None = None) -> tuple[str, ...]:
    """The argv to run `program`, building it first (once per content) if it is built;
    `memory_mb` is the heap a JVM language is run with."""
    if not program.builds_from_source:
        return tuple(shlex.split(program.run))
    return build_here(packed(program), Path(data_dir) / "build", memory_mb=memory_mb)


def jvm_command(argv: tuple[str, ...], memory_mb: int | None) -> tuple[str, ...] | None:
    """`argv` with the memory limit as the JVM's own flags when its program is `java` (a JVM
    reserves more address space than any limit), else None."""
    if not argv or os.path.basename(os.path.realpath(argv[0])) != "java":
        return None
    flags = [] if any(w.startswith("-Xmx") for w in argv) or not memory_mb \
        else [f"-Xmx{memory_mb}m"]
    if not any(w.startswith("-Xss") for w in argv):
        flags.append(JVM_STACK)
    if not any("PerfData" in w for w in argv):
        flags.append(JVM_NO_PERF_DATA)
    return (argv[0], *flags, *argv[1:])


# Options of java that only set the JVM (memory, stack, properties, assertions), with which
# java's source launcher runs a source as the JVM runs its class built by javac.
JVM_ONLY_OPTION = re.compile(r"-(X\S+|D\S+|(ea|da|enableassertions|disableassertions)(:\S*)?"
                             r"|esa|dsa|enablesystemassertions|disablesystemassertions)")
JAVAC = ("-encoding", "UTF-8", "-proc:none", "-d", "{path}", "{source}")


def built_once(program: Program, argv: tuple[str, ...],
               data_dir: Path) -> tuple[Program | None, str | None]:
    """`program`, whose command `argv` is `java [options] Sol.java [args]`, as a program
    built once (here, to prove it builds) by the `javac` beside that `java` and run as class
    `Sol`, with the line that says so; (None, why it runs as typed) when it cannot be;
    (None, None) for any other command."""
    index = next((i for i, word in enumerate(argv[1:], 1) if not word.startswith("-")), None)
    if index is None or not argv[index].endswith(".java") or not os.path.isfile(argv[index]):
        return None, None
    source = Path(argv[index])
    typed = f"external {program.name}: `{program.run.strip()}`"
    as_typed = f"{typed} runs as typed, compiling {source.name} at every start:"
    other = next((w for w in argv[1:index] if not JVM_ONLY_OPTION.fullmatch(w)), None)
    if other is not None:
        return None, f"{as_typed} its option {other} is not one it is built once with"
    if any("{" in word or "}" in word for word in argv):
        return None, f"{as_typed} a word of it holds a brace"
    javac = Path(os.path.realpath(argv[0])).with_name("javac")
    if not os.access(javac, os.X_OK):
        return None, f"{as_typed} there is no javac beside {os.path.realpath(argv[0])}"
    built = replace(program, path=source, files=(source,),
                    build=shlex.join((str(javac), *JAVAC)),
                    run=shlex.join((*argv[:index], "-cp", "{path}", "{mainclass}",
                                    *argv[index + 1:])))
    try:
        run = build_here(packed(built), Path(data_dir) / "build")
    except BuildError:
        return None, f"{as_typed} {javac} does not compile it alone"
    if not Path(run[index + 1], f"{source.stem}.class").is_file():
        return None, f"{as_typed} javac makes no class {source.stem} of it"
    return built, f"{typed} built once as Java ({source.name})"


def ready(spec: SolverSpec, data_dir: Path, build_on_workers: bool = False,
          notes: list[str] | None = None) -> SolverSpec:
    """`spec` of an external program ready to run: built here (`build_on_workers`: packed)
    and its command resolved, a JVM's memory limit as its flags (see the module); `notes`
    gets `built_once`'s line."""
    program, memory_mb = spec.program, spec.memory_mb
    assert program is not None, f"{spec.name}: an external program's spec names its program"
    if program.builds_from_source:
        travelling = packed(program)
        limit = memory_mb if program_language(travelling).memory_by_rlimit else None
        if build_on_workers:
            return replace(spec, argv=(), program=travelling, memory_mb=limit, heap_mb=memory_mb)
        built = build_here(travelling, Path(data_dir) / "build", memory_mb=memory_mb)
        return replace(spec, argv=resolve_program(program, built), memory_mb=limit)
    argv = resolve_program(program, tuple(shlex.split(program.run)))
    jvm = jvm_command(argv, memory_mb)
    if jvm is None:
        return replace(spec, argv=argv)
    once, note = built_once(program, jvm, data_dir)
    if note is not None and notes is not None:
        notes.append(note)
    if once is None:
        return replace(spec, argv=jvm, memory_mb=None)
    if build_on_workers:
        return replace(spec, argv=(), program=packed(once), memory_mb=None)
    return replace(spec, argv=build_here(packed(once), Path(data_dir) / "build"),
                   memory_mb=None)
