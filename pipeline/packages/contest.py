"""A contest: a folder of problem packages judged as one, as BAPCtools lays it out.

`read_contest(folder)` reads `contest.yaml` / `problems.yaml` (or takes every package folder,
by name) as `bt` at the contest root does, with `languages.yaml`'s Python runner
(`python_runner`); what is read and skipped: docs/packages.md (Contests).
`contest_given(root)` is the time limit `problems.yaml` gives a package and its contest's
Python runner (or, for a registered copy, those recorded beside it: `CONTEST_ENTRY`); the
Kattis loader takes the limit when the package gives none. Each contest ingested is kept in
`DATA/contests.json`.
"""

from __future__ import annotations

import fnmatch
import json
import platform
import shutil
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from pipeline.errors import PackageError, UserError
from pipeline.fsutil import atomic_write_text
from pipeline.packages.tree import CONTEST_FILES
from pipeline.packages.yamlfile import _Loader, load_yaml
from pipeline.untrusted import printable

CONTESTS_FILE = "contests.json"
CONTEST_ENTRY = "contest.json"   # beside a registered copy: its problems.yaml entry


@dataclass(frozen=True)
class ContestProblem:
    """One problem of a contest, as `problems.yaml` lists it (or a package folder)."""

    id: str                         # the problem's folder, and the id it is registered under
    label: str | None = None        # A, B, ...
    name: str | None = None
    time_limit_s: float | None = None
    line: int | None = None         # its entry's line in problems.yaml


@dataclass(frozen=True)
class ContestLimit:
    """A time limit a contest's `problems.yaml` gives one of its problems."""

    time_s: float
    where: str                      # "problems.yaml:12"


@dataclass(frozen=True)
class Contest:
    name: str
    title: str
    folder: Path
    problems: tuple[ContestProblem, ...]
    unlisted: tuple[str, ...] = ()   # package folders problems.yaml does not list
    notes: tuple[str, ...] = ()      # entries skipped or values left out, and why
    python: str | None = None        # what languages.yaml runs x.py by: "pypy3 (languages.yaml:12)"


@dataclass
class RecordedProblem:
    """A contest's problem as the data folder records it after an ingest."""

    id: str                          # the problem it is registered as
    label: str | None = None
    name: str | None = None
    time_limit_s: float | None = None
    registered: bool = False
    why: str | None = None           # why it is not registered
    folder: str | None = None        # its folder in the contest, when not named `id`


@dataclass
class RecordedContest:
    name: str
    title: str
    source: str
    problems: list[RecordedProblem] = field(default_factory=list)
    unlisted: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    python: str | None = None
    recorded_at: str = ""


def _is_package(folder: Path) -> bool:
    try:
        return (folder / "problem.yaml").is_file() or (folder / "problem.xml").is_file()
    except OSError:
        return False


def _contest_file(folder: Path, name: str) -> Path | None:
    path = folder / name
    return path if path.is_file() and not path.is_symlink() else None


def _subfolders(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir()
                      if p.is_dir() and not p.name.startswith("."))
    except OSError:
        return []


def is_contest(folder: Path) -> bool:
    """Whether `folder` holds `contest.yaml` or `problems.yaml`, or package folders only."""
    folder = Path(folder)
    if not folder.is_dir() or _is_package(folder):
        return False
    if any(_contest_file(folder, name) for name in CONTEST_FILES):
        return True
    subfolders = _subfolders(folder)
    try:
        archives = [p for p in folder.iterdir() if p.suffix.lower() in (".zip", ".kpp")]
    except OSError:
        return False
    return bool(subfolders) and not archives and all(_is_package(p) for p in subfolders)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def read_contest(folder: Path) -> Contest:
    """The contest in `folder`; `PackageError` when its files cannot be read as bt reads them."""
    folder = Path(folder)
    config: dict = {}
    if _contest_file(folder, "contest.yaml"):
        config, _ = load_yaml(folder / "contest.yaml", folder, mapping=True)
    name = (_text(config.get("id")) or _text(config.get("name")) or printable(folder.name))
    name = printable(name.strip())
    title = printable((_text(config.get("name")) or name).strip())
    subfolders = _subfolders(folder)
    packages = [p.name for p in subfolders if _is_package(p)]
    if not _contest_file(folder, "problems.yaml"):
        return Contest(name, title, folder, tuple(ContestProblem(p) for p in packages),
                       python=python_runner(folder))
    problems, notes = _problems_yaml(folder, {p.name for p in subfolders})
    listed = {p.id for p in problems}
    return Contest(name, title, folder, tuple(problems),
                   tuple(p for p in packages if p not in listed), tuple(notes),
                   python_runner(folder))


