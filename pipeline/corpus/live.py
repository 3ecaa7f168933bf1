"""A run judges a package as it is on disk: the package holding a folder (`package_root`), the
data folder a run there uses when none is named (`data_folder_near`: the nearest `data/` above
that is a data folder, never a package's own `data/` of test cases), the problem it is
registered as (`registered_as`), and registering it again first when its listing changed
(`refresh`, which returns the one line to show).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pipeline.errors import UserError
from pipeline.problems import (
    has_registered_package,
    is_package_folder,
    package_source_changed,
    registered_at,
    registered_package,
    registered_source,
)
from pipeline.tables.layout import registered_dir

DATA_FOLDER_PARTS = ("problems", "tables", "raw")


def package_root(start: Path) -> Path | None:
    """The package folder holding `start` (it or the nearest above it), resolved, or None."""
    here = Path(start).resolve()
    if not here.is_dir():
        here = here.parent
    return next((folder for folder in (here, *here.parents) if is_package_folder(folder)), None)


def is_data_folder(folder: Path) -> bool:
    """Whether `folder` is a data folder of ours (not, say, a package's `data/` of tests)."""
    return any((folder / part).is_dir() for part in DATA_FOLDER_PARTS)


def data_folder_near(starts: list[Path]) -> Path | None:
    """The nearest `data/` data folder at or above each of `starts` in turn, or None."""
    for start in starts:
        here = Path(start).resolve()
        for folder in (here, *here.parents):
            if is_data_folder(folder / "data"):
                return folder / "data"
    return None


def _registered(data_dir: Path) -> list[Path]:
    try:
        folders = sorted(registered_dir(data_dir).iterdir())
    except OSError:
        return []
    return [folder for folder in folders if has_registered_package(folder)]


def registered_as(data_dir: Path, root: Path) -> str | None:
    """The id of the package registered in `data_dir` from the folder `root`, or None."""
    return next((folder.name for folder in _registered(data_dir)
                 if registered_source(folder) == Path(root).resolve()), None)


@dataclass(frozen=True)
class Refresh:
    note: str | None        # the one line to show (None: the package is as registered)
    rejected: int = 0       # files of it the ingest rejected


def refresh(data_dir: Path, problem_id: str, folder: Path, *, wait: bool = True,
            first: Path | None = None) -> Refresh:
    """Register the package `problem_id` (at `folder`, or, `first`, not registered yet) again
    when its source changed; one that no longer loads is a `UserError`."""
    from pipeline.corpus.ingest import ingest
    from pipeline.programs.contained import hide

    if first is None:
        if not has_registered_package(folder):
            return Refresh(None)  # no package registered there: nothing to refresh
        source, changed = package_source_changed(folder)
        if source is None or not changed:
            return Refresh(None)
        if not source.exists():
            when = registered_at(folder)
            return Refresh(f"note: {problem_id}: its source {source} is gone: judging the "
                           f"copy registered at {when}")
    else:
        source = first
    hide(data_dir)  # the package's validators never see the stored answers, as on ingest
    summary = ingest(data_dir, [source], problem_id, wait=wait)
    if summary.unplaced:
        fault = summary.unplaced[0]
        if first is not None:
            raise UserError(f"{problem_id}: the package at {source} does not load: "
                            f"{fault.message} [{fault.rule}]")
        raise UserError(f"{problem_id}: the package at {source} no longer loads: "
                        f"{fault.message} [{fault.rule}] (fix it and run again; the copy "
                        "registered before is not judged in its place)")
    rejected = sum(len(part.rejects) for part in summary.problems.values())
    what = next((note.text for note in summary.packages if note.problem == problem_id
                 and not note.text.startswith("note:")), "")
    if what == "package unchanged":  # touched, not changed: nothing to say
        return Refresh(None)
    tail = (f"; {rejected} file(s) rejected (pipeline query \"SELECT * FROM rejects WHERE "
            f"problem = '{problem_id}'\")" if rejected else "")
    if first is not None:
        return Refresh(f"note: registered the package at {source} as {problem_id} in "
                       f"{Path(data_dir).resolve()}{tail}", rejected)
    changes = what.removeprefix("updated package: ")
    return Refresh(f"note: {problem_id}: the package at {source} changed since it was "
                   f"registered ({changes}): registered again{tail}", rejected)


def submission_roots(folder: Path) -> list[Path]:
    """Where a path naming a submission of the package registered at `folder` may start: its
    source folder (while it is there), then the data folder's copy of it."""
    source, copy = registered_source(folder), registered_package(folder)
    return [root for root in (source, copy) if root is not None and root.is_dir()]


def submission_name(text: str, names: list[str], roots: list[Path]) -> str:
    """The submission `text` names: a name as it is (`accepted/th.py`), or a path to it (or to
    a file inside it) from the current folder or the package's; `text` itself when it names
    none (the run then says which there are)."""
    if text in names:
        return text
    known = set(names)
    path = Path(text).expanduser()
    tried = []
    if (Path.cwd() / path).exists():
        here = (Path.cwd() / path).resolve()
        tried = [here.relative_to(root).as_posix() for root in map(Path.resolve, roots)
                 if here.is_relative_to(root)]
    if not path.is_absolute():
        tried.append(path.as_posix())
    for rel in tried:
        parts = [part for part in rel.split("/") if part not in ("", ".")]
        for start in (1, 0) if parts[:1] == ["submissions"] else (0,):
            for end in range(len(parts), start, -1):
                name = "/".join(parts[start:end])
                if name in known:
                    return name
    return text


def refresh_registered(data_dir: Path) -> tuple[list[str], dict[str, str]]:
    """`refresh` every package registered in `data_dir` (for the nightly): the lines to show,
    and, by problem, why a package could not be registered again (it no longer loads)."""
    lines: list[str] = []
    broken: dict[str, str] = {}
    for folder in _registered(data_dir):
        try:
            done = refresh(data_dir, folder.name, folder)
        except UserError as error:
            broken[folder.name] = str(error)
            lines.append(f"error: {error}")
            continue
        if done.note:
            lines.append(done.note)
    return lines, broken
