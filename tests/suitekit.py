"""How a conftest's fixture says it is costly to build (`one_worker`): tests/conftest.py keeps
the tests that use such a fixture on one xdist worker, so it is built once, not once per
worker, as it does for a test module's own fixtures of module or session scope. And how a test's
data folder shares the session's package builds (`share_builds`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

F = TypeVar("F", bound=Callable)


def one_worker(fixture_function: F) -> F:
    """Mark a fixture function (put it under its `@pytest.fixture`) as costly to build."""
    fixture_function.one_worker = True  # type: ignore[attr-defined]
    return fixture_function


def is_one_worker(fixture_function: object) -> bool:
    return bool(getattr(fixture_function, "one_worker", False))


def share_builds(data: Path, build_dir: Path) -> Path:
    """`data`'s package builds (`DATA/build/packages/builds`) made a link to `build_dir`'s,
    before the data folder is first used (the `shared_builds` fixture of tests/conftest.py)."""
    folder = data / "build" / "packages"
    folder.mkdir(parents=True, exist_ok=True)
    (build_dir / "builds").mkdir(exist_ok=True)
    (folder / "builds").symlink_to(build_dir / "builds", target_is_directory=True)
    return data
