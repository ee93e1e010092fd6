"""Debian's nginx serves dist/ with the README's server block, at the root and under /kd/.

The server block is read from README.md, so the README cannot drift from what is tested.
"""

from __future__ import annotations

import gzip
import os
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from chromium import PageWatch, wait_for_python
from nginx_server import NGINX, Nginx, readme_server_block, replace_once_or_more
from pyapp import __version__
from sitegen import ROOT, hosting
from sitegen.render import BOOT_TIMEOUT_MS
from sitegen.static import pyodide_folder

pytestmark = pytest.mark.browser

PYODIDE = pyodide_folder(ROOT / "node_modules" / "pyodide")
MJS_TYPE = "text/javascript mjs;"


@pytest.fixture
def nginx(dist: Path, tmp_path: Path) -> Iterator[Callable[[str], Nginx]]:
    if not os.path.exists(NGINX):
        pytest.fail(f"{NGINX} is missing: run 'make test', which installs Debian's nginx")
    started: list[Nginx] = []

    def start(server_block: str) -> Nginx:
        prefix = tmp_path / f"nginx{len(started)}"
        prefix.mkdir()
        started.append(Nginx(server_block, dist, prefix))
        return started[-1]

    yield start
    for server in started:
        server.stop()


def head(url: str, **headers: str) -> urllib.request.addinfourl:
    with urllib.request.urlopen(urllib.request.Request(url, method="HEAD", headers=headers)) as response:
        return response


@pytest.mark.parametrize("prefix", ["/", "/kd/"], ids=["root", "sub-path"])
def test_readme_server_block_boots_python_with_the_worker_policy(nginx, browser, prefix):
    server = nginx(readme_server_block())
    context = browser.new_context()
    watch = PageWatch(context, server.origin)
    worker_responses = []
    context.on("response", lambda r: worker_responses.append(r) if "/static/js/worker.mjs" in r.url else None)
    try:
        watch.page.goto(server.origin + prefix + "explorer/")
        status = wait_for_python(watch.page)
        assert re.fullmatch(rf"Python ready: Python 3\.\d+\.\d+, pyapp {re.escape(__version__)}", status), status
        worker_gets = [r for r in worker_responses if r.request.method == "GET"]
        assert worker_gets, "the worker script's response was not seen"
        for response in worker_gets:
            assert response.url.startswith(server.origin + prefix)
            assert response.all_headers()["content-security-policy"] == hosting.CSP_HEADER
        assert watch.page.is_hidden("#host-policy-warning")
        assert watch.foreign_requests == []
        assert watch.csp_violations == []
        assert watch.errors == []
    finally:
        context.close()


def test_readme_server_block_sends_types_policy_caching_and_compression(nginx, dist):
    server = nginx(readme_server_block())
    expected = [
        (f"kd/{PYODIDE}/pyodide.asm.wasm", "application/wasm"),
        ("kd/static/js/worker.mjs", "text/javascript"),
        ("kd/static/js/boot-watch.js", "application/javascript; charset=utf-8"),
        ("kd/explorer/", "text/html; charset=utf-8"),
        ("kd/decisions/src/DR-002-python-in-the-browser.md", "text/plain; charset=utf-8"),
        ("kd/ai-eval/demo-log.jsonl", "application/x-ndjson"),
        ("missing.html", "text/html; charset=utf-8"),
    ]
    for path, content_type in expected:
        try:
            response = head(f"{server.origin}/{path}")
        except urllib.error.HTTPError as error:  # the 404 still carries the policy ("always")
            assert path == "missing.html" and error.code == 404
            response = error
        assert response.headers["Content-Type"] == content_type, path
        assert response.headers["Content-Security-Policy"] == hosting.CSP_HEADER, path
        assert response.headers["X-Content-Type-Options"] == "nosniff", path
    for path in (f"{PYODIDE}/pyodide.asm.wasm", f"{PYODIDE}/pyodide.asm.mjs", f"{PYODIDE}/pyodide-lock.json",
                 "static/js/worker.mjs", "answer-schema.json", "ai-eval/demo-log.jsonl"):
        request = urllib.request.Request(f"{server.origin}/kd/{path}", headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(request) as response:
            assert response.headers["Content-Encoding"] == "gzip", path
            body = response.read()
        assert len(body) < len(gzip.decompress(body)) * 0.6, path
        assert body == (dist / f"{path}.gz").read_bytes(), path  # the build's copy, not compressed on the way


def test_readme_server_block_keeps_versioned_files_for_a_year_and_revalidates_the_rest(nginx, dist):
    """Pyodide's version folder and every ?v=<content hash> URL the pages write are immutable; pages,
    modules imported by name and the service worker are revalidated, so a new build is never stale."""
    server = nginx(readme_server_block())
    explorer = (dist / "explorer" / "index.html").read_text(encoding="utf-8")
    hashed = re.findall(r'(?:href|src|data-worker|data-pyapp)="\.\./([^"]+\?v=[0-9a-f]{12})"', explorer)
    assert {"static/js/worker.mjs", "static/js/start.js", "static/css/site.css"} <= {h.split("?")[0] for h in hashed}
    worker = (dist / "static" / "js" / "worker.mjs").read_text(encoding="utf-8")
    stdlib = re.search(r'"\.\./\.\./(pyodide/[^"]+\?v=[0-9a-f]{12})"', worker).group(1)
    immutable = [*hashed, stdlib, f"{PYODIDE}/pyodide.asm.wasm", f"{PYODIDE}/pyodide.mjs"]
    revalidated = ["", "explorer/", "static/js/python.mjs", "static/js/audit-store.mjs", "sw.js", "decisions/feed.xml"]
    for prefix in ("/", "/kd/"):
        for path in immutable:
            headers = head(server.origin + prefix + path).headers
            assert headers["Cache-Control"] == hosting.IMMUTABLE, path
            assert headers["Content-Security-Policy"] == hosting.CSP_HEADER, path  # add_header at one level
        for path in revalidated:
            assert head(server.origin + prefix + path).headers["Cache-Control"] == "no-cache", path
    assert hosting.cache_control("/static/js/python.mjs") == "no-cache"  # the dev server agrees
    assert all(hosting.cache_control("/" + path) == hosting.IMMUTABLE for path in immutable)


def test_debian_mime_types_without_mjs_says_python_could_not_start(nginx, browser):
    """Debian's mime.types lacks .mjs: Chromium refuses every module script, and the page says so."""
    server = nginx(replace_once_or_more(readme_server_block(), MJS_TYPE, ""))
    assert head(f"{server.origin}/static/js/explorer.mjs").headers["Content-Type"] == "application/octet-stream"
    context = browser.new_context()
    try:
        page = context.new_page()
        started = time.monotonic()
        page.goto(server.origin + "/kd/explorer/")
        status = wait_for_python(page, timeout=BOOT_TIMEOUT_MS + 10_000)
        print(f"'Python could not start' after {time.monotonic() - started:.2f} s")
        assert page.get_attribute("#python-status", "data-state") == "error"
        assert status.startswith("Python could not start: the page's scripts did not load."), status
        assert ".mjs files as text/javascript" in status
    finally:
        context.close()


@pytest.mark.parametrize("prefix", ["/", "/kd/"], ids=["root", "sub-path"])
def test_readme_server_block_serves_the_sites_404_page(nginx, prefix):
    server = nginx(readme_server_block())
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(f"{server.origin}{prefix}no-such-page")
    assert missing.value.code == 404
    body = missing.value.read().decode()
    assert "<h1 id=\"page-not-found\">Page not found</h1>" in body
    assert 'href="./static/css/site.css?v=' in body
