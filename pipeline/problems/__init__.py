"""The registry of problems: it finds them by looking, there is no list to edit.

A problem is a folder named by its id: a Python problem (`problem.toml` and an `__init__.py`
defining `PROBLEM`) or a package registered by `pipeline ingest` (`package.json`, `package/`).
The registry looks here and in every folder of `PIPELINE_PROBLEMS_DIR` (`os.pathsep`-joined,
so the processes a run starts see the same problems). Problems are imported on first use.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import sys
from pathlib import Path
from types import SimpleNamespace

from pipeline.errors import UnknownName, UserError
from pipeline.problems.model import Problem, Recipe, Stage

BUILTIN_DIR = Path(__file__).resolve().parent
PROBLEMS_DIR_VARIABLE = "PIPELINE_PROBLEMS_DIR"
MARKER = "problem.toml"          # a Python problem
PACKAGE_MARKER = "package.json"  # a registered judge package

__all__ = ["Problem", "Recipe", "Stage", "get_problem", "problem_ids", "all_problems",
           "problem_dirs", "problem_folder", "add_problem_dirs", "describe"]

_loaded: dict[tuple[Path, tuple[int, int] | None], Problem] = {}
_current: dict[str, tuple[Problem, tuple[int, int] | None]] = {}  # `current_problem`'s


def problem_dirs() -> list[Path]:
    """Where problems are looked for: the built-in folder, then `PIPELINE_PROBLEMS_DIR`."""
    extra = [Path(entry).expanduser().resolve()
             for entry in os.environ.get(PROBLEMS_DIR_VARIABLE, "").split(os.pathsep)
             if entry.strip()]
    return list(dict.fromkeys([BUILTIN_DIR, *extra]))


def add_problem_dirs(dirs: list[Path]) -> None:
    """Look for problems in `dirs` too, in this process and every process it starts."""
    entries = [e for e in os.environ.get(PROBLEMS_DIR_VARIABLE, "").split(os.pathsep) if e]
    entries += [str(Path(directory).expanduser().resolve()) for directory in dirs]
    if entries:
        os.environ[PROBLEMS_DIR_VARIABLE] = os.pathsep.join(dict.fromkeys(entries))


def _found() -> dict[str, Path]:
    """Problem id -> its folder, for every folder with a `problem.toml`."""
    found: dict[str, Path] = {}
    for directory in problem_dirs():
        try:
            children = sorted(directory.iterdir())
        except OSError:
            continue
        for child in children:
            if not ((child / MARKER).is_file() or has_registered_package(child)):
                continue
            if child.name in found:
                if found[child.name].parent == BUILTIN_DIR:
                    raise UserError(f"{child}: {child.name!r} is a built-in problem; "
                                    "choose another folder name")
                raise UserError(f"problem {child.name!r} is in two places: "
                                f"{found[child.name]} and {child}")
            found[child.name] = child
    return found


def is_package_folder(path: Path) -> bool:
    """Whether the folder `path` is a judge package's (its `problem.yaml` or `problem.xml`)."""
    try:
        return (path / "problem.yaml").is_file() or (path / "problem.xml").is_file()
    except OSError:  # an unreadable folder is reported when it is walked
        return False


def registered_package(folder: Path) -> Path | None:
    """The package's own copy in `folder` when it is a registered package's folder, else None."""
    copy = folder / "package"
    return copy if (folder / PACKAGE_MARKER).is_file() and copy.is_dir() else None


def holds_package(path: Path) -> bool:
    """Whether the file `path` (a zip) holds a problem package (one that breaks its format
    does too: registering it says how)."""
    from pipeline.packages import PackageError, detect

    try:
        return detect(path) is not None
    except PackageError:
        return True


def has_registered_package(folder: Path) -> bool:
    """Whether a judge package is registered at the problem folder `folder`."""
    return (folder / PACKAGE_MARKER).is_file()


def _package_marker(folder: Path) -> dict:
    """What the package registered at `folder` records; empty when none is."""
    from pipeline.packages.registry import read_marker

    return read_marker(folder)


def registered_source(folder: Path) -> Path | None:
    """The folder the package registered at `folder` was registered from (None: none)."""
    source = _package_marker(folder).get("source")
    return Path(source) if source else None


