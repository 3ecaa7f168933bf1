"""Shared test set-up: the fixture problems under `tests/fixtures/problems/`.

The `toy` fixture registers the toy problem by putting its folder on `PIPELINE_PROBLEMS_DIR`
only for the tests that ask for it (the other suites see the built-in problems only); worker
processes and `python -m pipeline` subprocesses inherit it with the environment.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

TESTS_DIR = Path(__file__).resolve().parent
FIXTURE_PROBLEMS = TESTS_DIR / "fixtures" / "problems"
if str(TESTS_DIR) not in sys.path:
    sys.path.insert(0, str(TESTS_DIR))


@pytest.fixture
def toy(monkeypatch):
    """The toy problem (`tests/fixtures/problems/toy/`), registered for this test and its
    children."""
    monkeypatch.setenv("PIPELINE_PROBLEMS_DIR", str(FIXTURE_PROBLEMS))
    from pipeline.problems import get_problem

    return get_problem("toy")
