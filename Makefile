# Two entry points that work on a fresh machine with only Python 3.11:
#   make run   - set up .venv and play finnish27 in the terminal
#   make test  - set up .venv and run ruff, mypy --strict and the whole test suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck pytest postgres bench clean

# The storage tests also run on PostgreSQL: a throwaway server started from the installed
# server binaries, or the server CARDROOM_TEST_PG names (see docs/storage.md).
PG_INITDB ?= /usr/lib/postgresql/*/bin/initdb

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

pytest: $(STAMP) postgres
	$(BIN)/pytest -q

# As root (CI, a fresh container) install PostgreSQL when it is missing; otherwise say how.
postgres:
	@if [ -n "$$CARDROOM_TEST_PG" ] || ls $(PG_INITDB) >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "Installing PostgreSQL for the storage tests (apt-get install postgresql)"; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get install -y -qq postgresql >/dev/null 2>&1 \
		|| { apt-get update -qq >/dev/null 2>&1 \
			&& apt-get install -y -qq postgresql >/dev/null 2>&1; } \
		|| echo "Could not install PostgreSQL: its storage tests will be skipped"; \
	else \
		echo "PostgreSQL is not installed: its storage tests will be skipped" \
			"(install it with 'sudo apt-get install postgresql', or set CARDROOM_TEST_PG;" \
			"see docs/storage.md)"; \
	fi

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_engine.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
	# Numba's on-disk kernel cache (it does not notice edits to inlined helpers)
	find src -name '*.nbi' -delete -o -name '*.nbc' -delete