def registered_at(folder: Path) -> str:
    """When the package at `folder` was registered, as its registration records it."""
    return _package_marker(folder).get("registered_at", "?")


def package_source_changed(folder: Path) -> tuple[Path | None, bool]:
    """(the source of the package registered at `folder`, or None; whether it changed since
    or is gone), read from its listing."""
    from pipeline.packages.registry import changed_source

    return changed_source(folder)


def package_content(folder: Path) -> str | None:
    """A digest of the package content registered at `folder` (None: no package there)."""
    from pipeline.packages.registry import content_digest

    return content_digest(folder)


def load_found_package(path: Path, data_dir: Path, name: str, *, registered: bool):
    """The problem package found at `path` among raw files, loaded (the data folder's copy
    when `registered`, else registered first), with what registering did (None for the
    copy) and the notes to show; `PackageError` when it breaks its format."""
    from pipeline.packages import load_package
    from pipeline.packages.registry import build_dir, register
    from pipeline.programs.languages import toolchain_notes

    if registered:
        return load_package(path, build_dir(data_dir), short_name=name), None, []
    registration = register(path, data_dir, name)
    package = registration.package
    what = (f"registered {package.format} package" if registration.new else
            "updated package: " + "; ".join(registration.changes)
            if registration.changes else "package unchanged")
    notes = [*package.notes,
             *toolchain_notes((*package.input_validators, *package.answer_validators))]
    return package, what, notes


def contest_at(folder: Path):
    """The contest in `folder` (`pipeline.packages.contest.Contest`), or None; `PackageError`
    naming the file and line when its contest files cannot be read."""
    from pipeline.packages.contest import is_contest, read_contest

    return read_contest(folder) if is_contest(folder) else None


def python_choice(runner: str):
    """What runs a contest's Python submissions (`contest.python_choice`), or None."""
    from pipeline.packages.contest import python_choice as choice

    return choice(runner)


def record_contest(data_dir: Path, contest, why: dict[str, str | None],
                   names: dict[str, str] | None = None):
    """Record the contest ingested in the data folder (`contest.record_contest`)."""
    from pipeline.packages.contest import record_contest as record

    return record(data_dir, contest, why, names)


def recorded_contests(data_dir: Path) -> dict:
    """The contests the data folder records, by name (`contest.recorded_contests`)."""
    from pipeline.packages.contest import recorded_contests as recorded

    return recorded(data_dir)


def generator_recipe(problem: Problem, command: str, data_dir: Path) -> Recipe:
    """A recipe that makes cases of `problem` with the generator `command` (`PROGRAM ARGS
    {seed}`), built now (`GeneratorError` when it cannot be); a package's cases are made in
    its first judged test group."""
    from pipeline.packages.generators import generator_recipe as recipe_of
    from pipeline.packages.problem import PackageProblem
    from pipeline.packages.registry import build_dir

    package = problem.load() if isinstance(problem, PackageProblem) else None
    group = next((c.group for c in package.cases if not c.sample), "") if package else ""
    return recipe_of(command, package, build_dir(data_dir), problem.parse, group)


def problem_ids() -> list[str]:
    return list(_found())


def module_problem_ids() -> list[str]:
    """The problems written in Python (not registered packages)."""
    return [pid for pid, folder in _found().items() if (folder / MARKER).is_file()]


def problem_folder(problem_id: str) -> Path:
    found = _found()
    try:
        return found[problem_id]
    except KeyError:
        raise UnknownName(f"unknown problem {problem_id!r}; known problems: "
                          f"{', '.join(found) or '(none)'}") from None


def get_problem(problem_id: str) -> Problem:
    folder = problem_folder(problem_id)
    key = (folder, _registration(folder))  # a package registered again is loaded again
    if key not in _loaded:
        _loaded[key] = _import(folder).PROBLEM
    return _loaded[key]


def current_problem(problem_id: str) -> Problem:
    """`get_problem`, without looking through every problem folder again while the problem's
    package is registered as it was: a worker asks once a job, and that look costs more than
    the rest of judging it."""
    known = _current.get(problem_id)
    if known is not None and _registration(known[0].folder) == known[1]:
        return known[0]
    problem = get_problem(problem_id)
    _current[problem_id] = (problem, _registration(problem.folder))
    return problem


