"""What the pipeline refuses or escapes in file trees it did not write (judge data, zips,
packages): names shown as one printable line, folder depth, archive members that would inflate
like a bomb; and files opened in a folder a program may write (`open_regular`), never through a
link the program left there.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:  # only named in a type: importing it costs every start (fsutil uses this)
    import zipfile

# Archive members this large that would inflate more than this many times are refused.
MAX_COMPRESSION_RATIO = 200
RATIO_CHECKED_FROM_BYTES = 1 << 20

# Folders nested deeper than this under an ingested root are not walked (a `too-deep` reject):
# no judge's data is, and 10,000 levels would exhaust Python's recursion.
MAX_FOLDER_DEPTH = 64

# A control character in a file name (a newline would forge lines of every message naming it).
CONTROL = re.compile(r"[\x00-\x1f\x7f]")

# What a terminal would act on rather than show: C0 and C1 control characters (ESC and U+009B
# start escape sequences), DEL, and the lone surrogates that stand for bytes that are not UTF-8
# (`os.fsdecode`'s surrogateescape). `_LINE_BREAKS` are kept where a text may span lines.
_HIDDEN = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_LINE_BREAKS = "\n\t"


MESSAGE_CHARS = 500  # what a message keeps of a program's stderr (`excerpt`)
SKIPPED = " ... "

# A line saying why a program died, kept wherever it falls: a failed assert() (glibc's
# `prog: a.c:3: main: Assertion `n > 0' failed.`, musl's `Assertion failed: n > 0 (a.c: ...)`),
# an uncaught C++ exception and its what(), a Rust panic, an uncaught Java exception.
_FATAL = re.compile(r"Assertion .*failed|Assertion failed|terminate called|^\s*what\(\):|"
                    r"panicked at|Exception in thread")
_TRACEBACK = "Traceback (most recent call last):"
_FRAME = re.compile(r'^\s*File ".*", line \d+')  # a Python traceback's frame line


def fatal_line(text: str) -> str | None:
    """The line of a program's stderr `text` that says why it died, or None: after a Python
    traceback (its header or a frame), its last line; else the last assertion or panic line."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) > 1 and not lines[-1][:1].isspace() and any(
            line.endswith(_TRACEBACK) or _FRAME.match(line) for line in lines[:-1]):
        return lines[-1].strip()
    lines = [line.strip() for line in lines]
    return next((line for line in reversed(lines) if _FATAL.search(line)), None)


