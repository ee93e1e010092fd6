# The two commands of the README: `make serve` and `make test`. Everything they
# need is installed here, so both work on a fresh Debian machine with Python 3.11,
# Node.js and npm.

VENV    := .venv
PY      := $(VENV)/bin/python
PORT    ?= 8000
PREFIX  ?= /

.PHONY: serve test build bench lint chromium nginx engines screenshots

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

# Debian's nginx: a test serves dist/ with the README's server block (tests/site/test_nginx_browser.py).
nginx:
	@test -x /usr/sbin/nginx || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nginx; }

# Debian's Firefox ESR (driven by puppeteer-core from npm) and WebKitGTK: WebKitWebDriver
# with its MiniBrowser (in libwebkit2gtk-4.1-0) on an Xvfb display (tests/support/engines.py).
# Another apt run may hold the lock for a while: wait and try again.
ENGINE_FILES := /usr/bin/firefox-esr /usr/bin/WebKitWebDriver /usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser /usr/bin/Xvfb
engines:
	@for path in $(ENGINE_FILES); do test -x $$path || missing=1; done; test -z "$$missing" || { \
	for try in 1 2 3 4 5 6 7 8 9 10; do \
	  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y -o DPkg::Lock::Timeout=120 \
	    --no-install-recommends firefox-esr webkit2gtk-driver xvfb && exit 0; \
	  echo "apt-get failed (another install may hold its lock); trying again in 20 s"; sleep 20; \
	done; exit 1; }

lint: $(VENV)/.test-deps
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports

test: $(VENV)/.test-deps node_modules/.package-lock.json chromium nginx engines
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports
	$(PY) -m pytest

# Benchmarks print min / median / max; they are never part of `make test`.
$(VENV)/.bench-deps: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install --quiet -e '.[test,bench]'
	touch $@ $(VENV)/.test-deps $(VENV)/.site-deps

bench: $(VENV)/.bench-deps node_modules/.package-lock.json chromium nginx engines
	$(PY) bench/bench_build.py
	$(PY) bench/bench_compression.py
	$(PY) bench/bench_mkdocs.py
	$(PY) bench/bench_boot.py --runs 5
	$(PY) bench/bench_pyc.py --runs 5
	$(PY) bench/bench_pyc.py --runs 12 --server nginx
	$(PY) bench/bench_snapshot.py --runs 5
	$(PY) bench/bench_engines.py --runs 3
	$(PY) bench/bench_kdtree.py --queries 500
	$(PY) bench/bench_rebuild.py
	$(PY) bench/bench_repeats.py
	$(PY) bench/bench_stats.py
	$(PY) bench/bench_agreement.py
	$(PY) bench/bench_import.py --runs 5
	$(PY) bench/bench_cli_scale.py --repeats 3
	$(PY) bench/bench_lighthouse.py --runs 3
	$(PY) bench/bench_lighthouse.py --runs 3 --preset desktop
	$(PY) bench/bench_experiment.py

# PNGs of every page at 390 and 1280 px in screenshots/, for review (git-ignored).
screenshots: $(VENV)/.test-deps node_modules/.package-lock.json chromium
	$(PY) tools/screenshots.py
