# Two entry points that work on a fresh machine with only Python 3.11:
#   make run   - set up .venv and play finnish27 in the terminal
#   make test  - set up .venv and run ruff, mypy --strict and the whole test suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck pytest bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/cardroom play finnish27

test: lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks scripts
	$(BIN)/ruff format --check src tests benchmarks scripts

typecheck: $(STAMP)
	$(BIN)/mypy --strict src scripts

pytest: $(STAMP)
	$(BIN)/pytest -q

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_engine.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
	# Numba's on-disk kernel cache (it does not notice edits to inlined helpers)
	find src -name '*.nbi' -delete -o -name '*.nbc' -delete