def _registration(folder: Path) -> tuple[int, int] | None:
    """When and as what file the folder's package was registered last (its marker's
    modification time and inode); None: no package is registered there."""
    try:
        marker = os.stat(folder / PACKAGE_MARKER)
    except OSError:
        return None
    return marker.st_mtime_ns, marker.st_ino


def _holds_a_package(folder: Path) -> bool:
    """Whether the problem folder is a registered judge package (not a Python problem)."""
    return (folder / PACKAGE_MARKER).is_file() and not (folder / MARKER).is_file()


def _import(folder: Path):
    """The folder's Python package: `pipeline.problems.<id>` for a built-in problem, else
    loaded from its path under a module name derived from it."""
    if _holds_a_package(folder):
        from pipeline.packages.problem import package_problem

        return SimpleNamespace(PROBLEM=package_problem(folder))  # not a module: a package
    if folder.parent == BUILTIN_DIR:
        return importlib.import_module(f"{__name__}.{folder.name}")
    name = "pipeline_problem_" + re.sub(r"\W", "_", folder.name)
    loaded = sys.modules.get(name)
    if loaded is not None and Path(loaded.__file__ or "").parent == folder:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, folder / "__init__.py",
                                                  submodule_search_locations=[str(folder)])
    if spec is None or spec.loader is None:
        raise UnknownName(f"{folder}: no __init__.py defining PROBLEM")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


# Size columns by problem.toml (path, modification time, size): read once per version.
_SIZE_COLUMNS_READ: dict[tuple[str, int, int], tuple[str, ...]] = {}


def size_columns() -> tuple[str, ...]:
    """Every registered problem's size columns (the cases table's beyond `CASES_BASE`), in
    registry order, read from the `problem.toml` files without importing the problems."""
    from pipeline.config import read_problem_settings  # it reads the model, under this package
    from pipeline.tables.schemas import CASES_BASE  # Polars, only when the tables are read

    names: dict[str, None] = {}
    for folder in _found().values():  # (one look at the folders for every problem)
        path = folder / MARKER
        if not path.is_file():  # a package's cases have no size columns
            continue
        info = path.stat()
        key = (str(path), info.st_mtime_ns, info.st_size)
        if key not in _SIZE_COLUMNS_READ:
            _SIZE_COLUMNS_READ[key] = read_problem_settings(path).size_columns
        for name in _SIZE_COLUMNS_READ[key]:
            if name in CASES_BASE:
                raise UserError(f"{path}: size column {name!r} clashes with a base column")
            names.setdefault(name)
    return tuple(names)


def cases_schema() -> dict:
    """The cases table's schema with every registered problem's size columns."""
    from pipeline.tables.schemas import cases_schema as schema

    return schema(size_columns())


def all_problems() -> list[Problem]:
    return [get_problem(pid) for pid in problem_ids()]


def describe(problem: Problem) -> str:
    """What `pipeline problems` says about `problem`: limits, stages with their roles, own
    solutions (a package's submissions with the verdicts their folders expect), recipes."""
    kind = f"; {problem.origin}" if problem.origin else ""
    limit = (f"time limit {problem.time_limit_s:g} s" if not getattr(
        problem, "time_limit_pending", False) else "time limit derived from its accepted "
        "submissions by the first run")
    lines = [f"{problem.id}  {problem.title}  ({limit}, memory {problem.memory_mb} MB; "
             f"size = {problem.size_measure}{kind})"]
    for stage in problem.stages:
        flag = "  [known wrong]" if stage.known_wrong else ""
        lines.append(f"  {stage.name:<18} {stage.role:<11} {stage.complexity:<22} "
                     f"limits: {stage.limits}{flag}")
    width = max([18, *(len(p.name) for p in (*problem.solutions, *problem.submissions))])
    for role, programs in (("program", problem.solutions), ("submission", problem.submissions)):
        for program in programs:
            expected = f"expected {program.expected}" if program.expected else "our solution"
            lines.append(f"  {program.name:<{width}} {role:<11} {expected}".rstrip())
    if problem.recipes:
        lines.append(f"  recipes: {', '.join(r.name for r in problem.recipes)}")
    return "\n".join(lines)
