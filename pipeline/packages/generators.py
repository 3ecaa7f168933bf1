"""A problem package's generators as recipes: a command (split as a shell would, never run
through one) whose standard output is the input, `{seed}` drawn per case from the recipe's
random source. A Polygon package's recipes are its generated tests' commands; `--generator`
gives one of a package's programs, a path or a command on PATH (docs/stress.md). testlib's
`registerGen` seeds from the whole command line, so a last integer that tells commands apart
becomes `{seed}`. A failing generator raises `GeneratorError` naming the command.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache, partial
from pathlib import Path

from pipeline.errors import UserError
from pipeline.fsutil import scratch_folder
from pipeline.packages.generators_yaml import GENERATOR_MEMORY_MB, GENERATOR_TIME_S, source_program
from pipeline.packages.model import Package, Program
from pipeline.problems.model import Case, Recipe
from pipeline.programs.languages import SCRIPT, Launch, build_program, launch
from pipeline.programs.procs import describe_failure, run_limited
from pipeline.untrusted import excerpt

SEED = "{seed}"
SEED_RANGE = (1, 2**31)        # the numbers `{seed}` is filled in with
_INTEGER = re.compile(r"-?[0-9]+")


class GeneratorError(UserError):
    """A generator that cannot be found, built or run, or a command that is not one."""


@dataclass(frozen=True)
class GeneratorCommand:
    """A generator command with `{seed}` in it, the group of its inputs, and where it came from."""

    words: tuple[str, ...]
    group: str = ""
    origin: str = ""

    @property
    def name(self) -> str:
        return " ".join(self.words)


def split_command(text: str, what: str) -> tuple[str, ...]:
    """A command's words (a Polygon `> $` dropped); `GeneratorError` when empty or badly quoted."""
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise GeneratorError(f"{what}: cannot split {text!r} into words: {error}") from None
    if len(words) >= 2 and words[-2] == ">":
        words = words[:-2]
    if not words:
        raise GeneratorError(f"{what}: the generator command is empty")
    return tuple(words)


def polygon_commands(package: Package) -> list[GeneratorCommand]:
    """The seeded commands of a package's generated tests (see the module), in test order."""
    made: list[tuple[tuple[str, ...], str, str]] = []
    for case in package.cases:
        if not case.generated_by:
            continue
        try:
            words = split_command(case.generated_by, case.name)
        except GeneratorError:  # the loader ran the commands it needed; this one is unusable
            continue
        made.append((words, case.group, case.name))
    endings: dict[tuple[str, ...], set[str]] = {}
    for words, _, _ in made:
        if len(words) >= 3 and _INTEGER.fullmatch(words[-1]):
            endings.setdefault(words[:-1], set()).add(words[-1])
    commands: dict[tuple[str, ...], GeneratorCommand] = {}
    for words, group, test in made:
        if len(endings.get(words[:-1], ())) >= 2:
            seeded, how = (*words[:-1], SEED), "its last argument as the seed"
        else:
            seeded, how = (*words, SEED), "the seed appended"
        commands.setdefault(seeded, GeneratorCommand(
            seeded, group, f"test {test} (`{' '.join(words)}`), {how}"))
    return list(commands.values())


def _program_of(package: Package, word: str) -> Program | None:
    """The package's program named `word`: a Polygon executable (by name or source stem), or
    a file or folder of the package (from its root, or under `generators/`)."""
    for program in package.generators:
        if program.name in (word, Path(word).stem) or (
                program.path is not None and program.path.name == word):
            return program
    root = package.root.resolve()
    for path in (root / word, root / "generators" / word):
        resolved = path.resolve()  # a file or a folder inside the package
        if resolved.is_relative_to(root) and (resolved.is_file() or (
                resolved.is_dir() and resolved != root)):
            include = next((p.include_files for p in package.programs if p.include_files), ())
            polygon = package.format == "polygon"
            return replace(source_program(word, resolved),
                           convention="testlib" if polygon else "kattis",
                           include_files=include if polygon else ())
    return None


