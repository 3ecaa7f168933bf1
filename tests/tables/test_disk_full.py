"""A full disk ends a write in one error line, and the file being written keeps its old content
(on a real tmpfs mounted for the test, where the machine allows mounting one)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from diskkit import fill, small_disk

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def disk(tmp_path):
    with small_disk(tmp_path / "disk") as mount:
        yield mount


def test_disk_full_is_one_error_line_and_the_old_tables_stay(disk, tmp_path):
    data = disk / "data"
    raw = tmp_path / "raw" / "bipartitebattle"
    raw.mkdir(parents=True)
    for i in range(20):
        (raw / f"{i:03d}.in").write_text(f"1\n{i + 1} 1\n")
    argv = [sys.executable, "-m", "pipeline", "--data-dir", str(data), "ingest"]
    assert subprocess.run([*argv, str(raw.parent)], cwd=REPO).returncode == 0
    cases = data / "tables" / "cases" / "bipartitebattle.parquet"
    before = pl.read_parquet(cases)
    fill(disk)
    for i in range(20, 3000):
        (raw / f"{i:04d}.in").write_text(f"1\n{i + 1} 2\n")
    done = subprocess.run([*argv, str(raw.parent)], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 1
    assert "No space left on device" in done.stderr and "old content" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert pl.read_parquet(cases).equals(before)
    assert not [p for p in (data / "tables").rglob("*.tmp")]  # the half-written file is gone
