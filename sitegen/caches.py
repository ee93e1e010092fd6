"""Every cache the build keeps between runs, declared once (DR-001).

Each entry is keyed by the inputs it was computed from, so deleting any of them (``rm -rf .cache``)
makes the next build slower, never different. All but one sit in ``.cache/`` under the project
folder, which git ignores; the precompiled Python sits beside the Pyodide runtime it was made for.
"""

from __future__ import annotations

from pathlib import Path

CACHE = Path(".cache")  # under the project folder

DOCUMENT_CACHE = CACHE / "documents.json"  # each document's HTML and front matter, each page's links and ids
FILE_DIGESTS = CACHE / "digests.json"  # the SHA-256 of each file read or written, by its status
TEMPLATE_CACHE = CACHE / "jinja"  # the compiled templates
WHEEL_CACHE = CACHE / "wheel"  # pyapp's wheel, zipped
PAGE_CONTENT_CACHE = CACHE / "page-content"  # what pyapp computes for the pages before Python starts
EXPERIMENT_CACHE = CACHE / "experiment"  # the experiments page's figures
EXPERIMENT_PAGE_CACHE = CACHE / "experiment-page"  # their markup
SERVICE_WORKER_CACHE = CACHE / "service-worker"  # sw.js
DEMO_LOG_CACHE = CACHE / "demo-log"  # the evaluation page's demo log, written by a scripted model
GZIP_CACHE = CACHE / "gzip"  # the gzip copies hosts may send

# Under node_modules/, beside the runtime: a new Pyodide (npm ci) clears it with the old one.
STDLIB_PYC_CACHE = Path(".cache") / "stdlib-pyc"  # the standard library and the wheels, precompiled