def _ends(line: str, limit: int) -> str:
    """One line cut to about `limit` characters: its start and its end, `SKIPPED` between."""
    if len(line) <= limit:
        return line
    half = max(1, (limit - len(SKIPPED)) // 2)
    return line[:half] + SKIPPED + line[-half:]


def excerpt(text: str, limit: int = MESSAGE_CHARS) -> str:
    """What a program said (its stderr), shortened to about `limit` characters: its first
    line(s), up to a third of `limit`; its last lines in what is left; between them `SKIPPED`
    and the line saying why it died (`fatal_line`), never left out. A single line too long
    keeps its start and its end."""
    text = text.strip()
    if len(text) <= limit:
        return text
    lines = text.splitlines()
    if len(lines) == 1:
        return _ends(text, limit)
    fatal = fatal_line(text)
    head: list[str] = []
    room = limit // 3
    for line in lines[:-1]:
        if head and len(line) + 1 > room:
            break
        head.append(_ends(line, room))
        room -= len(head[-1]) + 1
    rest = lines[len(head):]
    fatal_kept = fatal if fatal and fatal not in (line.strip() for line in head) else None
    room = limit - sum(len(line) + 1 for line in head) - (len(fatal_kept) + len(SKIPPED)
                                                          if fatal_kept else 0)
    tail: list[str] = []
    for line in reversed(rest):
        if tail and len(line) + 1 > room:
            break
        tail.insert(0, _ends(line, max(room, 40)))
        room -= len(tail[0]) + 1
    if fatal_kept and any(line.strip() == fatal_kept for line in tail):
        fatal_kept = None
    middle = [] if len(head) + len(tail) == len(lines) else [SKIPPED.strip()]
    if fatal_kept:
        middle = [SKIPPED.strip(), _ends(fatal_kept, limit // 2), SKIPPED.strip()]
    return "\n".join([*head, *middle, *tail])


def read_ends(path: Path, limit: int) -> str:
    """The text of a file a program wrote ('' when none): its first and last `limit` bytes with
    `SKIPPED` between when it holds more than twice that. Never read through a link."""
    try:
        descriptor = open_regular(path)
    except FileNotFoundError:
        return ""
    try:
        return ends_of(descriptor, limit)
    finally:
        os.close(descriptor)


def ends_of(descriptor: int, limit: int) -> str:
    """`read_ends` of the file open at `descriptor` (read from its start)."""
    size = os.fstat(descriptor).st_size
    if size <= 2 * limit:
        data = read_at(descriptor, size)
    else:
        data = (read_at(descriptor, limit) + f"\n{SKIPPED.strip()}\n".encode()
                + read_at(descriptor, limit, size - limit))
    return data.decode("utf-8", "replace")


def read_at(descriptor: int, count: int, offset: int = 0) -> bytes:
    """`count` bytes (fewer at its end) of the file open at `descriptor` from `offset`."""
    chunks = []
    while count > 0:
        chunk = os.pread(descriptor, min(count, 1 << 30), offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset, count = offset + len(chunk), count - len(chunk)
    return b"".join(chunks)


def _escape(found: re.Match) -> str:
    code = ord(found.group())
    if 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8, as surrogateescape holds it
        return f"\\x{code - 0xDC00:02x}"
    return repr(found.group())[1:-1] if code < 0xD800 else f"\\u{code:04x}"


def shown(text: str) -> str:
    """`text` safe to print on a terminal: every control character but newline and tab, and
    every byte that is not UTF-8, written as its escape (`\\x1b`, `\\xff`)."""
    return _HIDDEN.sub(lambda found: found.group() if found.group() in _LINE_BREAKS
                       else _escape(found), text)


_NOT_UTF8 = re.compile(r"[\ud800-\udfff]")


def is_utf8(text: str) -> bool:
    """True when `text` holds no byte that is not UTF-8 (no lone surrogate)."""
    return text.isascii() or _NOT_UTF8.search(text) is None


def storable(text: str) -> str:
    """`text` as a table can hold it (UTF-8): each byte that is not UTF-8 as its escape `\\xff`."""
    return _NOT_UTF8.sub(_escape, text)


def printable(name: str) -> str:
    """A file name as text: bytes that are not UTF-8 shown as `\\xff` escapes, and control
    characters (a newline) as `\\n` or `\\x1b`, so a name is one line of a message."""
    return _HIDDEN.sub(_escape, name)


def zip_bomb(info: zipfile.ZipInfo) -> str | None:
    """Why an archive member is refused before it is inflated (a zip bomb), or None."""
    ratio = info.file_size / max(1, info.compress_size)
    if info.file_size >= RATIO_CHECKED_FROM_BYTES and ratio > MAX_COMPRESSION_RATIO:
        return (f"would inflate {ratio:,.0f} times ({info.compress_size:,} -> "
                f"{info.file_size:,} bytes): refused as a zip bomb")
    return None


def archive_bomb(infos: list[zipfile.ZipInfo], archive_bytes: int) -> str | None:
    """Why a whole archive is refused before any member is inflated (its members together would
    inflate like a bomb), or None."""
    total = sum(info.file_size for info in infos)
    ratio = total / max(1, archive_bytes)
    if total >= RATIO_CHECKED_FROM_BYTES and ratio > MAX_COMPRESSION_RATIO:
        return (f"its {len(infos):,} members would inflate {ratio:,.0f} times in all "
                f"({archive_bytes:,} -> {total:,} bytes): refused as a zip bomb")
    return None


# -- files in a folder a program may write -------------------------------------------------------
# A symbolic link a contained program leaves in its folder may name any path, which the
# pipeline, uncontained, would follow. So every file the pipeline opens in such a folder is
# opened here: the folder not through a link, the file with O_NOFOLLOW, and checked to be a
# regular file on the descriptor it was opened as (a FIFO never blocks the open).

READ = "it is not read"
WRITTEN = "it is not written"


class LeftBehind(Exception):
    """What a program left where the pipeline reads or writes a file (a link, a folder, a FIFO:
    `kind`), not opened (`action` says what is not done with it)."""

    def __init__(self, path: Path, kind: str, action: str = READ) -> None:
        self.path, self.kind, self.action = Path(path), kind, action
        super().__init__(f"{printable(self.path.name)} is {kind}; {action}")

    def left_by(self, program: str, under: Path | None = None) -> str:
        """One line: `<program> left <name> as <kind>; <action>` (the name relative to `under`)."""
        name = self.path.name
        if under is not None and self.path != Path(under):
            with contextlib.suppress(ValueError):
                name = str(self.path.relative_to(under))
        return f"{program} left {printable(name)} as {self.kind}; {self.action}"


_KINDS = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a folder"),
          (stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device"),
          (stat.S_ISBLK, "a device"), (stat.S_ISREG, "a regular file"))


def _kind(mode: int) -> str:
    return next((kind for test, kind in _KINDS if test(mode)), "not a regular file")


def kind_of(path: Path) -> str | None:
    """What is at `path`, a link not followed: None (nothing), "a regular file", "a folder", ..."""
    try:
        return _kind(os.lstat(path).st_mode)
    except FileNotFoundError:
        return None


def is_regular(path: Path) -> bool:
    """Whether a regular file is at `path` itself (a link to one is not)."""
    return kind_of(path) == "a regular file"


def open_regular(path: Path, flags: int = os.O_RDONLY, action: str = READ) -> int:
    """A descriptor of the regular file at `path` (`flags` as `os.open`'s), opened through no
    link at its name or its folder's: else, or for a file not regular, LeftBehind."""
    path = Path(path)
    try:
        folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
                         | os.O_CLOEXEC)
    except OSError:  # a folder there now was not one when opened (made meanwhile): not refused
        kind = kind_of(path.parent)
        if kind not in (None, "a folder"):
            raise LeftBehind(path.parent, kind, action) from None
        raise
    try:
        descriptor = os.open(path.name, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                             0o666, dir_fd=folder)
    except OSError:
        kind = kind_of(path)
        if kind not in (None, "a regular file"):
            raise LeftBehind(path, kind, action) from None
        raise
    finally:
        os.close(folder)
    kind = _kind(os.fstat(descriptor).st_mode)
    if kind != "a regular file":
        os.close(descriptor)
        raise LeftBehind(path, kind, action)
    os.set_blocking(descriptor, True)  # (as any file: it may become a program's stderr)
    return descriptor


def read_regular(path: Path, limit: int | None = None, *, last: bool = False) -> bytes | None:
    """At most `limit` bytes (its first, or its `last`) of the regular file at `path`
    (`open_regular`); None when there is no file."""
    try:
        descriptor = open_regular(path)
    except FileNotFoundError:
        return None
    with os.fdopen(descriptor, "rb") as handle:
        if limit is None:
            return handle.read()
        if last:
            handle.seek(max(0, os.fstat(descriptor).st_size - limit))
        return handle.read(limit)


def write_regular(path: Path, data: bytes, action: str = WRITTEN) -> None:
    """Write `data` to the regular file at `path` (made, or emptied), never through a link."""
    with open_created(path, action) as handle:
        handle.write(data)


def open_created(path: Path, action: str = WRITTEN) -> BinaryIO:
    """The regular file at `path` made, or emptied, for writing, never through a link."""
    return os.fdopen(open_regular(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, action=action),
                     "wb")


def copy_regular(source: Path, target: Path, *, follow_source: bool = False) -> None:
    """Copy the regular file `source` to `target`, neither opened through a link (unless
    `follow_source`: a file the pipeline trusts)."""
    descriptor = os.open(source, os.O_RDONLY | os.O_CLOEXEC) if follow_source \
        else open_regular(source)
    with os.fdopen(descriptor, "rb") as reading, open_created(target) as writing:
        shutil.copyfileobj(reading, writing, 1 << 20)


def chmod_regular(path: Path, mode: int, action: str) -> None:
    """Set the mode of the regular file at `path`, never through a link (`open_regular`)."""
    descriptor = open_regular(path, action=action)
    try:
        os.fchmod(descriptor, mode)
    finally:
        os.close(descriptor)


def make_folder(path: Path, action: str = "nothing is made in it") -> None:
    """Make the folder `path` (there already: fine), or LeftBehind for a link or a file."""
    path = Path(path)
    with contextlib.suppress(FileExistsError):
        path.mkdir()
    kind = kind_of(path)
    if kind != "a folder":
        raise LeftBehind(path, kind or "nothing", action)