def resolve_generator(word: str, package: Package | None, build_dir: Path) -> Launch:
    """How generator `word` runs (built first when it is a source): its command and limits."""
    program = _program_of(package, word) if package is not None else None
    where = f"package {package.short_name}" if package is not None else ""
    if program is None:
        path = Path(word).expanduser()
        if path.is_file() or path.is_dir():
            path = path.resolve()
            program = source_program(path.name, path)
            if path.is_file() and program.language in (None, SCRIPT):
                if not os.access(path, os.X_OK):
                    raise GeneratorError(f"generator {word}: {path} is neither a source file "
                                         "of a known language nor executable")
                return Launch((str(path),), GENERATOR_MEMORY_MB, None)
        elif "/" not in word and (on_path := shutil.which(word)):
            return Launch((on_path,), GENERATOR_MEMORY_MB, None)
        else:
            known = ", ".join(p.name for p in package.generators) if package else ""
            raise GeneratorError(
                f"generator {word!r}: not a program of {where or 'the problem'}"
                + (f" (its generators: {known})" if known else "")
                + ", not a file, and not a command on PATH")
    build = build_program(program, build_dir)
    if not build.ok:
        raise GeneratorError(f"generator {word} did not build ({build.verdict}): "
                             f"{build.message.strip()[:300]}")
    return launch(build, GENERATOR_MEMORY_MB)


def run_generator(argv: tuple[str, ...], command: str,
                  memory_mb: int | None = GENERATOR_MEMORY_MB) -> str:
    """The standard output of the generator run as `argv` under an address-space limit of
    `memory_mb` (None: none, a JVM's; `launch`); `command` names it in errors."""
    with scratch_folder(prefix="gamebench-generate-") as scratch:
        output = scratch / "output"
        done = run_limited(list(argv), cwd=scratch / "run", stdout=output,
                           time_s=GENERATOR_TIME_S, memory_mb=memory_mb)
        if done.error or done.timed_out or done.exit_code != 0:
            stderr = excerpt(done.stderr or "", 300)
            raise GeneratorError(f"`{command}` failed: {describe_failure(done, 'the generator')}"
                                 + (f": {stderr}" if stderr else ""))
        try:
            return output.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            raise GeneratorError(f"`{command}` wrote output that is not UTF-8 text") from None


def command_recipe(command: GeneratorCommand, resolve: Callable[[], Launch],
                   parse: Callable[[str], Case], description: str) -> Recipe:
    """The recipe running `command` (`resolve()` called on the first case), `parse` its output."""
    resolved = cache(resolve)  # (until it succeeds)

    def make(rng) -> Case:
        run = resolved()
        seed = str(rng.randrange(*SEED_RANGE))
        args = tuple(word.replace(SEED, seed) for word in command.words[1:])
        return parse(run_generator((*run.argv, *args), " ".join((command.words[0], *args)),
                                   run.memory_mb))

    return Recipe(command.name, "family", description, make, group=command.group)


def package_recipes(package: Package, build_dir: Path,
                    parse: Callable[[str], Case]) -> tuple[Recipe, ...]:
    """A Polygon package's recipes, one per seeded command; nothing built before its first case."""
    return tuple(
        command_recipe(command, partial(resolve_generator, command.words[0], package, build_dir),
                       parse, f"generator command of {command.origin}")
        for command in polygon_commands(package))


def generator_recipe(text: str, package: Package | None, build_dir: Path,
                     parse: Callable[[str], Case], group: str = "") -> Recipe:
    """The recipe of a `--generator` command, its program built now (errors stop the session)."""
    words = split_command(text, "--generator")
    if not any(SEED in word for word in words[1:]):  # else `{seed}` is appended
        words = (*words, SEED)
    run = resolve_generator(words[0], package, build_dir)
    command = GeneratorCommand(words, group, "--generator")
    return command_recipe(command, lambda: run, parse, f"--generator {text}")
