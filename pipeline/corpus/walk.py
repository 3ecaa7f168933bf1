"""Finding the files of an ingest: folders on disk and zip archives (`scan`), every fault
(unreadable, broken link or loop, non-UTF-8 name, not a regular file, corrupt or bomb-like
archive) a reject. `SourceReader` reads a file's bytes within the size limit. Links to folders
are followed, each real folder once. `find_cases` recognises test cases in the layouts judges
use (docs/commands.md, `pipeline ingest`) from relative paths alone.
"""

from __future__ import annotations

import os
import re
import stat
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from posixpath import basename, dirname, join

from pipeline.errors import InputError
from pipeline.problems import holds_package, is_package_folder, registered_package
from pipeline.untrusted import CONTROL, MAX_FOLDER_DEPTH, archive_bomb, is_utf8, printable, zip_bomb

MAX_ARCHIVE_MEMBERS = 100_000  # an archive with more is refused


@dataclass(frozen=True)
class Source:
    """Where one file's bytes are: a file on disk, or a member of a zip archive on disk."""

    path: str                   # the file, or the archive
    member: str | None          # the member's name inside the archive
    size: int                   # bytes (the member's declared uncompressed size)
    label: str                  # as `source` says it


@dataclass(frozen=True)
class Fault:
    """A file or folder that cannot be used, and why (becomes a `rejects` row)."""

    label: str        # as `source` would say it (relative to the ingest root)
    rule: str         # unreadable, broken-link, encoding, not-a-file, corrupt-archive, too-large
    message: str
    problem: str | None


@dataclass
class Namespace:
    """Files that are laid out together: one problem folder on disk, or one zip archive."""

    problem: str | None
    files: dict[str, Source] = field(default_factory=dict)   # path inside -> where it is


@dataclass(frozen=True)
class FoundPackage:
    """A judge's problem package (a folder with problem.yaml or problem.xml, or a zip of one)
    no Python problem claims: it becomes a problem of its own."""

    path: Path
    label: str              # as sources say it
    problem: str            # the short name it is registered under
    registered: bool        # already the data folder's own copy (`DATA/problems/<id>/`)


@dataclass
class Scan:
    namespaces: list[Namespace] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    packages: list[FoundPackage] = field(default_factory=list)


def problem_of(rel: str, root_name: str, override: str | None,
               ids: frozenset[str]) -> tuple[str | None, str]:
    """(problem id, path inside that problem's folder) for a file at `rel` under a root."""
    if override or root_name in ids:
        return override or root_name, rel
    first, slash, inner = rel.partition("/")
    name = first[:-4] if first.endswith(".zip") and not slash else first
    return (name, inner or first) if name in ids else (None, rel)


def _error_text(error: OSError) -> str:
    return error.strerror or type(error).__name__


def scan(root: Path, override: str | None, ids: frozenset[str],
         module_ids: frozenset[str] = frozenset()) -> Scan:
    """Every file under `root` (a folder, a zip, or one file), grouped into namespaces; a
    package is a `FoundPackage` unless its folder names a Python problem (`module_ids`)."""
    root = Path(root)
    found = Scan()
    per_problem: dict[str | None, Namespace] = {}

    def package_at(path: Path, rel: str) -> bool:
        """Record a package at `path` unless a Python problem claims it; True if recorded."""
        problem, _ = problem_of(rel, root.name, override, ids)
        if problem in module_ids:
            return False
        short = override or (path.stem if path.is_file() else path.name)
        if not is_utf8(short):  # a root given by its own name: nothing above rejected it
            fault(rel, "encoding", "the package's name is not valid UTF-8, and it names the "
                  "problem (--problem NAME gives it another)")
            return True
        found.packages.append(FoundPackage(path, printable(rel or root.name), short, False))
        return True

    def add_file(path: str, rel: str, size: int) -> None:
        if not is_utf8(rel):  # a root given by its own name: nothing above rejected it
            fault(rel, "encoding", "the file name is not valid UTF-8")
            return
        problem, inner = problem_of(rel, root.name, override, ids)
        if path[-4:].lower() in (".zip", ".kpp"):
            if holds_package(Path(path)) and package_at(Path(path), rel):
                return
            found.namespaces.append(_archive(Path(path), rel, problem, found.faults))
            return
        namespace = per_problem.setdefault(problem, Namespace(problem))
        namespace.files[inner] = Source(path, None, size, rel)

    def fault(rel: str, rule: str, message: str) -> None:
        problem, _ = problem_of(rel, root.name, override, ids) if rel else (override, "")
        found.faults.append(Fault(printable(rel) or printable(root.name), rule, message,
                                  problem))

    if root.is_file():
        add_file(str(root), root.name, root.stat().st_size)
    elif (copy := registered_package(root)) is not None:
        found.packages.append(FoundPackage(copy, root.name, root.name, True))
    elif is_package_folder(root) and package_at(root, ""):
        pass
    elif (root / "problem.toml").is_file() and root.name in ids:
        # A problem's own folder: only its samples are test data.
        samples = root / "samples"
        namespace = Namespace(override or root.name)
        for path in sorted(samples.iterdir()) if samples.is_dir() else []:
            if path.is_file() and not path.name.startswith("."):
                inner = f"samples/{path.name}"
                namespace.files[inner] = Source(str(path), None, path.stat().st_size, inner)
        found.namespaces.append(namespace)
    else:
        _walk(str(root), "", set(), add_file, fault, package_at)
    found.namespaces.extend(per_problem.values())
    return found


