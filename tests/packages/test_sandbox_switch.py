"""`--sandbox` is one switch for every program of a run: the command decides it before anything
runs, and each job carries it to the worker that runs it (the workers are forked from a server
started before the decision, so nothing else could tell them). A package's submission that
writes outside its folder writes there under `--sandbox off` and not under `on` (where the
sandbox works). Real `pipeline` processes, a real package.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from packagekit import tiny_kattis

REPO = Path(__file__).resolve().parents[2]
needs_sandbox = pytest.mark.skipif(os.geteuid() != 0, reason="the sandbox needs root")

WRITER = """a, b = map(int, input().split())
try:
    with open({outside!r} + "/" + str(a + b), "w") as out:
        out.write("escaped")
except OSError:
    pass
print(a + b)
"""


def pipeline(data: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PIPELINE_SANDBOX"}
    return subprocess.run([sys.executable, "-m", "pipeline", "--data-dir", str(data), *args],
                          cwd=REPO, capture_output=True, text=True, timeout=600, env=env)


@needs_sandbox
@pytest.mark.parametrize("mode, written", [("off", ["3", "30", "5"]), ("on", [])])
def test_a_runs_sandbox_setting_reaches_the_submissions_in_its_workers(tmp_path, mode, written):
    outside = tmp_path / "outside"
    outside.mkdir()
    outside.chmod(0o777)
    package = tiny_kattis(tmp_path / "tinysum", {
        "submissions/accepted/writer.py": WRITER.format(outside=str(outside))})
    data = tmp_path / "data"
    ingested = pipeline(data, "ingest", str(package))
    assert ingested.returncode == 0, ingested.stdout + ingested.stderr
    done = pipeline(data, "run", "--problem", "tinysum", "--sandbox", mode)
    assert done.returncode == 0, done.stdout + done.stderr
    results = pl.read_parquet(data / "tables" / "results" / "*.parquet")
    assert results.filter(pl.col("solver") == "accepted/writer.py")["verdict"].to_list() == [
        "AC"] * 3
    assert sorted(path.name for path in outside.iterdir()) == written
