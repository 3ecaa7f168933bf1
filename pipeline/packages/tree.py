"""A package folder as its loaders may read it: what is inside the package, and nothing else.

A link leading outside the package (or its contest: `boundary(root)`), a broken link, a loop,
a pipe, socket or device is left out as a `PackageError`; a link inside is read as what it
names; a name that is not UTF-8 is copied escaped (`untrusted.printable`). Rules and
examples: docs/faults.md. `copy_package` copies a package so, `needs_copy` says whether a
folder needs it, `listing_digest` names a folder's state cheaply for a cached copy.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from pathlib import Path

from pipeline.errors import PackageError
from pipeline.untrusted import CONTROL, MAX_FOLDER_DEPTH, printable

CASE_SUFFIXES = (".in", ".ans")
CONTEST_FILES = ("contest.yaml", "problems.yaml")
CONTEST_LEVELS = 3  # the package's parent, its parent's parent and one more


def boundary(root: Path) -> Path:
    """How far the package at `root` reaches, resolved: the nearest contest folder holding it
    (up to `CONTEST_LEVELS` above, as BAPCtools finds its contest), else `root` itself."""
    root = Path(root).resolve()
    for folder in list(root.parents)[:CONTEST_LEVELS]:
        if any((folder / name).is_file() and not (folder / name).is_symlink()
               for name in CONTEST_FILES):
            return folder
    return root


def _entries(folder: Path) -> list[os.DirEntry]:
    with os.scandir(folder) as listing:
        return sorted(listing, key=lambda entry: entry.name)


def needs_copy(root: Path) -> bool:
    """True when the tree under `root` holds a link, anything but regular files and folders,
    or a name that is not UTF-8 or holds a control character."""
    pending = [Path(root)]
    while pending:
        folder = pending.pop()
        try:
            entries = _entries(folder)
        except OSError:
            return True
        for entry in entries:
            if entry.is_symlink() or printable(entry.name) != entry.name:
                return True
            if entry.is_dir(follow_symlinks=False):
                pending.append(Path(entry.path))
            elif not entry.is_file(follow_symlinks=False):
                return True
    return False


def listing_digest(root: Path) -> str:
    """A digest of the tree's listing and link targets (a linked folder of the contest, as
    BAPCtools links a shared `validation.h`'s, walked too), read without reading any file."""
    digest = hashlib.sha256()
    pending = [Path(root)]
    reach = boundary(root)
    walked = {Path(root).resolve()}
    while pending:
        folder = pending.pop()
        try:
            entries = _entries(folder)
        except OSError as error:
            digest.update(f"{folder}\0unreadable {error.errno}\n".encode())
            continue
        for entry in entries:
            rel = os.path.relpath(entry.path, root)
            try:
                own = entry.stat(follow_symlinks=False)
                line = f"{rel}\0{own.st_mode}\0{own.st_size}\0{own.st_mtime_ns}"
                if entry.is_symlink():
                    named = os.stat(entry.path)
                    line += f"\0{os.readlink(entry.path)}\0{named.st_size}\0{named.st_mtime_ns}"
            except OSError as error:
                line = f"{rel}\0error {error.errno}"
            digest.update(os.fsencode(line) + b"\n")
            if entry.is_dir(follow_symlinks=False):
                pending.append(Path(entry.path))
            elif entry.is_symlink() and _linked_folder(entry, reach, walked):
                pending.append(Path(entry.path))
    return digest.hexdigest()


def _linked_folder(entry: os.DirEntry, reach: Path, walked: set[Path]) -> bool:
    """Whether link `entry` names a folder inside `reach` not walked yet (marking it walked)."""
    try:
        if not entry.is_dir():
            return False
        named = Path(entry.path).resolve()
    except (OSError, RuntimeError):
        return False
    if named in walked or not named.is_relative_to(reach):
        return False
    walked.add(named)
    return True


def contest_stamp(root: Path) -> str:
    """The listing of the contest files the package at `root` is judged by; empty outside a
    contest."""
    reach = boundary(root)
    if reach == Path(root).resolve():
        return ""
    found = []
    for name in (*CONTEST_FILES, "languages.yaml"):
        try:
            info = (reach / name).stat()
        except OSError:
            continue
        found.append(f"{name}\0{info.st_size}\0{info.st_mtime_ns}")
    return "\n".join(found)


