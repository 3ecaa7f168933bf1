"""Shared test set-up: the fixture problems under `tests/fixtures/problems/`.

The `toy` fixture registers the toy problem by putting its folder on `PIPELINE_PROBLEMS_DIR`
only for the tests that ask for it (the other suites see the built-in problems only); worker
processes and `python -m pipeline` subprocesses inherit it with the environment.

`make test` runs the suite on every core (pytest-xdist, `-n N --dist loadgroup`, N half again the
cores). Every test keeps its state in its own `tmp_path` (each xdist worker has its own base
folder), programs' scratch folders are named by their worker's pid, builds take a lock, and
clusters listen on ports the system picks, so tests may run side by side. Package builds are keyed
by their sources' hash: the session's `build_dir` is one cache for every worker, and a data folder
made with `shared_builds` uses it too. What is shared is only what a module's own fixtures of
module or session scope build (a Dask cluster, the README's workspace, a corpus): the tests of such
a module are kept on one xdist worker (`xdist_group` by module), so it is built once, not once per
worker. A conftest's fixture that is as costly (the package tests' `package_run`, which judges
whole packages) says so with `suitekit.one_worker`, and the tests that use it are kept on one
worker likewise.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

TESTS_DIR = Path(__file__).resolve().parent
FIXTURE_PROBLEMS = TESTS_DIR / "fixtures" / "problems"
if str(TESTS_DIR) not in sys.path:
    sys.path.insert(0, str(TESTS_DIR))

from suitekit import is_one_worker, share_builds  # noqa: E402  (found through the path set just above)


def pytest_configure(config) -> None:
    """Ctrl-C as a terminal gives it, however the suite was started: a shell without job
    control starts a command run in the background (`make test &`) with SIGINT ignored, which
    every process inherits, and the tests of Ctrl-C (a real SIGINT, to this process or to a
    command it starts) would then test nothing of it."""
    import signal

    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture
def toy(monkeypatch):
    """The toy problem (`tests/fixtures/problems/toy/`), registered for this test and its
    children."""
    monkeypatch.setenv("PIPELINE_PROBLEMS_DIR", str(FIXTURE_PROBLEMS))
    from pipeline.problems import get_problem

    return get_problem("toy")


@pytest.fixture(scope="session")
def build_dir(tmp_path_factory) -> Path:
    """The session's build cache. Under xdist it is one folder for all the workers (in the
    run's base folder, above each worker's own): builds are keyed by their sources' hash and
    made under a lock, so a program two workers need is compiled once, not once each."""
    import os

    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    folder = base / "package-builds"
    folder.mkdir(exist_ok=True)
    return folder


@pytest.fixture
def shared_builds(build_dir):
    """shared_builds(data) -> `data`, a data folder whose package builds
    (`DATA/build/packages/builds`) are the session's `build_dir` ones: the pipeline keys a
    build by its sources' hash and makes it under a lock, so a package's programs (polysum's
    testlib ones take seconds of CPU each) compile once per session, not once per data
    folder. Not for a test of what a data folder's build cache holds."""
    def share(data: Path) -> Path:
        return share_builds(data, build_dir)
    return share


@pytest.fixture
def outside_tmp():
    """A fresh folder outside /tmp (under /var/tmp), removed after the test: a data folder a
    contained program must not see, which its private /tmp would hide anyway were it in /tmp.
    Skips where /var/tmp cannot be written."""
    import os
    import shutil
    import tempfile

    if not os.access("/var/tmp", os.W_OK):
        pytest.skip("no writable /var/tmp")
    folder = Path(tempfile.mkdtemp(prefix="gamebench-test-", dir="/var/tmp"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def in_memory(tmp_path):
    """A fresh folder in /dev/shm (memory), removed after the test, for a test that writes
    thousands of files it does not test the disk with (each atomic write is synced to disk,
    milliseconds each there); `tmp_path` where /dev/shm cannot be written."""
    import os
    import shutil
    import tempfile

    if not os.access("/dev/shm", os.W_OK):
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="gamebench-test-", dir="/dev/shm"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups (--dist loadgroup)
def pytest_collection_modifyitems(config, items) -> None:
    """Keep the tests that use a fixture of module or session scope defined in a test module
    (not a conftest's or a kit's, which are cheap, unless marked `one_worker`) on one xdist
    worker, grouped by the module that defines it, so that fixture is built once."""
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if info is None or item.get_closest_marker("xdist_group") is not None:
            continue
        shared = [definition for definitions in info.name2fixturedefs.values()
                  for definition in definitions if definition.scope in ("module", "session")]
        owners = {getattr(definition.func, "__module__", "") or "" for definition in shared}
        owners = {owner for owner in owners if owner.rsplit(".", 1)[-1].startswith("test_")}
        owners |= {f"{definition.baseid or '.'}:{definition.argname}" for definition in shared
                   if is_one_worker(definition.func)}
        owners = sorted(owners)
        if owners:
            item.add_marker(pytest.mark.xdist_group("+".join(owners)))
