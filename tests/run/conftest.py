"""The run tests' fixtures, defined in runkit.py with the helpers the test files import by name
(a conftest module cannot be imported by name: other test folders have one too)."""

from runkit import _toy_registered, cpp, pool  # noqa: F401  (pytest finds fixtures here)
