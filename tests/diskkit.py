"""A real small disk for the tests of what a full disk does: a tmpfs mounted for the test (where
the machine allows it: root, and `mount` works), and filling it to the last block."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def small_disk(mount: Path, size: str = "2m") -> Iterator[Path]:
    """A tmpfs of `size` mounted at `mount` for the block (the test is skipped where it cannot
    be), unmounted after."""
    mount.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(disk: Path) -> Path:
    """Fill `disk` to its last block with a ballast file; returns the file."""
    ballast = disk / "ballast"
    fd = os.open(ballast, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        while os.write(fd, b"\0" * 4096):
            pass
    except OSError:
        pass
    finally:
        os.close(fd)
    return ballast


@contextmanager
def nested_folders(parent: Path, depth: int) -> Iterator[Path]:
    """`depth` folders `d/d/d/...` made under `parent`, one level at a time relative to the
    last (no path is ever that long); removed after the block with `rm -rf` (shutil.rmtree
    recurses once per level). Yields the outermost."""
    fd = os.open(parent, os.O_RDONLY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        fd, above = os.open("d", os.O_RDONLY, dir_fd=fd), fd
        os.close(above)
    os.close(fd)
    try:
        yield parent / "d"
    finally:
        subprocess.run(["rm", "-rf", str(parent / "d")], check=True)
