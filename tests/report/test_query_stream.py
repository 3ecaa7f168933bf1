"""`pipeline query` streams: the console table computes only the rows it shows, and
`--format csv --out FILE` writes a result far larger than what the process holds at once.
Memory is measured on real processes (peak RSS from wait4), against reading the same table
whole in another process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ROWS = 2_000_000
CHUNK = 5000  # rows per results chunk, as runs write them


MAKE_TABLE = """
import sys
from pathlib import Path
import polars as pl
from pipeline.tables.files import conform
from pipeline.tables.schemas import RESULTS
folder, rows, chunk = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
case_id = pl.int_range(rows, eager=True).cast(pl.String).str.zfill(64)
frame = pl.DataFrame({"run_id": "r1", "problem": "p", "case_id": case_id, "solver": "fast",
                      "repeat": 0, "verdict": "AC"}).with_columns(
    pl.format("answer {} of many, answer {} of many", "case_id", "case_id").alias("answer"))
frame = conform(frame, RESULTS)
for part in range(rows // chunk):  # a table is many chunks, as runs write it
    frame.slice(part * chunk, chunk).write_parquet(folder / f"r1-{part:06d}.parquet")
"""


@pytest.fixture(scope="module")
def big_results(tmp_path_factory) -> Path:
    """A results table of ROWS rows, written by another process (so this one stays small)."""
    data = tmp_path_factory.mktemp("stream") / "data"
    folder = data / "tables" / "results"
    folder.mkdir(parents=True)
    subprocess.run([sys.executable, "-c", MAKE_TABLE, str(folder), str(ROWS), str(CHUNK)],
                   cwd=REPO, check=True)
    return data


def peak_mb(argv: list[str]) -> float:
    """Peak resident memory of a command, measured by GNU time, which forks it from a small
    process (a child forked straight from this test process would report at least this
    process's own size: Linux carries the parent's high-water mark into the child)."""
    if not Path("/usr/bin/time").exists():
        pytest.skip("GNU time (/usr/bin/time) is not installed")
    done = subprocess.run(["/usr/bin/time", "-f", "peak-kb %M", *argv], cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return int(done.stderr.strip().splitlines()[-1].split()[-1]) / 1024


def test_the_table_view_and_csv_stream_instead_of_holding_the_result(big_results, tmp_path):
    query = ["query", "SELECT case_id, answer FROM results"]
    base = [sys.executable, "-m", "pipeline", "--data-dir", str(big_results)]
    table_mb = peak_mb([*base, *query])
    out = tmp_path / "all.csv"
    csv_mb = peak_mb([*base, *query, "--format", "csv", "--out", str(out)])
    whole_mb = peak_mb([sys.executable, "-c", "import sys, polars as pl; "
                        f"pl.read_parquet({str(big_results / 'tables' / 'results')!r} + "
                        "'/*.parquet', columns=['case_id', 'answer'])"])
    assert out.stat().st_size > 150 * 1024 * 1024  # the whole result was written ...
    assert sum(1 for _ in out.open()) == ROWS + 1
    assert table_mb < 0.3 * whole_mb, (table_mb, whole_mb)  # ... without holding it
    assert csv_mb < 0.6 * whole_mb, (csv_mb, whole_mb)
