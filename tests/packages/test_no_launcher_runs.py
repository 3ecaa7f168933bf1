"""Without the launcher (`PIPELINE_NATIVE=0`, the fallback where no C compiler works) the
fixture packages are judged as with it: their builds, validators, checkers, interactors and
submissions run in the pipeline's own processes, and each submission gets what its folder
expects. There is no sandbox then, so `--sandbox on` (or `PIPELINE_SANDBOX=on`, its default)
refuses to run anything: one line, exit 1, nothing written. Real `pipeline` processes on
copies of the fixture packages, real compilers.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from packagekit import FIXTURES

REPO = Path(__file__).resolve().parents[2]
NO_LAUNCHER = "native code is switched off (PIPELINE_NATIVE=0)"
REFUSED = f"error: --sandbox on: the sandbox cannot work here: {NO_LAUNCHER}"


def pipeline(data: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline", "--data-dir", str(data), *args],
                          cwd=REPO, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PIPELINE_NATIVE": "0", **env})


def registered(tmp_path: Path, name: str) -> Path:
    """A fresh data folder with a private copy of fixture `name` ingested, without the
    launcher."""
    shutil.copytree(FIXTURES / name, tmp_path / name)
    data = tmp_path / "data"
    done = pipeline(data, "ingest", str(tmp_path / name))
    assert done.returncode == 0, done.stdout + done.stderr
    return data


# A batch package's compiled (C, C++) and interpreted submissions, and an interactive one's,
# among them one that crashes first (RE, not its interactor's WA on the end of its output) and
# one whose interactor rejects it first (WA, though it then crashes on the end of its input).
@pytest.mark.parametrize("name, submissions", [
    ("bigsum", ("accepted/sum.cpp", "wrong_answer/int32.c", "run_time_error/crash_negative.py")),
    ("guess", ("accepted/binary.py", "wrong_answer/linear.py",
               "run_time_error/crash_after_first.c")),
])
def test_without_the_launcher_each_submission_gets_what_its_folder_expects(
        tmp_path, name, submissions):
    data = registered(tmp_path, name)
    chosen = [word for submission in submissions for word in ("--solver", submission)]
    done = pipeline(data, "run", "--problem", name, *chosen)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"note: programs run without the launcher ({NO_LAUNCHER})" in done.stdout
    assert f"note: sandbox off: {NO_LAUNCHER}" in done.stdout
    held = pl.read_parquet(data / "tables" / "expectations" / "*.parquet")
    assert sorted(held["submission"]) == sorted(submissions)
    assert held["status"].to_list() == ["agree"] * len(submissions), held
    results = pl.read_parquet(data / "tables" / "results" / "*.parquet")
    cases = pl.read_parquet(data / "tables" / "cases" / f"{name}.parquet").height
    assert results.height == cases * len(submissions)
    assert results["error"].drop_nulls().str.contains("signal 9|worker died").sum() == 0


def test_sandbox_on_refuses_a_package_run_and_an_ingest_without_the_launcher(tmp_path):
    data = registered(tmp_path, "bigsum")
    for refused in (pipeline(data, "run", "--problem", "bigsum", "--sandbox", "on"),
                    pipeline(data, "run", "--problem", "bigsum", PIPELINE_SANDBOX="on"),
                    pipeline(data, "ingest", str(tmp_path / "bigsum"), "--sandbox", "on")):
        assert refused.returncode == 1, refused.stdout + refused.stderr
        assert refused.stderr.strip().splitlines() == [REFUSED]
        assert refused.stdout == ""
    assert not list((data / "tables" / "runs").glob("*.parquet"))  # no run was made
    # `--sandbox` given wins over the environment's default
    allowed = pipeline(data, "run", "--problem", "bigsum", "--solver", "accepted/sum.py",
                       "--sandbox", "off", PIPELINE_SANDBOX="on")
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
