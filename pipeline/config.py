"""Reading the pipeline's TOML files (`problem.toml`, `configs/nightly.toml`,
`configs/solvers.toml`), every key checked: a file that is not valid TOML, has an unknown key,
or a value of the wrong type is a `ConfigError` naming the file, the line and the rule broken.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.errors import UserError
from pipeline.problems.model import ROLES, Checker, Role
from pipeline.programs.program import Program
from pipeline.verdicts import SLOWDOWN_MIN_MS, SLOWDOWN_RATIO

REPO_ROOT = Path(__file__).resolve().parents[1]
CONFIG_DIR = REPO_ROOT / "configs"
DEFAULT_MEMORY_MB = 512


class ConfigError(UserError):
    """A configuration file breaks its format at a known place."""

    def __init__(self, path: Path, line: int | None, message: str, *, rule: str = "format"):
        self.path, self.line, self.message, self.rule = Path(path), line, message, rule
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else str(self.path)
        return f"{where}: {self.message} [{self.rule}]"


def read_toml(path: Path) -> dict[str, Any]:
    """The TOML file as a dict; a syntax error is a `ConfigError` with its line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(path, None, f"cannot read: {error.strerror or error}",
                          rule="unreadable") from None
    except UnicodeDecodeError:
        raise ConfigError(path, None, "not UTF-8 text", rule="encoding") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        found = re.search(r"line (\d+)", str(error))
        raise ConfigError(path, int(found.group(1)) if found else None,
                          str(error).split(" (at")[0], rule="toml") from None


def _line_of(path: Path, key: str) -> int | None:
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    pattern = re.compile(rf"^\s*(\[+\s*)?([\w.-]*\.)?{re.escape(key)}\b")
    return next((i for i, line in enumerate(lines, 1) if pattern.search(line)), None)


