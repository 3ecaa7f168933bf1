"""Shared pieces for the package tests: the fixture packages, one build cache, judged reports.

Every fixture package under tests/fixtures/packages is real: real sources compiled with gcc/g++,
Python run with this interpreter, testlib.h vendored in the Polygon package. Builds go to one
session cache (so each program compiles once); `report(name)` judges a whole fixture once per
session and is shared by the tests that read its results.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from packagekit import FIXTURES

from pipeline.packages import judge_package, load_package


@pytest.fixture(scope="session")
def build_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("package-builds")


@pytest.fixture
def copy_fixture(tmp_path):
    """copy_fixture(name) -> a private copy of the fixture package, free to break."""
    def copy(name: str) -> Path:
        target = tmp_path / name
        shutil.copytree(FIXTURES / name, target)
        return target
    return copy


@pytest.fixture(scope="session")
def report(build_dir, tmp_path_factory):
    """report(name) -> the PackageReport of judging the fixture package, made once."""
    made = {}

    def get(name: str):
        if name not in made:
            package = load_package(FIXTURES / name, build_dir)
            made[name] = judge_package(package, build_dir, tmp_path_factory.mktemp(f"judge-{name}"))
        return made[name]
    return get
