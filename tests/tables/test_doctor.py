"""Damage is named and recoverable: a truncated or foreign file in a table is named by every
command that reads it (one line, no traceback), `pipeline doctor` lists it with leftover
temporary files and dead runs, and `doctor --fix` moves it to quarantine so the rest works."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "pipeline" / "problems" / "arc087e" / "samples"


def pipeline(data: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline", "--data-dir", str(data), *args],
                          cwd=REPO, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory) -> Path:
    data = tmp_path_factory.mktemp("doctor") / "data"
    assert pipeline(data, "ingest", str(SAMPLES), "--problem", "arc087e").returncode == 0
    for _ in range(2):
        done = pipeline(data, "run", "--problem", "arc087e", "--solver", "fast", "--jobs", "1")
        assert done.returncode == 0, done.stderr
    return data


def copy_of(data: Path, tmp_path: Path) -> Path:
    target = tmp_path / "data"
    subprocess.run(["cp", "-a", str(data), str(target)], check=True)
    return target


def test_a_truncated_results_chunk_is_named_and_quarantined(two_runs, tmp_path):
    data = copy_of(two_runs, tmp_path)
    # a chunk of the latest run (by its start: two runs may start within one second, and a
    # run id orders by the second, then by a random suffix), which every command reads
    runs = pl.read_parquet(data / "tables" / "runs" / "*.parquet").sort("started_at")
    latest = runs["run_id"][-1]
    chunk = sorted((data / "tables" / "results").glob(f"{latest}-*.parquet"))[-1]
    # a run writes its rows in chunks by count and by time, so on a loaded machine one run
    # may span several chunks: what survives is every row but this chunk's
    rows_left = (pl.read_parquet(data / "tables" / "results" / "*.parquet").height
                 - pl.read_parquet(chunk).height)
    chunk.write_bytes(chunk.read_bytes()[: chunk.stat().st_size // 2])
    for args in (["query", "SELECT count(*) FROM results"], ["slow"], ["mismatches"],
                 ["compare", "--problem", "arc087e"],
                 ["report", "--out", str(tmp_path / "r.html")]):
        done = pipeline(data, *args)
        assert done.returncode == 1, (args, done.stdout, done.stderr)
        assert str(chunk) in done.stderr and "pipeline doctor --fix" in done.stderr, args
        assert "Traceback" not in done.stderr
    looked = pipeline(data, "doctor")
    assert looked.returncode == 1 and f"damaged: {chunk}" in looked.stdout
    fixed = pipeline(data, "doctor", "--fix")
    assert fixed.returncode == 0, fixed.stderr
    assert not chunk.exists()
    moved = list((data / "quarantine").rglob(chunk.name))
    assert len(moved) == 1 and moved[0].stat().st_size > 0  # kept, not deleted
    assert pipeline(data, "doctor").returncode == 0
    done = pipeline(data, "query", "SELECT count(*) AS n FROM results", "--format", "csv")
    assert done.returncode == 0 and done.stdout.splitlines()[1] == str(rows_left)


def test_a_file_that_is_not_parquet_in_cases_is_named_by_ingest_and_run(two_runs, tmp_path):
    data = copy_of(two_runs, tmp_path)
    (data / "tables" / "cases" / "arc087e.parquet").write_text("not parquet at all\n")
    for args in (["ingest", str(SAMPLES), "--problem", "arc087e"],
                 ["run", "--problem", "arc087e", "--solver", "fast"]):
        done = pipeline(data, *args)
        assert done.returncode == 1 and "arc087e.parquet cannot be read" in done.stderr, args
        assert "Traceback" not in done.stderr


def test_leftover_temporary_files_and_dead_runs_are_listed_then_fixed(two_runs, tmp_path):
    data = copy_of(two_runs, tmp_path)
    leftover = data / "tables" / "cases" / ".arc087e.parquet.abc123.tmp"
    leftover.write_bytes(b"half a file")
    old = time.time() - 3600
    os.utime(leftover, (old, old))
    fresh = data / "tables" / "results" / ".x.parquet.def456.tmp"  # a write in progress
    fresh.write_bytes(b"being written")
    looked = pipeline(data, "doctor")
    assert looked.returncode == 1
    assert f"leftover temporary file: {leftover}" in looked.stdout
    assert str(fresh) not in looked.stdout
    assert pipeline(data, "doctor", "--fix").returncode == 0
    assert not leftover.exists() and fresh.exists()
    assert list((data / "quarantine").rglob(leftover.name))
