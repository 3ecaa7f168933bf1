"""External solvers of a run and their cached builds.

External solvers come from `--external NAME=COMMAND`, from the problem's own `[[solutions]]`
(its `problem.toml`) and from the user's `configs/solvers.toml`:

    [[solver]]
    name = "mine"
    problem = "<problem id>"
    source = "path/to/mine.cpp"                         # optional, hashed for the build cache
    build = "g++ -O2 -std=c++17 -o {exe} {source}"      # optional
    run = "{exe}"
    time_limit_s = 2.0                                   # optional

A source file is a program: `--external NAME=sol.cpp` (or `Sol.java`, `sol.py`, `sol.rs`, ...;
`--external sol.cpp` is named `sol`), and a configured solver with a `source` and no `build`, is
built and run as the language table builds a package's submissions
(`pipeline.programs.languages`: the language told from the file's name). A solver with a
`build` command of its own is built by the same builder, its commands taken as its language.
Commands are split like a shell would split them (`shlex.split`) but never run through a shell.
A build runs once per distinct content (language, commands, source's name and bytes) and is
kept under `DATA/build/builds/<hash>/`, so later runs reuse it; a source that does not compile
stops the run with the compiler's message.

A run on a cluster does not build here: the solver travels as a `BuildRecipe` (the commands and
the source's bytes, `build_recipe`) and each worker machine builds it with `build_here` into its
own cache (`PIPELINE_BUILD_DIR`, default `~/.cache/gamebench/build/`), the source written there
first. Two processes building one program at once end with the one build.

A program that is a JVM (`java Sol.java`) gets the memory limit as its own `-Xmx` flag, not as
an address-space limit, under which it cannot start, and the language table's other JVM flags
(`jvm_command`), as the language table runs Java.

The program of a command (its first word) is resolved before a run starts (`resolve_program`):
a path is taken from the folder `pipeline` was started in (for `--external`) or from the
repository (for `configs/solvers.toml`), a bare name is looked up on PATH; one that does not
resolve to an executable file stops the run before any case runs.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

from pipeline.config import CONFIG_DIR, REPO_ROOT, read_configured_solvers
from pipeline.errors import UserError
from pipeline.fsutil import atomic_write, atomic_write_text
from pipeline.programs.languages import (LANGUAGES, Language, build_program, command_language,
                                         detect_language, run_argv)
from pipeline.programs.program import Program
from pipeline.problems import Problem
from pipeline.problems.model import Solution
from pipeline.programs.jobs import BuildRecipe

BUILD_DIR_VARIABLE = "PIPELINE_BUILD_DIR"


@dataclass(frozen=True)
class ExternalSolver:
    name: str
    problem: str
    run: str                  # the command ("" or "{exe}" for a source built by its language)
    build: str | None = None  # its own build command (None: the language table's, or none)
    source: str | None = None
    time_limit_s: float | None = None
    base_dir: str | None = None  # where a relative program path starts (None: the repository)


class BuildError(RuntimeError):
    pass


def _external(problem_id: str, solution: Solution) -> ExternalSolver:
    return ExternalSolver(name=solution.name, problem=problem_id, run=solution.run,
                          build=solution.build,
                          source=str(solution.source) if solution.source else None,
                          time_limit_s=solution.time_limit_s)


def configured_externals(problem: Problem, config_dir: Path = CONFIG_DIR) -> list[ExternalSolver]:
    """The problem's own solutions, then the user's configured solvers of the problem (a
    package's submissions are not external programs: see `submissions`)."""
    return [_external(problem.id, s) for s in problem.solutions if s.submission is None] + [
        _external(problem.id, entry.solution)
        for entry in read_configured_solvers(config_dir / "solvers.toml")
        if entry.problem == problem.id]


def submissions(problem: Problem) -> list[str]:
    """The names of a problem package's submissions (none for a built-in problem)."""
    return [s.name for s in problem.solutions if s.submission is not None]


# Arguments that name a file by these suffixes must name one that exists (`python3 nosuch.py`).
FILE_SUFFIXES = frozenset({p[1:] for lang in LANGUAGES.values() for p in lang.patterns}
                          | {".jar", ".class", ".pl", ".php", ".lua", ".R", ".jl", ".exe"})
JVM_STACK = "-Xss64m"
JVM_NO_PERF_DATA = "-XX:-UsePerfData"  # JVMs side by side race for /tmp/hsperfdata_* and warn
DEFAULT_JVM_MEMORY_MB = 2048  # a JVM's heap where the run sets no memory limit


def source_language(path: Path) -> str | None:
    """The language table's code for a program that is the single source file `path`, or None
    when it is not one: no such file, no known suffix, or a script run as it is (executable,
    with a `#!` line)."""
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


def parse_external(text: str, problem_id: str) -> ExternalSolver:
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
        return ExternalSolver(name=name.strip(), problem=problem_id, run="",
                              source=str((cwd / words[0]).resolve()), base_dir=str(cwd))
    return ExternalSolver(name=name.strip(), problem=problem_id, run=command.strip(),
                          base_dir=str(cwd))


def resolve_program(solver: ExternalSolver, argv: tuple[str, ...]) -> tuple[str, ...]:
    """`argv` with its program as an absolute path; ValueError (naming the solver) when the
    program does not resolve to a file this user may execute, or an argument that names a
    source or script file (`sol.py`) names none."""
    if not argv:
        raise UserError(f"external program {solver.name!r}: the command is empty")
    program = argv[0]
    base = Path(solver.base_dir) if solver.base_dir else REPO_ROOT
    if "/" not in program:
        found = shutil.which(program)
        if found is None:
            raise UserError(f"external program {solver.name!r}: {program!r} is not on PATH")
        path = os.path.abspath(found)
    else:
        path = os.path.abspath(base / program)
        if not os.path.exists(path):
            raise UserError(f"external program {solver.name!r}: {path} does not exist"
                            f"{' (taken from ' + str(base) + ')' if program[0] != '/' else ''}")
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise UserError(f"external program {solver.name!r}: {path} is not an executable file")
    return (path, *(_file_argument(solver, word, base) for word in argv[1:]))


def _file_argument(solver: ExternalSolver, word: str, base: Path) -> str:
    """An argument that names a file beside the command (`sol.py` in `python3 sol.py`: a `/`
    or a suffix, and the file exists; the words the run's identity digests) as an absolute
    path, since the program runs in an empty folder of its own; any other word as it is. A
    word with a source or script suffix that names no file stops the run."""
    if word.startswith("-") or "{" in word or not ("/" in word or Path(word).suffix):
        return word
    path = base / word
    if path.is_file():
        return os.path.abspath(path)
    if Path(word).suffix in FILE_SUFFIXES and not path.exists():
        raise UserError(f"external program {solver.name!r}: its argument {word!r} names no "
                        f"file: {os.path.abspath(path)} does not exist")
    return word


def builds_from_source(solver: ExternalSolver) -> bool:
    """Whether `solver` is built (by the language table or its own `build`), not only run."""
    return solver.build is not None or (solver.source is not None
                                        and solver.run.strip() in ("", "{exe}"))


def build_recipe(solver: ExternalSolver, base_dir: Path = REPO_ROOT,
                 memory_mb: int | None = None) -> BuildRecipe | None:
    """What a machine needs to build `solver` (None when it is only a command); `memory_mb`
    is the heap a JVM language is run with."""
    if not builds_from_source(solver):
        return None
    source = path = None
    if solver.source:
        path = base_dir / solver.source
        try:
            source = path.read_bytes()
        except OSError as error:
            raise BuildError(f"cannot read the source of {solver.name}: {path}: "
                             f"{error.strerror or error}") from None
    language = None
    if solver.build is None:
        language = detect_language([path])
        if language not in LANGUAGES:
            known = ", ".join(sorted(FILE_SUFFIXES & {p[1:] for lang in LANGUAGES.values()
                                                      for p in lang.patterns}))
            raise BuildError(f"cannot tell the language of {solver.name}'s source {path} from "
                             f"its name (known: {known})")
    digest = hashlib.sha256(repr((language, solver.build, solver.run,
                                  path.name if path else None)).encode())
    digest.update(source or b"")
    return BuildRecipe(name=solver.name, build=solver.build, run=solver.run,
                       key=digest.hexdigest()[:16], source_name=path.name if path else None,
                       source=source, language=language, memory_mb=memory_mb)


def recipe_language(recipe: BuildRecipe) -> Language:
    """How `recipe` is built: its language in the table, or its own commands."""
    if recipe.language is not None:
        return LANGUAGES[recipe.language]
    return command_language(recipe.build, recipe.run or "{exe}", recipe.source_name)


def prepare(solver: ExternalSolver, data_dir: Path, base_dir: Path = REPO_ROOT,
            memory_mb: int | None = None) -> tuple[str, ...]:
    """The argv to run `solver`, building it first (once per content) if it is built."""
    recipe = build_recipe(solver, base_dir, memory_mb)
    if recipe is None:
        return tuple(shlex.split(solver.run))
    return build_here(recipe, Path(data_dir) / "build")


def worker_build_dir() -> Path:
    """Where `build_here` keeps builds: `PIPELINE_BUILD_DIR`, else the user's cache folder."""
    configured = os.environ.get(BUILD_DIR_VARIABLE)
    if configured:
        return Path(configured)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "gamebench" / "build"


def build_here(recipe: BuildRecipe, cache_dir: Path | None = None, *,
               sandbox: bool | None = None, hidden: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The argv of `recipe`'s program on this machine, built into `cache_dir` (default
    `worker_build_dir()`) by the language table's builder unless the same build is there;
    the build is contained as programs are (`sandbox`, `hidden`: as the run's programs, on a
    worker; None: this process's default, the run's `--sandbox` here)."""
    cache = (cache_dir or worker_build_dir()).resolve()
    folder = cache / "sources" / recipe.key
    folder.mkdir(parents=True, exist_ok=True)
    files: tuple[Path, ...] = ()
    if recipe.source_name is not None:
        source = folder / recipe.source_name
        if not source.is_file() or source.read_bytes() != recipe.source:
            atomic_write(source, lambda tmp: Path(tmp).write_bytes(recipe.source or b""))
        files = (source,)
    program = Program(name=recipe.name, role="submission", path=files[0] if files else folder,
                      files=files, language=recipe.language)
    build = build_program(program, cache, language=recipe_language(recipe), sandbox=sandbox,
                          hidden=hidden)
    if not build.ok:  # the message: how the compiler ended, then what it said
        how, _, said = build.message.strip().partition("\n")
        raise BuildError(f"building {recipe.name} failed ({how})"
                         + (f":\n{said.strip()[-2000:]}" if said.strip() else ""))
    return run_argv(build, recipe.memory_mb or DEFAULT_JVM_MEMORY_MB)


def jvm_command(argv: tuple[str, ...], memory_mb: int | None) -> tuple[str, ...] | None:
    """`argv` with the memory limit as the JVM's own flags when its program is `java` (None
    when it is not): a JVM reserves more address space than any judge's limit at start."""
    if not argv or os.path.basename(os.path.realpath(argv[0])) != "java":
        return None
    flags = [] if any(w.startswith("-Xmx") for w in argv) or not memory_mb \
        else [f"-Xmx{memory_mb}m"]
    if not any(w.startswith("-Xss") for w in argv):
        flags.append(JVM_STACK)
    if not any("PerfData" in w for w in argv):
        flags.append(JVM_NO_PERF_DATA)
    return (argv[0], *flags, *argv[1:])


@dataclass(frozen=True)
class ReadyProgram:
    """An external program ready to be run: its argv (empty when the workers build it from
    `recipe`) and the address-space limit it runs under."""

    argv: tuple[str, ...]
    recipe: BuildRecipe | None  # only when it is built where it runs
    memory_mb: int | None


def ready_program(solver: ExternalSolver, data_dir: Path, memory_mb: int | None,
                  build_on_workers: bool = False) -> ReadyProgram:
    """Build `solver` here (or leave it to the workers) and resolve its program; a JVM gets
    its memory limit as its own flags (see the module)."""
    recipe = build_recipe(solver, memory_mb=memory_mb)
    if recipe is not None:
        limit = memory_mb if recipe_language(recipe).memory_by_rlimit else None
        if build_on_workers:
            return ReadyProgram((), recipe, limit)
        return ReadyProgram(resolve_program(solver, build_here(recipe, Path(data_dir) / "build")),
                            None, limit)
    argv = resolve_program(solver, tuple(shlex.split(solver.run)))
    jvm = jvm_command(argv, memory_mb)
    return ReadyProgram(argv, None, memory_mb) if jvm is None else ReadyProgram(jvm, None, None)
