# gamebench: the two commands a new machine needs are `make nightly` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: venv native browser test nightly bench clean

venv: $(STAMP) native

# Re-install only when the project's dependencies change (idempotent otherwise).
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]' --config-settings editable_mode=compat
	touch $(STAMP)

# The problems' native code (C kernels and quick parsers, see pipeline/native/__init__.py),
# compiled with the system's cc/c++ into .venv/var/gamebench-native/ right after installing, so
# that no timed process compiles anything or imports numba; and the package byte-compiled (what
# a first import would do). Runs every time (a no-op, ~0.5 s, when no source changed); without
# a compiler it says so and the numba/NumPy fallbacks run.
native: $(STAMP)
	$(BIN)/python -m pipeline.native
	$(BIN)/python -m compileall -q pipeline

# Debian's chromium, for the test that opens the HTML report in a real headless browser.
browser:
	command -v chromium || (apt-get update && apt-get install -y --no-install-recommends chromium)

test: venv browser
	$(BIN)/python -m pytest

# The main job: generate the default corpus when missing, ingest, run every problem with every
# stage and external solver, compare with the previous nightly, write the HTML report.
nightly: venv
	$(BIN)/pipeline nightly

# Benchmarks (~15 min on 2 cores): prints the figures, writes data/bench/<timestamp>.parquet.
bench: venv
	$(BIN)/python -m benchmarks

# The same sections in a tiny smoke version (< 1 min).
.PHONY: bench-quick
bench-quick: venv
	$(BIN)/python -m benchmarks --quick

clean:
	rm -rf $(VENV) .pytest_cache
