"""Shared test set-up: the fixture problems under `tests/fixtures/` and how to register them.

`tests/` is put on `sys.path` so that `fixtures.toy` imports here and in spawned worker
processes (they inherit the parent's path). The `toy` fixture registers the toy problem through
`PIPELINE_EXTRA_PROBLEMS` only for the tests that ask for it (the other suites see the five real
problems), and puts `tests/` on `PYTHONPATH` for the `python -m pipeline` subprocesses.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

TESTS_DIR = Path(__file__).resolve().parent
if str(TESTS_DIR) not in sys.path:
    sys.path.insert(0, str(TESTS_DIR))


@pytest.fixture
def toy(monkeypatch):
    """The toy problem (`tests/fixtures/toy.py`), registered for this test and its children."""
    monkeypatch.setenv("PIPELINE_EXTRA_PROBLEMS", "toy=fixtures.toy")
    path = os.environ.get("PYTHONPATH")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(TESTS_DIR), path])))
    from pipeline.problems import get_problem

    return get_problem("toy")
