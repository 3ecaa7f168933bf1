"""The one way the pipeline opens a file in a folder a program it runs may write
(`pipeline.untrusted.open_regular` and its helpers): never through a link at the file's name
or at its folder's, never anything but a regular file (a named pipe refused without waiting
for a writer), and what a link names is left as it was.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from pipeline.untrusted import (
    LeftBehind,
    chmod_regular,
    copy_regular,
    is_regular,
    make_folder,
    open_created,
    read_regular,
    write_regular,
)

PRIVATE = b"private bytes\n"


@pytest.fixture
def linked(tmp_path: Path) -> tuple[Path, Path]:
    """(a program's folder with `file` a link to a private 0600 file, that private file)."""
    private = tmp_path / "private"
    private.write_bytes(PRIVATE)
    private.chmod(0o600)
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "file").symlink_to(private)
    return folder, private


def test_a_regular_file_is_read_written_copied_and_made_executable(tmp_path):
    path = tmp_path / "file"
    write_regular(path, b"0123456789")
    assert read_regular(path) == b"0123456789"
    assert read_regular(path, 4) == b"0123" and read_regular(path, 4, last=True) == b"6789"
    assert read_regular(tmp_path / "absent") is None
    copy_regular(path, tmp_path / "copy")
    assert (tmp_path / "copy").read_bytes() == b"0123456789"
    chmod_regular(path, 0o755, "it is not run")
    assert stat.S_IMODE(path.stat().st_mode) == 0o755 and is_regular(path)


@pytest.mark.parametrize("operation", ["read", "write", "create", "copy from", "copy to",
                                       "chmod"])
def test_nothing_is_done_through_a_link_at_the_name(linked, operation):
    folder, private = linked
    link = folder / "file"
    do = {"read": lambda: read_regular(link),
          "write": lambda: write_regular(link, b"overwritten"),
          "create": lambda: open_created(link),
          "copy from": lambda: copy_regular(link, folder / "copy"),
          "copy to": lambda: copy_regular(folder / "copy", link),
          "chmod": lambda: chmod_regular(link, 0o755, "it is not run")}
    (folder / "copy").write_bytes(b"a copy\n")
    with pytest.raises(LeftBehind) as refused:
        do[operation]()
    assert refused.value.left_by("the program") in (
        "the program left file as a symbolic link; it is not read",
        "the program left file as a symbolic link; it is not written",
        "the program left file as a symbolic link; it is not run")
    assert private.read_bytes() == PRIVATE and stat.S_IMODE(private.stat().st_mode) == 0o600
    assert not is_regular(link)


def test_nothing_is_done_through_a_link_at_the_folder(tmp_path, linked):
    _, private = linked
    outside = private.parent / "outside"
    outside.mkdir()
    (outside / "judgemessage.txt").write_bytes(PRIVATE)
    folder = tmp_path / "feedback"
    folder.symlink_to(outside)
    with pytest.raises(LeftBehind) as refused:
        read_regular(folder / "judgemessage.txt")
    assert refused.value.left_by("the validator", folder) == \
        "the validator left feedback as a symbolic link; it is not read"
    with pytest.raises(LeftBehind):
        write_regular(folder / "made.txt", b"x")
    with pytest.raises(LeftBehind):
        make_folder(folder)
    assert sorted(os.listdir(outside)) == ["judgemessage.txt"]


def test_a_named_pipe_or_a_folder_is_refused_at_once(tmp_path):
    os.mkfifo(tmp_path / "pipe")  # (no writer: an open that waited would never return)
    (tmp_path / "folder").mkdir()
    for name, kind in (("pipe", "a named pipe"), ("folder", "a folder")):
        with pytest.raises(LeftBehind) as refused:
            read_regular(tmp_path / name)
        assert refused.value.kind == kind
        with pytest.raises(LeftBehind):
            write_regular(tmp_path / name, b"x")
