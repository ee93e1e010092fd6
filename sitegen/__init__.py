"""The site generator (DR-001): the code ``build.py`` runs to turn ``decisions/`` and ``site_src/`` into ``dist/``.

Two phases: ``load`` reads and validates every decision record and page and collects every problem
with its file and line; only a clean model is rendered by ``render`` and written by ``output``
(``builder`` runs the three). Output is deterministic: the same tree gives a byte-identical ``dist/``.

    documents, front_matter, supersedes      the records and pages, read and checked
    convert, record_links, allowlist, links  Markdown to HTML, what it may hold, where its links lead
    render, feed, pyapp_content              the pages, the Atom feed, what pyapp computes for them
    demo_log, demo_model, demo_script        the evaluation page's demo log, written by a scripted model
    static, wheel, stdlib_pyc                the files copied as they are: assets, Pyodide, the wheels
    service_worker, hosting, compression     sw.js, the host files and rules, the gzip copies
    caches, document_cache, digests          what a build keeps for the next one
    problems, serve                          a problem with its file and line; the development server

It may import ``pyapp``, whose results some pages show; ``pyapp`` never imports it, as the package
runs in the browser, where the generator is not.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the project folder: what is built unless another is named
