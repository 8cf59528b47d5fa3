# Two entry points that work on a fresh machine with only Python 3.11:
#   make run   - set up .venv and serve the web table (the address is printed)
#   make test  - set up .venv and run ruff, mypy --strict and the whole test suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-long test-deploy docs kernels bench-vs-c lint typecheck pytest postgres chromium pango nginx report bench bench-load wrk dieharder certify clean

# The storage tests also run on PostgreSQL: a throwaway server started from the installed
# server binaries, or the server CARDROOM_TEST_PG names (see docs/storage.md).
PG_INITDB ?= /usr/lib/postgresql/*/bin/initdb

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The web table on http://127.0.0.1:8000/ (HOST, PORT and DB=URL change it); the
# terminal table is `.venv/bin/cardroom play GAME`.
HOST ?= 127.0.0.1
PORT ?= 8000
DB ?=

run: $(STAMP)
	$(BIN)/cardroom serve --host $(HOST) --port $(PORT) $(if $(DB),--db $(DB))

# The simulation kernels built ahead of time (Numba's AOT compiler; a minute or two):
# cardroom simulate then starts without loading them into Numba (docs/simulation.md)
kernels: $(STAMP)
	$(BIN)/python -m cardroom.app.runner_ahead

# ruff first (seconds); then mypy beside the tests, which leave a core idle at times
test: lint
	@$(MAKE) --no-print-directory -j2 typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks scripts setup.py
	$(BIN)/ruff format --check src tests benchmarks scripts setup.py

typecheck: $(STAMP)
	$(BIN)/mypy --strict src scripts

pytest: $(STAMP) postgres chromium pango nginx
	$(BIN)/pytest -q

# The long runs make test leaves out (simulations held against the exact figures, a whole
# shoe drawn with replacement, the Ray backend): some minutes more
test-long: $(STAMP) postgres chromium pango nginx
	$(BIN)/pytest -q -m long

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

# The browser tests drive Debian's Chromium (Playwright never downloads a browser here):
# as root it is installed when missing; otherwise make stops and says how to install it.
CHROMIUM ?= /usr/bin/chromium

chromium:
	@if [ -x "$(CHROMIUM)" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "Installing Chromium for the browser tests (apt-get install chromium)"; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get install -y -qq chromium >/dev/null 2>&1 \
		|| { apt-get update -qq >/dev/null 2>&1 \
			&& apt-get install -y -qq chromium >/dev/null 2>&1; } \
		|| { echo "Could not install Chromium: run 'apt-get install chromium'"; exit 1; }; \
	else \
		echo "The browser tests need Debian's Chromium at $(CHROMIUM):" \
			"install it with 'sudo apt-get install chromium' and run make test again"; \
		exit 1; \
	fi

# Whole `cardroom simulate` commands against plain-C baselines of the same games
# (benchmarks/c/, docs/benchmarks.md "Against plain C"); needs gcc
bench-vs-c: $(STAMP)
	$(BIN)/python benchmarks/bench_vs_c.py

# The documentation site in site/ (docs/contributing.md, "The documentation site"); without
# -q, so that --strict fails on warnings; tests/test_docs_site.py builds it in make test
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# The deployment's test runs Debian's nginx from deploy/nginx/cardroom.conf (a throwaway
# instance of its own, on loopback): as root it is installed when missing (where systemd
# runs, Debian also starts its own nginx service, which the test does not use); otherwise
# make stops and says how to install it.
NGINX ?= /usr/sbin/nginx

nginx:
	@if [ -x "$(NGINX)" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "Installing nginx for the deployment's test (apt-get install nginx)"; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get install -y -qq nginx >/dev/null 2>&1 \
		|| { apt-get update -qq >/dev/null 2>&1 \
			&& apt-get install -y -qq nginx >/dev/null 2>&1; } \
		|| { echo "Could not install nginx: run 'apt-get install nginx'"; exit 1; }; \
	else \
		echo "The deployment's test needs Debian's nginx at $(NGINX):" \
			"install it with 'sudo apt-get install nginx' and run make test-deploy again"; \
		exit 1; \
	fi

# The files in deploy/ run for real (docs/web.md, "Deploying it"): nginx in front of two
# `cardroom serve` instances on a throwaway PostgreSQL, one of them killed in play; its
# long test with the quick checks of the unit and the site (about a minute)
test-deploy: $(STAMP) postgres nginx
	$(BIN)/pytest -q -n 0 -m "long or not long" tests/deploy

# `cardroom report` lays its PDF out with WeasyPrint, which loads Debian's Pango libraries:
# as root they are installed when missing; otherwise make says how (the PDF tests skip).
PANGO_LIBS := libpango-1.0.so.0 libpangoft2-1.0.so.0

pango:
	@missing=""; for lib in $(PANGO_LIBS); do \
		ldconfig -p 2>/dev/null | grep -q "$$lib" || missing="$$missing $$lib"; done; \
	if [ -z "$$missing" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "Installing Pango for the PAR sheets' PDF (apt-get install libpango-1.0-0 libpangoft2-1.0-0)"; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get install -y -qq libpango-1.0-0 libpangoft2-1.0-0 >/dev/null 2>&1 \
		|| { apt-get update -qq >/dev/null 2>&1 \
			&& apt-get install -y -qq libpango-1.0-0 libpangoft2-1.0-0 >/dev/null 2>&1; } \
		|| echo "Could not install Pango: the PAR sheet's PDF tests will be skipped"; \
	else \
		echo "Pango is not installed:$$missing missing; the PAR sheet's PDF tests will be" \
			"skipped (install it with 'sudo apt-get install libpango-1.0-0 libpangoft2-1.0-0')"; \
	fi

# Every game's PAR sheet (HTML and PDF) in par/ (OUT=DIR elsewhere); docs/par.md says what is in it.
OUT ?= par

report: $(STAMP) pango
	$(BIN)/cardroom report all --out $(OUT)

# `cardroom certify-rng` runs the shuffle's raw draws through Debian's dieharder and ent:
# as root they are installed when missing; otherwise make stops and says how.
dieharder:
	@if command -v dieharder >/dev/null 2>&1 && command -v ent >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "Installing dieharder and ent for cardroom certify-rng (apt-get install dieharder ent)"; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get install -y -qq dieharder ent >/dev/null 2>&1 \
		|| { apt-get update -qq >/dev/null 2>&1 \
			&& apt-get install -y -qq dieharder ent >/dev/null 2>&1; } \
		|| { echo "Could not install dieharder and ent: run 'apt-get install dieharder ent'"; exit 1; }; \
	else \
		echo "cardroom certify-rng needs dieharder and ent: install them with" \
			"'sudo apt-get install dieharder ent' and run make certify again"; \
		exit 1; \
	fi

# The shuffle's certificate (docs/certification.md) in certify/ (OUT=DIR elsewhere would
# clash with the PAR sheets' default: CERT_OUT=DIR); CERT_ARGS passes options.
CERT_OUT ?= certify
CERT_ARGS ?=

certify: $(STAMP) pango dieharder
	$(BIN)/cardroom certify-rng --out $(CERT_OUT) $(CERT_ARGS)

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_engine.py

# The web table under load (docs/benchmarks.md): a throwaway PostgreSQL, `cardroom serve`
# and wrk; LOAD_ARGS passes options, e.g. make bench-load LOAD_ARGS="--processes 1".
# As root wrk is installed when missing; otherwise make stops and says how to install it.
WRK ?= wrk
LOAD_ARGS ?=

wrk:
	@if command -v $(WRK) >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "Installing wrk for the load benchmark (apt-get install wrk)"; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get install -y -qq wrk >/dev/null 2>&1 \
		|| { apt-get update -qq >/dev/null 2>&1 \
			&& apt-get install -y -qq wrk >/dev/null 2>&1; } \
		|| { echo "Could not install wrk: run 'apt-get install wrk'"; exit 1; }; \
	else \
		echo "The load benchmark needs wrk: install it with 'sudo apt-get install wrk'" \
			"and run make bench-load again"; \
		exit 1; \
	fi

bench-load: $(STAMP) postgres wrk
	$(BIN)/python benchmarks/bench_load.py $(LOAD_ARGS)

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache tests/artifacts site build dist
	# Numba's on-disk kernel cache (it does not notice edits to inlined helpers)
	find src -name '*.nbi' -delete -o -name '*.nbc' -delete
