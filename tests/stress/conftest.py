"""The stress tests' fixtures are in stresskit.py with their helpers (see tests/run/conftest.py
for why helpers do not live in a conftest)."""
