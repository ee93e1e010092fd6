# The two commands of the README: `make serve` and `make test`. Everything they
# need is installed here, so both work on a fresh Debian machine with Python 3.11,
# Node.js and npm.

VENV    := .venv
PY      := $(VENV)/bin/python
PORT    ?= 8000
PREFIX  ?= /

.PHONY: serve test build bench lint chromium nginx

$(VENV)/bin/python:
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.site-deps: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install --quiet -e .
	touch $@

$(VENV)/.test-deps: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@ $(VENV)/.site-deps

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund

build: $(VENV)/.site-deps node_modules/.package-lock.json
	$(PY) build.py

serve: $(VENV)/.site-deps node_modules/.package-lock.json
	$(PY) build.py --serve --port $(PORT) --prefix $(PREFIX)

# Debian's Chromium; Playwright drives it by path and never downloads a browser.
chromium:
	@test -x /usr/bin/chromium || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; }

# Debian's nginx: a test serves dist/ with the README's server block (tests/test_nginx_browser.py).
nginx:
	@test -x /usr/sbin/nginx || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nginx; }

lint: $(VENV)/.test-deps
	$(VENV)/bin/ruff check .

test: $(VENV)/.test-deps node_modules/.package-lock.json chromium nginx
	$(VENV)/bin/ruff check .
	$(PY) -m pytest

# Benchmarks print min / median / max; they are never part of `make test`.
bench: $(VENV)/.test-deps node_modules/.package-lock.json chromium
	$(PY) bench/bench_build.py
	$(PY) bench/bench_boot.py --runs 5
	$(PY) bench/bench_kdtree.py --queries 500
	$(PY) bench/bench_rebuild.py
	$(PY) bench/bench_stats.py