def _walk(folder: str, rel: str, seen: set[tuple[int, int]], add_file, fault,
          package_at, depth: int = 0) -> None:
    if depth > MAX_FOLDER_DEPTH:
        fault(rel, "too-deep", f"folders nested more than {MAX_FOLDER_DEPTH} deep are not "
              "read")
        return
    try:
        info = os.stat(folder)
        if (info.st_dev, info.st_ino) in seen:
            fault(rel, "broken-link", "a symbolic link loops back to a folder above it")
            return
        seen.add((info.st_dev, info.st_ino))
        with os.scandir(folder) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except OSError as error:
        fault(rel, "unreadable", f"cannot read this folder: {_error_text(error)}")
        return
    for entry in entries:
        name = entry.name
        child = f"{rel}/{name}" if rel else name
        if not is_utf8(name):
            fault(child, "encoding", "the file name is not valid UTF-8")
            continue
        if CONTROL.search(name):
            fault(child, "file-name", "the file name holds a control character (no judge's "
                  "file does; a newline in it would break every line that names it)")
            continue
        try:
            if name.startswith(".") and entry.is_dir():
                continue  # hidden folders (.git, .svn) are never test data
            info = entry.stat()  # follows symbolic links
        except OSError as error:
            if entry.is_symlink():
                target = os.readlink(entry.path) if os.path.islink(entry.path) else "?"
                what = ("loops" if getattr(error, "errno", None) == 40 else
                        f"points to {printable(target)}, which does not exist")
                fault(child, "broken-link", f"symbolic link {what}")
            else:
                fault(child, "unreadable", f"cannot look at this file: {_error_text(error)}")
            continue
        mode = info.st_mode
        if stat.S_ISREG(mode):
            add_file(entry.path, child, info.st_size)
        elif stat.S_ISDIR(mode):
            if is_package_folder(Path(entry.path)) and package_at(Path(entry.path), child):
                continue
            _walk(entry.path, child, seen, add_file, fault, package_at, depth + 1)
        else:
            fault(child, "not-a-file", "not a regular file (a pipe, socket or device)")


def _archive(path: Path, label: str, problem: str | None, faults: list[Fault]) -> Namespace:
    """The members of one zip archive (its directory read; members are read later)."""
    namespace = Namespace(problem)
    try:
        with zipfile.ZipFile(path) as archive:
            infos = [i for i in archive.infolist() if not i.is_dir()]
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as error:
        faults.append(Fault(label, "corrupt-archive", f"not a readable zip archive: "
                            f"{str(error)[:200] or type(error).__name__}", problem))
        return namespace
    if len(infos) > MAX_ARCHIVE_MEMBERS:
        faults.append(Fault(label, "too-large", f"the archive has {len(infos):,} members, more "
                            f"than the {MAX_ARCHIVE_MEMBERS:,} an ingest reads", problem))
        return namespace
    for info in infos:
        member_label = f"{label}!{info.filename}"
        if bomb := zip_bomb(info):
            faults.append(Fault(member_label, "too-large", bomb, problem))
            continue
        if CONTROL.search(info.filename):
            faults.append(Fault(printable(member_label), "file-name", "the member's name holds "
                                "a control character", problem))
            continue
        namespace.files[info.filename] = Source(str(path), info.filename, info.file_size,
                                                member_label)
    if bomb := archive_bomb([i for i in infos if i.filename in namespace.files],
                            path.stat().st_size):  # the members left would inflate like one
        faults.append(Fault(label, "too-large", bomb, problem))
        return Namespace(problem)
    return namespace


