"""The suite's own set-up: `make test` runs it on every core (`-n auto --dist loadgroup`), and
a fixture of module scope defined in a test module is built once, on the one worker that runs
that module's tests (`tests/conftest.py`)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent

PROBE = '''
import os
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def shared():
    with open(os.environ["BUILT"], "a") as log:
        log.write(f"{os.getpid()}\\n")


@pytest.mark.parametrize("index", range(8))
def test_uses_it(shared, index):
    pass


@pytest.mark.parametrize("index", range(8))
def test_does_not(index):
    pass
'''


def test_a_module_scoped_fixture_is_built_once_on_two_workers(tmp_path):
    shutil.copy(TESTS / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_probe.py").write_text(PROBE)
    built = tmp_path / "built.log"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
         "--dist", "loadgroup", "--rootdir", str(tmp_path), str(tmp_path)],
        cwd=tmp_path, env={**os.environ, "BUILT": str(built)},
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "16 passed" in done.stdout
    assert len(built.read_text().split()) == 1, built.read_text()
