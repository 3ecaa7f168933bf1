"""What the pipeline refuses or escapes in file trees it did not write (judge data, zips,
packages), shared by the corpus walk and the package copy: file names shown as one printable
line, control characters, folder depth, and archive members that would inflate like a bomb.
"""

from __future__ import annotations

import os
import re
import zipfile

# Archive members: refused before reading when one would inflate more than this many times
# (a 100 KB zip of 100 MB of zeros is 1000:1; real test data stays far below 100:1), counted
# only for members this large.
MAX_COMPRESSION_RATIO = 200
RATIO_CHECKED_FROM_BYTES = 1 << 20

# Folders nested deeper than this under an ingested root are not walked (a `too-deep` reject
# of the folder): no judge's data is, and 10,000 levels would exhaust Python's recursion.
MAX_FOLDER_DEPTH = 64

# A control character in a file name (a newline would forge lines of every message naming it).
CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def printable(name: str) -> str:
    """A file name as text: bytes that are not UTF-8 shown as `\\xff` escapes, and control
    characters (a newline) as `\\n` or `\\x1b`, so a name is one line of a message."""
    text = os.fsencode(name).decode("utf-8", "backslashreplace")
    return CONTROL.sub(lambda found: repr(found.group())[1:-1], text)


def zip_bomb(info: zipfile.ZipInfo) -> str | None:
    """Why an archive member is refused before it is inflated (it would inflate suspiciously
    well), or None."""
    ratio = info.file_size / max(1, info.compress_size)
    if info.file_size >= RATIO_CHECKED_FROM_BYTES and ratio > MAX_COMPRESSION_RATIO:
        return (f"would inflate {ratio:,.0f} times ({info.compress_size:,} -> "
                f"{info.file_size:,} bytes): refused as a zip bomb")
    return None


def archive_bomb(infos: list[zipfile.ZipInfo], archive_bytes: int) -> str | None:
    """Why a whole archive is refused before any member is inflated (its members together
    would inflate suspiciously well: members each just under `RATIO_CHECKED_FROM_BYTES`
    escape `zip_bomb`, and 21.6 MB of them inflated to 20 GB), or None."""
    total = sum(info.file_size for info in infos)
    ratio = total / max(1, archive_bytes)
    if total >= RATIO_CHECKED_FROM_BYTES and ratio > MAX_COMPRESSION_RATIO:
        return (f"its {len(infos):,} members would inflate {ratio:,.0f} times in all "
                f"({archive_bytes:,} -> {total:,} bytes): refused as a zip bomb")
    return None