def leads_outside(path: Path, root: Path) -> PackageError | None:
    """Why `path` must not be read: it leads outside the package (or its contest); else None."""
    try:
        named = Path(path).resolve()
    except (OSError, RuntimeError):
        return None
    if named.is_relative_to(boundary(root)):
        return None
    rel = os.path.relpath(path, root)
    return PackageError(rel, "link-outside-package", f"{rel} leads outside the package (to "
                        f"{named}); it is not read")


def copy_package(source: Path, target: Path) -> tuple[PackageError, ...]:
    """Copy the package at `source` to a new `target`; returns what was left out, in order found."""
    root = Path(source).resolve()
    reach = boundary(root)
    left_out: list[PackageError] = []
    escaped_clash: list[PackageError] = []  # not for `_partners`: their partners' names are
                                            # other files', which are kept

    def leave_out(rel: str, rule: str, message: str, error: OSError | None = None) -> None:
        why = f": {error.strerror or type(error).__name__}" if error is not None else ""
        left_out.append(PackageError(rel, rule, message + why))

    def copy_folder(folder: Path, into: Path, rel: str, real_parents: tuple[Path, ...]) -> None:
        into.mkdir(parents=True, exist_ok=True)
        try:
            entries = _entries(folder)
        except OSError as error:
            leave_out(rel or ".", "unreadable", "cannot read this folder", error)
            return
        names = {entry.name for entry in entries}
        clash = any(printable(name) != name and printable(name) in names for name in names)
        for entry in entries:
            name = printable(entry.name)  # as copied: a byte that is not UTF-8 escaped
            child = f"{rel}/{name}" if rel else name
            path = Path(entry.path)
            if name != entry.name and clash:  # every such name here: no case pairs across
                escaped_clash.append(PackageError(
                    child, "file-name", "the file name is not UTF-8 and, its bytes written "
                    "as escapes, names of this folder collide with names of other files; it "
                    "is not read"))
                continue
            if CONTROL.search(entry.name):
                leave_out(child, "file-name", "the file name holds a control "
                          "character (a newline would break every line naming it); it is not "
                          "read")
                continue
            if entry.is_symlink():
                text = os.readlink(path)
                try:
                    named = path.resolve(strict=True)
                except (OSError, RuntimeError):
                    leave_out(child, "broken-link", f"symbolic link to {text} names nothing "
                              "that exists (or loops)")
                    continue
                if not named.is_relative_to(reach):
                    leave_out(child, "link-outside-package", f"symbolic link to {text} leads "
                              "outside the " + ("package" if reach == root else
                                                f"contest folder {reach}")
                              + (f" (to {named})" if str(named) != text else "")
                              + "; it is not read")
                    continue
                if named.is_dir() and (named in real_parents or root.is_relative_to(named)):
                    leave_out(child, "broken-link", f"symbolic link to {text} names a folder "
                              "it is inside (a loop)")
                    continue
                path = named
            try:
                info = path.stat()
            except OSError as error:
                leave_out(child, "unreadable", "cannot look at this file", error)
                continue
            if stat.S_ISDIR(info.st_mode):
                if len(real_parents) >= MAX_FOLDER_DEPTH:
                    leave_out(child, "too-deep", f"folders nested more than {MAX_FOLDER_DEPTH} "
                              "deep are not read")
                    continue
                copy_folder(path, into / name, child, (*real_parents, path.resolve()))
            elif stat.S_ISREG(info.st_mode):
                try:
                    shutil.copy2(path, into / name)
                except OSError as error:
                    leave_out(child, "unreadable", "cannot read this file", error)
            else:
                leave_out(child, "not-a-file", "not a regular file (a pipe, socket or device); "
                          "it is not read")

    copy_folder(root, Path(target), "", ())
    return tuple(left_out) + _partners(left_out, Path(target)) + tuple(escaped_clash)


def _partners(left_out: list[PackageError], target: Path) -> tuple[PackageError, ...]:
    """The other file of each test case one of whose files was left out, removed too."""
    removed = []
    for error in left_out:
        path = Path(error.file)
        if path.parts[:1] != ("data",) or path.suffix not in CASE_SUFFIXES:
            continue
        for suffix in CASE_SUFFIXES:
            other = target / path.with_suffix(suffix)
            if suffix != path.suffix and other.is_file():
                other.unlink()
                removed.append(PackageError(str(path.with_suffix(suffix)), "case-left-out",
                                            f"left out with {error.file} ({error.rule}), the "
                                            "other file of its test case"))
    return tuple(removed)
