"""Shared fixtures: the built site, a local server for it, and Debian's Chromium."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli_run import FINGERPRINT_AFTER, KEY, run_cli, start_fake, stop_fake
from pyapp.browser import log_cache
from sitegen import builder
from sitegen.serve import SiteHandler, make_server

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets its own empty home and working folder; nothing reads the developer's."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))


@pytest.fixture(scope="session")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real site, built once per test session into a temporary folder."""
    out = tmp_path_factory.mktemp("dist")
    builder.build(dist=out)
    return out


class Served:
    def __init__(self, server, thread):
        self.server, self.thread = server, thread
        host, port = server.server_address[:2]
        self.origin = f"http://{host}:{port}"
        self.url = self.origin + server.prefix


def serve(directory: Path, prefix: str = "/", handler=SiteHandler) -> Served:
    server = make_server(directory, 0, prefix, handler=handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return Served(server, thread)


@pytest.fixture(scope="session")
def site(dist: Path) -> Iterator[Served]:
    """The built site served under the sub-path /kd/, as a host might."""
    served = serve(dist, "/kd/")
    yield served
    served.server.shutdown()
    served.server.server_close()


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: run 'make test', which installs Debian's chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class PageWatch:
    """A page with every console message, CSP violation and off-site request recorded."""

    def __init__(self, context, origin: str):
        self.context = context
        self.page = context.new_page()
        self.console: list[str] = []
        self.errors: list[str] = []
        self.foreign_requests: list[str] = []
        self.page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("worker", lambda w: w.on("console", lambda m: self.console.append(f"worker {m.type}: {m.text}")))

        def on_request(request) -> None:
            if not request.url.startswith((origin, "data:", "blob:")):
                self.foreign_requests.append(request.url)

        context.on("request", on_request)
        context.add_init_script(
            "document.addEventListener('securitypolicyviolation', e => "
            "console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI));"
        )

    @property
    def csp_violations(self) -> list[str]:
        return [line for line in self.console if "Content Security Policy" in line or "CSP violation" in line]


@contextlib.contextmanager
def page_at(browser, width: int, height: int) -> Iterator[object]:
    """A page of its own context with a ``width`` × ``height`` viewport, closed on leaving."""
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture
def context(browser) -> Iterator[object]:
    """A fresh browser context (its own storage) that accepts downloads, for tests that open several pages."""
    context = browser.new_context(accept_downloads=True)
    yield context
    context.close()


@pytest.fixture
def watched(browser, site) -> Iterator[PageWatch]:
    context = browser.new_context()
    watch = PageWatch(context, site.origin)
    yield watch
    context.close()


def python_worker(page):
    """The page's Python worker, not the one that makes the start-up snapshot beside it (DR-002)."""
    from playwright.sync_api import Error

    found = []
    for worker in page.workers:
        try:
            if "task" not in json.loads(worker.evaluate("self.name")):
                found.append(worker)
        except Error:
            pass  # the snapshot's worker, which ended meanwhile
    (worker,) = found
    return worker


def wait_for_python(page, timeout: float = 90_000) -> str:
    """Wait until the page says Python is ready (or failed) and return the status text."""
    page.wait_for_selector("#python-status:not([data-state='loading'])", timeout=timeout)
    return page.inner_text("#python-status")


class WorkerStandIn:
    """The worker's JavaScript modules as ``pyapp.browser`` imports them, in memory (DR-002).

    ``kdt_worker`` (cancel flag, abort signals, events, Web Locks), ``kdt_audit_store``
    (the IndexedDB log: a list of JSON texts) and ``pyodide.http.pyfetch``, which answers
    with ``respond(url, body)`` or raises ``fail``.
    """

    def __init__(self) -> None:
        self.cancel = False
        self.signals: list[float] = []
        self.events: list[dict] = []
        self.locks: set[str] = set()
        self.stored: list[str] = []
        self.store_error: Exception | None = None
        self.fail: Exception | None = None
        self.respond = None
        self.kept: bytes | None = None  # the kept read of the audit log (snapshot-store.mjs)
        self.marks: list[tuple[str, object]] = []
        self.worker = types.SimpleNamespace(
            cancel_requested=lambda: self.cancel, new_signal=lambda ms: self.signals.append(ms) or "signal",
            emit=lambda text: self.events.append(json.loads(text)), acquire_lock=self.acquire_lock,
            kept_log=self.kept_log, keep_log=self.keep_log, mark=lambda name, detail: self.marks.append((name, detail)))
        self.store = types.SimpleNamespace(append=self.append, readFrom=self.read_from)
        self.pyodide = types.ModuleType("pyodide")
        self.http = types.ModuleType("pyodide.http")
        self.http.pyfetch = self.pyfetch
        self.pyodide.http = self.http
        self.ffi = types.ModuleType("pyodide.ffi")
        self.ffi.to_js = bytes  # Python's bytes become a Uint8Array, here a copy
        self.pyodide.ffi = self.ffi

    async def acquire_lock(self, name: str):
        if name in self.locks:
            return None
        self.locks.add(name)
        return lambda: self.locks.discard(name)

    async def append(self, entries_json: str) -> None:
        if self.store_error is not None:
            raise self.store_error
        self.stored.extend(json.dumps(entry) for entry in json.loads(entries_json))

    async def read_from(self, seq: int) -> str:
        """As ``readFrom`` in audit-store.mjs; record ``n`` (from 1) is ``stored[n - 1]``."""
        rows = [[n, text] for n, text in enumerate(self.stored, 1) if n >= seq]
        return json.dumps({"rows": rows, "count": len(self.stored)})

    async def kept_log(self):
        return None if self.kept is None else types.SimpleNamespace(to_bytes=lambda: self.kept)

    def keep_log(self, data: bytes) -> None:
        self.kept = data

    async def pyfetch(self, url: str, **kwargs):
        if self.fail is not None:
            raise self.fail
        status, headers, body = self.respond(url, kwargs.get("body"))

        async def string() -> str:
            return body

        return types.SimpleNamespace(status=status, headers=headers, string=string)


@pytest.fixture
def worker(monkeypatch: pytest.MonkeyPatch) -> WorkerStandIn:
    """A stand-in for the worker's JavaScript modules, so ``pyapp.browser`` runs on CPython."""
    stand_in = WorkerStandIn()
    monkeypatch.setitem(sys.modules, "kdt_worker", stand_in.worker)
    monkeypatch.setitem(sys.modules, "kdt_audit_store", stand_in.store)
    monkeypatch.setitem(sys.modules, "pyodide", stand_in.pyodide)
    monkeypatch.setitem(sys.modules, "pyodide.http", stand_in.http)
    monkeypatch.setitem(sys.modules, "pyodide.ffi", stand_in.ffi)
    monkeypatch.setattr(log_cache, "LOG", log_cache.LogCache())  # each test's worker starts with nothing read
    log_cache.grader.cache_clear()  # and nothing graded
    return stand_in


# Shared by the explorer's tests of the walkthrough and of the key (one explorer page per module).
@pytest.fixture(scope="module")
def ui(browser, site):
    from explorer_page import Explorer  # explorer_page imports this module

    explorer = Explorer(browser, site)
    yield explorer
    explorer.context.close()


@pytest.fixture(scope="module")
def ui_unrouted(browser, site):
    """A context without any route: once a context intercepts anything, Playwright answers every CORS
    preflight in it by itself, and a real server would never see one."""
    from explorer_page import Explorer

    explorer = Explorer(browser, site, routed=False)
    yield explorer
    explorer.context.close()


# Shared by the tests of python -m pyapp run and of its log in the page.
@pytest.fixture(scope="module")
def fake_server() -> Iterator[str]:
    process, base_url = start_fake("--wrong-every", "3", "--fingerprint-after", str(FINGERPRINT_AFTER))
    try:
        assert base_url.startswith("http://127.0.0.1:"), base_url
        yield base_url
    finally:
        stop_fake(process)


@pytest.fixture(scope="module")
def terminal_log(fake_server, tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    log = tmp_path_factory.mktemp("run") / "runs.jsonl"
    done = run_cli("run", "--provider", "openai-compatible", "--model", "fake-model", "--base-url", fake_server,
                   "--runs", "2", "--log", str(log), "--key-env", "LOCAL_KEY", "--price-in", "1", "--price-out", "2",
                   env={"LOCAL_KEY": KEY})
    assert done.returncode == 0, done.stderr
    return log, done