class _Reader:
    """Typed access to one table of a TOML file, remembering which keys were used."""

    def __init__(self, path: Path, table: dict[str, Any], where: str = "") -> None:
        self.path, self.table, self.where = Path(path), table, where
        self.used: set[str] = set()

    def fail(self, key: str, message: str, rule: str = "type") -> ConfigError:
        name = f"{self.where}.{key}" if self.where else key
        return ConfigError(self.path, _line_of(self.path, key), f"{name}: {message}", rule=rule)

    def get(self, key: str, kind: type | tuple[type, ...], default: Any = None,
            required: bool = False) -> Any:
        self.used.add(key)
        if key not in self.table:
            if required:
                raise self.fail(key, "is required", rule="missing")
            return default
        value = self.table[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if float in kinds and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            names = " or ".join(k.__name__ for k in kinds)
            raise self.fail(key, f"must be {names}, not {type(value).__name__}")
        return value

    def table_of(self, key: str) -> _Reader:
        value = self.get(key, dict, {})
        return _Reader(self.path, value, f"{self.where}.{key}" if self.where else key)

    def mapping(self, key: str, kind: type) -> dict[str, Any]:
        """Table `key` as a dict of values of `kind`, its keys being names (problems, recipes)."""
        table = self.table_of(key)
        return {name: table.get(name, kind) for name in list(table.table)}

    def strings(self, key: str) -> tuple[str, ...]:
        value = self.get(key, list, [])
        if not all(isinstance(v, str) for v in value):
            raise self.fail(key, "must be a list of strings")
        return tuple(value)

    def done(self) -> None:
        """Fail on any key that was never asked for (a typo must not pass silently)."""
        unknown = [k for k in self.table if k not in self.used]
        if unknown:
            raise self.fail(unknown[0], f"unknown key (known: {', '.join(sorted(self.used))})",
                             rule="unknown-key")


# -- problem.toml ------------------------------------------------------------------------------

@dataclass(frozen=True)
class StageSettings:
    role: Role
    timeout_s: float | None = None
    known_wrong: str | None = None


@dataclass(frozen=True)
class ProblemSettings:
    title: str
    source: str
    size_measure: str
    size_columns: tuple[str, ...]
    time_limit_s: float
    memory_mb: int
    input_mb: float | None
    reference: tuple[str, ...]
    stages: dict[str, StageSettings]
    nightly: dict[str, int] = field(default_factory=dict)
    growth_sizes: tuple[int, ...] = ()
    growth_description: str = ""
    solutions: tuple[Program, ...] = ()
    checker: Checker | None = None


def read_problem_settings(path: Path) -> ProblemSettings:
    """One problem's facts from its `problem.toml` (docs/architecture.md, "Adding a problem")."""
    path = Path(path)
    top = _Reader(path, read_toml(path))
    limits = top.table_of("limits")
    time_limit = limits.get("time_s", float, required=True)
    memory = limits.get("memory_mb", int, DEFAULT_MEMORY_MB)
    input_mb = limits.get("input_mb", float)
    limits.done()
    if time_limit <= 0 or memory <= 0:
        raise ConfigError(path, _line_of(path, "time_s"), "limits must be positive",
                          rule="range")
    stages_table = top.table_of("stages")
    stages = {}
    for name in list(stages_table.table):
        entry = stages_table.table_of(name)
        role = entry.get("role", str, required=True)
        if role not in ROLES:
            raise ConfigError(path, _line_of(path, name), f"stages.{name}.role: {role!r} is "
                              f"not one of {', '.join(ROLES)}", rule="role")
        timeout = entry.get("timeout_s", float)
        why = entry.get("why", str)
        entry.done()
        if (role == "known-wrong") != (why is not None):
            raise stages_table.fail(name, "a known-wrong stage says `why`, and only a "
                                     "known-wrong stage does", rule="known-wrong")
        stages[name] = StageSettings(role, timeout, why)
    stages_table.done()
    nightly = top.mapping("nightly", int)
    growth = top.table_of("growth")
    sizes = growth.get("sizes", list, [])
    if not all(isinstance(n, int) and n > 0 for n in sizes):
        raise growth.fail("sizes", "positive integers")
    description = growth.get("description", str, "")
    growth.done()
    checker_table = top.table_of("checker")
    checker = None
    if checker_table.table:
        program = checker_table.get("program", str, required=True)
        convention = checker_table.get("convention", str, "testlib")
        if convention not in ("testlib", "kattis"):
            raise checker_table.fail("convention", f"{convention!r} is not testlib or kattis",
                                      rule="checker")
        source = path.parent / program
        if not source.is_file():
            raise checker_table.fail("program", f"{source} is not a file", rule="checker")
        checker = Checker(Program(name=source.name, role="checker" if convention == "testlib"
                                  else "output_validator", path=source, files=(source,),
                                  convention=convention), checker_table.strings("args"))
    checker_table.done()
    solutions = []
    for index, entry_table in enumerate(top.get("solutions", list, [])):
        entry = _Reader(path, entry_table, f"solutions[{index}]")
        source = entry.get("source", str)
        solutions.append(_solver(entry, (path.parent / source) if source else None))
        entry.done()
    settings = ProblemSettings(
        title=top.get("title", str, required=True), source=top.get("source", str, ""),
        size_measure=top.get("size_measure", str, "input size"),
        size_columns=top.strings("size_columns"), time_limit_s=time_limit, memory_mb=memory,
        input_mb=input_mb,
        reference=top.strings("reference"), stages=stages, nightly=nightly,
        growth_sizes=tuple(sizes), growth_description=description, solutions=tuple(solutions),
        checker=checker)
    top.done()
    return settings


# -- configs/nightly.toml ----------------------------------------------------------------------

@dataclass(frozen=True)
class NightlySettings:
    seed: int = 1
    slowdown_ratio: float = SLOWDOWN_RATIO
    slowdown_min_ms: float = SLOWDOWN_MIN_MS
    baseline: dict[str, str] = field(default_factory=dict)
    problems: tuple[str, ...] = ()   # empty: every registered problem with a nightly corpus
    contests: tuple[str, ...] = ()   # contests recorded by `pipeline ingest`: all their problems
    corpus: dict[str, dict[str, int]] = field(default_factory=dict)  # replaces [nightly] counts
    sandbox: str = "auto"            # external programs: auto, on or off (as `run --sandbox`)


def read_nightly_settings(path: Path = CONFIG_DIR / "nightly.toml") -> NightlySettings:
    top = _Reader(path, read_toml(path))
    pins = top.mapping("baseline", str)
    corpus_table = top.table_of("corpus")
    corpus = {problem: corpus_table.mapping(problem, int) for problem in list(corpus_table.table)}
    settings = NightlySettings(
        seed=top.get("seed", int, 1),
        slowdown_ratio=top.get("slowdown_ratio", float, SLOWDOWN_RATIO),
        slowdown_min_ms=top.get("slowdown_min_ms", float, SLOWDOWN_MIN_MS), baseline=pins,
        problems=top.strings("problems"), contests=top.strings("contests"), corpus=corpus,
        sandbox=top.get("sandbox", str, "auto"))
    if settings.sandbox not in ("auto", "on", "off"):
        raise top.fail("sandbox", f"must be auto, on or off, not {settings.sandbox!r}",
                        rule="value")
    top.done()
    return settings


# -- configs/solvers.toml ----------------------------------------------------------------------

@dataclass(frozen=True)
class ConfiguredSolver:
    problem: str
    program: Program


def _solver(entry: _Reader, source: Path | None) -> Program:
    """The program of a `[[solutions]]` or `[[solver]]` entry, its source at `source`."""
    return Program(name=entry.get("name", str, required=True),
                   run=entry.get("run", str, required=True), build=entry.get("build", str),
                   path=source, files=(source,) if source else (),
                   time_limit_s=entry.get("time_limit_s", float))


def read_configured_solvers(path: Path = CONFIG_DIR / "solvers.toml") -> list[ConfiguredSolver]:
    """The `[[solver]]` entries of the user's solvers file (none when it does not exist)."""
    path = Path(path)
    if not path.exists():
        return []
    top = _Reader(path, read_toml(path))
    found = []
    for index, table in enumerate(top.get("solver", list, [])):
        entry = _Reader(path, table, f"solver[{index}]")
        source = entry.get("source", str)  # relative to the repository (an absolute path stays)
        found.append(ConfiguredSolver(entry.get("problem", str, required=True),
                                      _solver(entry, REPO_ROOT / source if source else None)))
        entry.done()
    top.done()
    return found
