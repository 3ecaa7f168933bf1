"""Shared pieces for the package tests: the fixture packages, one build cache, judged reports.

Every fixture package under tests/fixtures/packages is real: real sources compiled with gcc/g++,
Python run with this interpreter, testlib.h vendored in the Polygon package. Builds go to one
session cache (`build_dir` of tests/conftest.py, so each program compiles once); `report(name)`
judges a whole fixture once per session, as `pipeline run` judges it, and is shared by the tests
that read its results.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from packagekit import FIXTURES, judged_by_run, snapshot
from suitekit import one_worker, share_builds

from pipeline.programs import contained


@pytest.fixture
def sandbox_on():
    """This process's programs sandboxed for the test, as `--sandbox on` sets it."""
    with contained.settings_kept():
        contained.use_sandbox(True)
        yield


@pytest.fixture
def sandbox_off():
    """This process's programs unsandboxed for the test, as `--sandbox off` sets it."""
    with contained.settings_kept():
        contained.use_sandbox(False)
        yield


@pytest.fixture
def copy_fixture(tmp_path):
    """copy_fixture(name) -> a private copy of the fixture package, free to break."""
    def copy(name: str) -> Path:
        target = tmp_path / name
        shutil.copytree(FIXTURES / name, target)
        return target
    return copy


@pytest.fixture(scope="session")
@one_worker  # its tests on one xdist worker: each package judged once, not once per worker
def report(tmp_path_factory, build_dir):
    """report(name) -> the fixture package ingested and judged by `pipeline run`
    (`packagekit.RunJudged`), made once; every fixture in one data folder, whose builds are the
    session's (`share_builds`)."""
    made = {}
    folder = tmp_path_factory.mktemp("judged")
    share_builds(folder / "data", build_dir)

    def get(name: str):
        if name not in made:
            shutil.copytree(FIXTURES / name, folder / name)
            made[name] = judged_by_run(folder / name, folder / "data")
        return made[name]
    return get


# BAPCtools' own test packages (tests/packages/test_bapctools_conformance.py), read from the
# snapshot the search tool's fetch brings (`packagekit.snapshot`). Session fixtures here, not in the
# test module: a copy costs a second, so each xdist worker makes its own and the module's
# per-package tests (minutes in all) spread over the workers instead of queueing on one.
BAPCTOOLS_SNAPSHOT = snapshot("RagnarGrootKoerkamp/BAPCtools")


def _bapctools_archive(target: Path, *paths: str) -> None:
    archive = subprocess.run(["git", "--git-dir", str(BAPCTOOLS_SNAPSHOT), "archive", "HEAD",
                              *paths], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)


@pytest.fixture(scope="session")
def bapctools_problems(tmp_path_factory) -> Path:
    """BAPCtools' test/problems exactly as committed (links out of a package dangle)."""
    target = tmp_path_factory.mktemp("bapctools")
    _bapctools_archive(target, "test/problems")
    return target / "test" / "problems"


@pytest.fixture(scope="session")
def bapctools_checkout(tmp_path_factory) -> Path:
    """test/problems as a BAPCtools checkout holds it, with what its packages link to outside
    themselves (validation.h, a link to bapctools/resources/headers/) copied in, as a package
    exported by `bt zip` carries it: ingest never follows a link out of a package."""
    target = tmp_path_factory.mktemp("bapctools-checkout")
    _bapctools_archive(target, "test/problems", "bapctools/resources/headers")
    problems = target / "test" / "problems"
    for package in (p for p in problems.iterdir() if p.is_dir()):
        for link in [p for p in package.rglob("*") if p.is_symlink()]:
            named = link.resolve()
            if named.is_file() and package.resolve() not in named.parents:
                link.unlink()
                shutil.copyfile(named, link)
    return problems