def _problems_yaml(folder: Path, folders: set[str]) -> tuple[list[ContestProblem], list[str]]:
    """The entries of `problems.yaml` checked as bt checks them, and a note for each skipped."""
    path = folder / "problems.yaml"
    data, _ = load_yaml(path, folder, mapping=False)
    if data is None:
        return [], []
    if not isinstance(data, list):
        raise PackageError("problems.yaml", "problems-yaml", "problems.yaml must hold a list "
                           "of problems (- id: NAME, label: A, ...), as BAPCtools reads it",
                           line=1)
    # the entries' nodes, for their lines (the file loaded as YAML above)
    node = yaml.compose(path.read_text(encoding="utf-8"), Loader=_Loader)
    items = node.value if isinstance(node, yaml.SequenceNode) else []
    problems: list[ContestProblem] = []
    notes: list[str] = []
    labels: dict[str, str] = {}
    for index, entry in enumerate(data):
        line = items[index].start_mark.line + 1 if index < len(items) else None
        where = f"problems.yaml:{line}" if line else "problems.yaml"
        if not isinstance(entry, dict):
            notes.append(f"{where}: an entry that is not a mapping is skipped")
            continue
        problem_id, label = entry.get("id"), entry.get("label")
        if not isinstance(problem_id, str) or not problem_id:
            notes.append(f"{where}: an entry without an id is skipped")
            continue
        shown = printable(problem_id)
        label = None if label is None else str(label)
        if label is not None and label in labels:
            notes.append(f"{where}: label {printable(label)} of {shown} is {labels[label]}'s "
                         "already: the entry is skipped")
            continue
        if problem_id not in folders:
            notes.append(f"{where}: the contest has no folder {shown}: the entry is skipped")
            continue
        if label is not None:
            labels[label] = shown
        limit = entry.get("time_limit")
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int | float)
                                  or not limit > 0):
            notes.append(f"{where}: time_limit of {shown} must be a number > 0, not "
                         f"{printable(str(limit))[:40]!r}: left out")
            limit = None
        name = entry.get("name")
        if isinstance(name, dict):  # 2023-07 and later: a name per language
            name = name.get("en") or next((v for v in name.values() if isinstance(v, str)),
                                          None)
        problems.append(ContestProblem(
            problem_id, printable(label) if label is not None else None,
            printable(name) if isinstance(name, str) else None,
            float(limit) if limit is not None else None, line))
    return problems, notes


def python_runner(folder: Path) -> str | None:
    """What the contest's `languages.yaml` runs `x.py` (no `#!`) by, as BAPCtools picks it, with
    its line ("pypy3 (languages.yaml:201)"); else None."""
    if not _contest_file(folder, "languages.yaml"):
        return None
    try:
        data, lines = load_yaml(folder / "languages.yaml", folder, mapping=True)
    except (PackageError, OSError, UnicodeDecodeError):
        return None
    best: tuple[float, str, str] | None = None
    for key, language in data.items():
        if not isinstance(language, dict) or "shebang" in language:
            continue
        files, run, priority = language.get("files"), language.get("run"), language.get(
            "priority", 0)
        if not isinstance(files, str) or not isinstance(run, str) or not run.split() \
                or isinstance(priority, bool) or not isinstance(priority, int | float):
            continue
        if any(fnmatch.fnmatchcase("x.py", glob) for glob in files.split()) and \
                (best is None or priority > best[0]):
            best = (priority, run.split()[0], str(key))
    if best is None:
        return None
    line = lines(best[2], "run")
    return f"{printable(best[1])} (languages.yaml{f':{line}' if line else ''})"


