"""Shared pieces for the package tests: the fixture packages, one build cache, judged reports.

Every fixture package under tests/fixtures/packages is real: real sources compiled with gcc/g++,
Python run with this interpreter, testlib.h vendored in the Polygon package. Builds go to one
session cache (`build_dir` of tests/conftest.py, so each program compiles once);
`package_run(name)` judges a whole fixture once per session by a real `pipeline run` process,
and `report(name)` is what that run made of it, shared by the tests that read its results.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from packagekit import FIXTURES, RunJudged, judged_in, pipeline, snapshot
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


@dataclass(frozen=True)
class PackageRun:
    """A fixture package's copy (`package`) ingested into a data folder of its own (`data`)
    and judged whole by `pipeline --data-dir DATA run --problem NAME` (`done`, the process)."""

    package: Path
    data: Path
    done: subprocess.CompletedProcess


@pytest.fixture(scope="session")
@one_worker  # its tests on one xdist worker: each package judged once, not once per worker
def package_run(tmp_path_factory, build_dir):
    """package_run(name) -> the fixture package ingested and judged whole by real `pipeline`
    processes (`PackageRun`), made once per session, in a data folder of its own whose builds
    are the session's (`share_builds`). Its tests only read it."""
    made: dict[str, PackageRun] = {}
    folder = tmp_path_factory.mktemp("package-runs")

    def get(name: str) -> PackageRun:
        if name not in made:
            package = folder / name / name
            data = share_builds(folder / name / "data", build_dir)
            shutil.copytree(FIXTURES / name, package)
            ingested = pipeline(data, "ingest", str(package))
            assert ingested.returncode == 0, ingested.stdout + ingested.stderr
            made[name] = PackageRun(package, data, pipeline(data, "run", "--problem", name))
        return made[name]
    return get


@pytest.fixture(scope="session")
def report(package_run):
    """report(name) -> what the session's `pipeline run` of the fixture package (`package_run`)
    made of its submissions (`packagekit.RunJudged`, from the data folder it stored them in)."""
    made: dict[str, RunJudged] = {}

    def get(name: str) -> RunJudged:
        if name not in made:
            run = package_run(name)
            assert run.done.returncode == 0, run.done.stdout + run.done.stderr
            made[name] = judged_in(run.data, name)
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
