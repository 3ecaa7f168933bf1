# gamebench: the two commands a new machine needs are `make nightly` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: venv test nightly bench clean

venv: $(STAMP)

# Re-install only when the project's dependencies change (idempotent otherwise).
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

test: venv
	$(BIN)/python -m pytest

nightly: venv
	@echo "make nightly: not yet (the nightly job lands with the report issue)"

bench: venv
	@echo "make bench: not yet (benchmarks land with the ingest, run and fast-stage issues)"

clean:
	rm -rf $(VENV) .pytest_cache
