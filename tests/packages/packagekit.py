"""Names the package tests share: where the fixture packages are, and which there are; and the
files of other public repositories that the search tool's fetch brought onto this machine.

(A module of its own: `conftest` names collide across test folders.)
"""

from __future__ import annotations

import io
import subprocess
import tarfile
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "packages"
KATTIS = ("circlearea", "hypotenuse", "guess", "bigsum", "roomarea", "remember")
ALL = (*KATTIS, "polysum")
MIRRORS = Path("/work/.mirror")


def fetched(repo: str, folder: str, target: Path) -> Path:
    """`folder` of the fetched repository `repo` ("owner/name"), as files under `target`; the
    test is skipped, with a line saying so, when that repository was never fetched here."""
    git_dir = MIRRORS / repo.replace("/", "+") / "repo"
    if not git_dir.is_dir():
        pytest.skip(f"{repo} is not fetched here ({git_dir} is absent)")
    archive = subprocess.run(["git", "--git-dir", str(git_dir), "archive", "HEAD", folder],
                             capture_output=True, check=False)
    if archive.returncode != 0:
        pytest.skip(f"{repo} has no {folder}: {archive.stderr.decode(errors='replace')[:200]}")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(target, filter="data")
    return target / folder
