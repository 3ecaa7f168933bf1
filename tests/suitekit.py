"""How a conftest's fixture says it is costly to build (`one_worker`): tests/conftest.py keeps
the tests that use such a fixture on one xdist worker, so it is built once, not once per
worker, as it does for a test module's own fixtures of module or session scope."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

F = TypeVar("F", bound=Callable)


def one_worker(fixture_function: F) -> F:
    """Mark a fixture function (put it under its `@pytest.fixture`) as costly to build."""
    fixture_function.one_worker = True  # type: ignore[attr-defined]
    return fixture_function


def is_one_worker(fixture_function: object) -> bool:
    return bool(getattr(fixture_function, "one_worker", False))
