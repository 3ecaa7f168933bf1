"""Atomic file writes: a temporary file beside the target, renamed into place, so a reader (or a
crash) sees the old content or the new, never half. The file gets the mode of the file it
replaces, else 0666 less the umask (not a temporary file's 0600). Imports nothing heavy.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from pipeline.untrusted import is_utf8, storable


@contextlib.contextmanager
def scratch_folder(prefix: str = "tmp", dir: Path | None = None) -> Iterator[Path]:
    """A new folder, removed at the end with what is left in it, never following a link.

    Not `tempfile.TemporaryDirectory`: before Python 3.11.8 (CVE-2023-6597) its cleanup chmods a
    path it cannot remove, following a symlink there, so a program's leftovers (a folder made
    read-only with a link in it) could have a file outside changed; `shutil.rmtree` leaves what
    it cannot remove."""
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir=dir))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def current_umask() -> int:
    """The process's umask, read without changing it where Linux says it (`/proc`)."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)  # elsewhere: set and restore (the only portable way to read it)
    os.umask(mask)
    return mask


def new_file_mode(path: Path) -> int:
    """The mode a file written at `path` gets: the mode there, else 0666 less the umask."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return 0o666 & ~current_umask()


@contextlib.contextmanager
def _replacing(path: Path) -> Iterator[tuple[int, Path]]:
    """A new temporary file in `path`'s folder (made if missing), open (its descriptor), renamed
    to `path` once the block ends, removed when it raises."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{storable(path.name)}.", suffix=".tmp",
                                dir=path.parent)  # a UTF-8 name: see `utf8_path`
    try:
        yield fd, Path(name)
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise


def atomic_write(path: Path, write: Callable[[Path], object], sync: bool = True) -> None:
    """Call `write(tmp_path)` to produce the file, fsync it (`sync`; else the caller flushes
    many at once: `sync_filesystem`), give it the mode of a file the user writes
    (`new_file_mode`), then rename it to `path`."""
    path = Path(path)
    with _replacing(path) as (fd, tmp):
        os.close(fd)
        write(tmp)
        os.chmod(tmp, new_file_mode(path))
        if sync:
            with open(tmp, "rb") as handle:
                os.fsync(handle.fileno())


def atomic_write_text(path: Path, text: str, sync: bool = True) -> None:
    """`text` (UTF-8) written to `path` as `atomic_write` writes, through the one descriptor
    its temporary file was made with."""
    path = Path(path)
    with _replacing(path) as (fd, _), open(fd, "wb", closefd=True) as handle:
        handle.write(text.encode("utf-8"))
        handle.flush()
        os.fchmod(handle.fileno(), new_file_mode(path))
        if sync:
            os.fsync(handle.fileno())


def sync_filesystem(folder: Path) -> None:
    """Flush to disk every file written on the filesystem that holds `folder` (syncfs(2),
    else sync(2)): one wait in place of an fsync per file, for many files written at once."""
    import ctypes

    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        if ctypes.CDLL(None, use_errno=True).syncfs(fd) != 0:
            os.sync()
    finally:
        os.close(fd)


# Folders opened to stand for a path that is not UTF-8 (`utf8_path`), by that path: opened
# once per process (O_PATH: nothing is read through them) and kept while the process lives.
_STAND_INS: dict[str, int] = {}


def utf8_path(path: Path | str) -> str:
    """`path` as text a library taking only UTF-8 paths (Polars) can open: itself when UTF-8,
    else the same file through `/proc/self/fd/N`, N held open on its deepest non-UTF-8
    folder. A file name that is itself not UTF-8 is an `OSError` (table files are named by
    ids)."""
    text = os.fspath(path)
    if is_utf8(text):
        return text
    parts = Path(text).parts
    bad = max(i for i, part in enumerate(parts) if not is_utf8(part))
    if bad == len(parts) - 1:
        raise OSError(errno.EILSEQ, "Polars opens only files whose name is UTF-8", text)
    folder = os.path.join(*parts[:bad + 1])
    held = _STAND_INS.get(folder)
    if held is None or not os.path.samestat(os.fstat(held), os.stat(folder)):
        if held is not None:  # the folder was replaced since: hold the one there now
            os.close(held)
        _STAND_INS[folder] = os.open(folder, os.O_PATH | os.O_DIRECTORY)
    return os.path.join(f"/proc/self/fd/{_STAND_INS[folder]}", *parts[bad + 1:])


def file_sha256(path: Path | str) -> hashlib._Hash:
    """The SHA-256 of a file, read in pieces (not whole into memory)."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256")
