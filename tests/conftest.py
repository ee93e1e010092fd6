"""Shared fixtures: the built site, a local server for it, and Debian's Chromium."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from chromium import CHROMIUM, CHROMIUM_ARGS, PageWatch
from cli_run import FINGERPRINT_AFTER, KEY, run_cli, start_fake, stop_fake
from explorer_page import Explorer
from pyapp.browser import log_cache, opening_view
from served import Served, serve
from site_project import small_project
from sitegen import builder
from worker_stand_in import WorkerStandIn


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


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A small project for the site generator: two records, one page, the real templates, a stand-in Pyodide."""
    return small_project(tmp_path)


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
    monkeypatch.setattr(opening_view, "VIEW", opening_view.OpeningView())  # and no opening view looked up
    log_cache.grader.cache_clear()  # and nothing graded
    return stand_in


# Shared by the explorer's tests of the walkthrough and of the key (one explorer page per module).
@pytest.fixture(scope="module")
def ui(browser, site):
    explorer = Explorer(browser, site)
    yield explorer
    explorer.context.close()


@pytest.fixture(scope="module")
def ui_unrouted(browser, site):
    """A context without any route: once a context intercepts anything, Playwright answers every CORS
    preflight in it by itself, and a real server would never see one."""
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
