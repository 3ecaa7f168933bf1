# gamebench: the two commands a new machine needs are `make nightly` and `make test`.
# The interpreter `.venv` is made from (`make venv PYTHON=...` names another): the system's own
# Python (`SYSTEM_PYTHON`) when it is 3.11 or newer and can make a virtualenv (Debian's
# python3-venv), else `python3` on PATH. A distribution builds its Python with profile-guided
# and link-time optimisation (Debian's is linked statically too); pyenv and a plain source
# build do not by default, and on such a build a command's start takes a fifth to a third more
# CPU (docs/benchmarks.md#startup). An existing `.venv` keeps its interpreter:
# `rm -rf .venv && make venv` makes it again.
SYSTEM_PYTHON ?= /usr/bin/python3
PYTHON ?= $(shell $(SYSTEM_PYTHON) -c 'import sys, ensurepip; sys.exit(sys.version_info < (3, 11))' \
	>/dev/null 2>&1 && echo $(SYSTEM_PYTHON) || echo python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: venv native system lint test nightly bench bench-quick clean

venv: $(STAMP) native

# Re-install only when the project's dependencies change (idempotent otherwise).
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]' --config-settings editable_mode=compat
	touch $(STAMP)

# The native code (the problems' C kernels and quick parsers, the launcher of external
# programs; see pipeline/native/__init__.py), compiled with the system's cc/c++ into
# .venv/var/gamebench-native/ right after installing, so that no timed process compiles
# anything; and the package byte-compiled (what a first import would do). Runs every time (a
# no-op, ~0.5 s, when no source changed); without a compiler it says so, the NumPy/Python
# fallbacks run, and the stages with no fallback (movcoin2's fast and tester-17bit,
# cf103119g's fast) refuse their cases, saying why.
native: $(STAMP)
	$(BIN)/python -m pipeline.native
	$(BIN)/python -m compileall -q pipeline

# Debian packages that tests use for real components, installed only when missing (as root;
# otherwise make says what to install and the tests that need them are skipped with the reason):
#   chromium    opens the HTML report in a real headless browser (the report's layout test)
#   pypy3       runs a contest's Python submissions when its languages.yaml says PyPy, as bt
#               runs them (BAPCtools' default too); without it they run by CPython, and
#               the run says so
#   musl-tools  builds the launcher of every contained program against musl: its start, once
#               per run, then makes no `cpuid` (glibc's start does, and a virtual machine traps
#               it); without it the launcher is built against glibc
# `make test` runs it before `venv`, whose native step then builds the musl launcher.
DEBIAN_PACKAGES := chromium pypy3 musl-tools
system:
	@missing=""; for package in $(DEBIAN_PACKAGES); do \
	  dpkg -s $$package >/dev/null 2>&1 || missing="$$missing $$package"; done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	echo "make: installing Debian packages:$$missing (the report's test in a real headless" \
	     "browser; PyPy for contests whose languages.yaml says it; musl for a launcher that" \
	     "starts faster)"; \
	if [ "$$(id -u)" = 0 ]; then \
	  (apt-get update -qq && apt-get install -y -qq --no-install-recommends$$missing) \
	  || echo "make: apt-get failed; the tests that need$$missing will be skipped"; \
	else echo "make: not root: run 'sudo apt-get install$$missing' to enable those tests"; fi

# Lint and type check ([tool.ruff] and [tool.mypy] in pyproject.toml): any finding fails, before
# the suite runs. `ruff check --fix pipeline tests benchmarks` makes the safe fixes (import order,
# newer syntax).
lint: venv
	$(BIN)/ruff check pipeline tests benchmarks
	$(BIN)/mypy pipeline

# The suite on every core (pytest-xdist; tests of a module that share a costly fixture stay on
# one worker, see tests/conftest.py). How long it takes: docs/benchmarks.md; the last line says
# how long this run took (pytest's own summary line above it too).
# Tests that read fetched snapshots of public repositories (BAPCtools' test packages) find them
# in the folder GAMEBENCH_SNAPSHOTS names, by default the one this workplace's `fetch` fills;
# without them those tests skip, saying so.
export GAMEBENCH_SNAPSHOTS ?= /work/.mirror
# Test workers: half again as many as cores, so that a test waiting (on a program's time limit,
# a hanging submission, a cluster's start) leaves its core to another test.
TEST_WORKERS ?= $(shell echo $$(( ($$(nproc) * 3 + 1) / 2 )))

test: system venv lint
	@echo "make test: the suite on every core ($(TEST_WORKERS) pytest-xdist workers, --dist loadgroup; about 1,900 tests, about 13 minutes on 2 quiet cores)"
	@start=$$(date +%s); \
	echo "$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup --durations=30"; \
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup --durations=30; status=$$?; \
	echo "make test: the suite took $$(( $$(date +%s) - start )) s (exit status $$status)"; \
	exit $$status

# The main job: generate the default corpus when missing, ingest, run every problem with every
# stage and external solver, compare with the previous nightly, write the HTML report.
nightly: venv
	$(BIN)/pipeline nightly

# Benchmarks (~20 min on 2 cores, about an hour more for `peers` when BAPCtools' packages are
# here, and more for `contests` when the karwa contests are): prints the figures, writes
# data/bench/<timestamp>.parquet. `peers` pairs `bt run` with the same work, `pipeline run
# --fail-fast` (both stop a submission at its first failure); without the flag it is the
# every-case pipeline; `contests` judges whole contests with `pipeline run --contest
# --fail-fast` against their floor and `bt run` (docs/benchmarks.md).
bench: venv
	$(BIN)/python -m benchmarks --fail-fast

# The same sections in a tiny smoke version (~2 min).
bench-quick: venv
	$(BIN)/python -m benchmarks --quick

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