def _entry(root: Path) -> dict:
    """What the package's contest gives it, as `record_entry` keeps it beside a registered copy
    (for one, what it kept; {} when unreadable): `time_limit_s` and `where` when its
    problems.yaml entry gives a time limit, `python` when `python_runner` names one."""
    recorded = root.parent / CONTEST_ENTRY
    if root.name == "package" and recorded.is_file():
        try:
            entry = json.loads(recorded.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return entry if isinstance(entry, dict) else {}
    found: dict[str, object] = {}
    try:  # its problems.yaml entry: the first naming its folder
        problems = _problems_yaml(root.parent, {root.name})[0] if _contest_file(
            root.parent, "problems.yaml") else []
    except (PackageError, OSError, UnicodeDecodeError):
        problems = []
    if problems and problems[0].time_limit_s is not None:
        found.update(time_limit_s=problems[0].time_limit_s,
                     where=f"{root.parent / 'problems.yaml'}:{problems[0].line}")
    if (python := python_runner(root.parent)) is not None:
        found["python"] = python
    return found


@dataclass(frozen=True)
class PythonChoice:
    """What runs a contest's Python submissions here, and the line that says so."""

    interpreter: str | None   # the interpreter's path; None: the pipeline's own (CPython)
    note: str


def python_choice(runner: str) -> PythonChoice | None:
    """What runs Python 3 submissions of a contest whose languages.yaml runs a `.py` by
    `runner`, as `bt` runs them: pypy3 where installed (for `pypy` too: the code is Python 3),
    else this interpreter, and a line saying which. None when it names no PyPy."""
    name = runner.split()[0] if runner.split() else ""
    if not Path(name).name.startswith("pypy"):
        return None
    wanted = name if Path(name).name.startswith("pypy3") else "pypy3"
    found = shutil.which(wanted)
    where = runner.partition(" ")[2].strip("()") or "languages.yaml"
    if found:
        said = f"as the contest's {where} says" if wanted == name else \
            f"the contest's {where} runs a .py by {name}"
        return PythonChoice(found, f"Python submissions run by {wanted} ({found}), {said}")
    return PythonChoice(None, f"the contest's languages.yaml runs Python submissions by "
                        f"{runner}; {wanted} is not installed here (`make system` installs "
                        f"it), so they run by CPython {platform.python_version()} instead, and "
                        "one timed for PyPy may run out of time")


def contest_given(root: Path) -> tuple[ContestLimit | None, str | None]:
    """The time limit the package's contest's `problems.yaml` gives it and the `python_runner`
    of its `languages.yaml` (for a registered copy, those recorded), read once; None where
    none or unreadable (ingesting the contest says why)."""
    entry = _entry(Path(root))
    python = entry.get("python")
    try:
        limit = ContestLimit(float(entry["time_limit_s"]), str(entry["where"])) \
            if entry.get("time_limit_s") is not None else None
    except (ValueError, KeyError, TypeError):
        limit = None
    return limit, python if isinstance(python, str) else None


def record_entry(source: Path, target: Path) -> bool:
    """Record the contest's time limit and Python runner beside a registered copy; True: changed."""
    entry = _entry(Path(source))
    path = Path(target) / CONTEST_ENTRY
    old = path.read_text(encoding="utf-8") if path.is_file() else None
    if not entry:
        if old is not None:
            path.unlink()
        return old is not None
    text = json.dumps(entry, indent=2) + "\n"
    if text != old:
        atomic_write_text(path, text)
    return text != old


# -- the contests the data folder records --------------------------------------------------------

def recorded_contests(data_dir: Path) -> dict[str, RecordedContest]:
    """Every contest the data folder records, by name; an unreadable file is a UserError."""
    path = Path(data_dir) / CONTESTS_FILE
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {name: RecordedContest(**{**value, "problems": [
            RecordedProblem(**p) for p in value.get("problems", [])]})
            for name, value in data.items()}
    except (OSError, ValueError, TypeError, AttributeError) as error:
        raise UserError(f"{path} cannot be read ({error}): ingest the contests again "
                        "(pipeline ingest CONTEST_DIR) after moving it away") from None


def record_contest(data_dir: Path, contest: Contest, why: dict[str, str | None],
                   names: dict[str, str] | None = None) -> RecordedContest:
    """Record `contest` in the data folder (the caller holds its lock), each problem with why it
    did not register (`why`) and the name it registered as when not its folder's (`names`)."""
    names = names or {}
    record = RecordedContest(contest.name, contest.title, str(Path(contest.folder).resolve()),
                             [RecordedProblem(names.get(p.id, p.id), p.label, p.name,
                                              p.time_limit_s, registered=why.get(p.id) is None,
                                              why=why.get(p.id),
                                              folder=p.id if p.id in names else None)
                              for p in contest.problems],
                             list(contest.unlisted), list(contest.notes), contest.python,
                             datetime.now(UTC).isoformat(timespec="seconds"))
    contests = {**recorded_contests(data_dir), record.name: record}
    atomic_write_text(Path(data_dir) / CONTESTS_FILE, json.dumps(
        {name: asdict(value) for name, value in sorted(contests.items())}, indent=2,
        ensure_ascii=False) + "\n")
    return record