class SourceReader:
    """Reads sources, keeping each archive open (reopening it would read its directory again)."""

    def __init__(self) -> None:
        self._archives: dict[str, zipfile.ZipFile] = {}

    def read(self, source: Source, limit_bytes: int) -> bytes:
        """The bytes of one source, never more than `limit_bytes` (else an `InputError` with
        no line: too-large, corrupt-archive or unreadable)."""
        if source.size > limit_bytes:
            raise InputError(None, f"{source.size:,} bytes, above the limit of {limit_bytes:,} "
                             "bytes", rule="too-large")
        try:
            if source.member is None:
                with open(source.path, "rb") as handle:
                    # The size seen by the walk, plus a byte to notice a file that grew since
                    # (asking for the whole limit would allocate it for every small file).
                    data = handle.read(min(source.size, limit_bytes) + 1)
                    if len(data) > source.size:
                        data += handle.read(limit_bytes + 1 - len(data))
            else:
                archive = self._archives.get(source.path)
                if archive is None:
                    archive = self._archives[source.path] = zipfile.ZipFile(source.path)
                with archive.open(source.member) as handle:
                    data = handle.read(limit_bytes + 1)
        except (zipfile.BadZipFile, EOFError, ValueError, NotImplementedError,
                RuntimeError) as error:
            raise InputError(None, f"cannot read this archive member: "
                             f"{str(error)[:200] or type(error).__name__}",
                             rule="corrupt-archive") from None
        except OSError as error:
            raise InputError(None, f"cannot read this file: {_error_text(error)}",
                             rule="unreadable") from None
        if len(data) > limit_bytes:
            raise InputError(None, f"more than the limit of {limit_bytes:,} bytes",
                             rule="too-large")
        return data

    def close(self) -> None:
        for archive in self._archives.values():
            archive.close()
        self._archives.clear()


# -- layouts ------------------------------------------------------------------------------------

ANSWER_SUFFIXES = (".out", ".ans", ".a")
_TPS_NAME = re.compile(r"^(?P<subtask>.+)-(?P<number>\d+)(\.in)?$")


@dataclass(frozen=True)
class FoundCase:
    """One input file, the file holding its expected output (if any), and its group."""

    input: str
    expected: str | None
    group: str


@dataclass(frozen=True)
class Discovery:
    cases: tuple[FoundCase, ...]
    skipped: tuple[str, ...]


def find_cases(paths: Iterable[str]) -> Discovery:
    """Split `paths` into cases (input, expected, group) and files that belong to no case."""
    present = set(paths)
    claimed: set[str] = set()
    cases: list[FoundCase] = []
    for path in sorted(present):
        folder, name = dirname(path), basename(path)
        if name.startswith("."):
            continue
        if basename(folder) == "in":  # AtCoder: in/NAME + out/NAME (or out/STEM.out)
            out_dir = join(dirname(folder), "out")
            stem = name.removesuffix(".in")
            candidates = [join(out_dir, name)] + [join(out_dir, stem + s) for s in ANSWER_SUFFIXES]
            expected = next((c for c in candidates if c in present), None)
        elif name.endswith(".in"):
            stem = path[: -len(".in")]
            expected = next((stem + s for s in ANSWER_SUFFIXES if stem + s in present), None)
        elif basename(folder) == "tests" and "." not in name:  # Polygon: tests/01 + 01.a
            expected = path + ".a" if path + ".a" in present else None
        else:
            continue
        claimed.add(path)
        if expected is not None:
            claimed.add(expected)
        cases.append(FoundCase(path, expected, group_of(path)))
    return Discovery(tuple(cases), tuple(sorted(present - claimed)))


def group_of(path: str) -> str:
    """The group of an input: Kattis `sample` / `secret/<sub>`, a TPS subtask, else its folder."""
    *folders, name = path.split("/")
    for i in range(len(folders) - 1):
        if folders[i] == "data" and folders[i + 1] in ("sample", "secret"):
            return "/".join(folders[i + 1:])
    if folders and folders[-1] == "tests" and name.endswith(".in") \
            and (match := _TPS_NAME.match(name)):
        return match.group("subtask")
    if folders and folders[-1] == "in":
        folders = folders[:-1]
    return "/".join(folders) or "default"
