"""The `bench` fixture: an empty data folder to write small fixture tables into."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from report_bench import Bench  # noqa: E402


@pytest.fixture
def bench(tmp_path) -> Bench:
    return Bench(tmp_path / "data")
