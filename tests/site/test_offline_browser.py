"""The service worker (DR-002): after one visit the whole site loads and Python boots with the
network cut, and a new build of the site replaces the kept copy."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import pytest

from chromium import wait_for_python
from served import serve
from sitegen import ROOT, builder

pytestmark = pytest.mark.browser

PAGES = {  # path -> text its main heading holds
    "": "K-d Tree Explorer",
    "explorer/": "How a k-d tree searches",
    "ai-eval/": "AI evaluation workbench",
    "decisions/": "Decision records",
    "decisions/DR-002/": "DR-002",
}
CACHE_STATE = """async () => {
  const registration = await navigator.serviceWorker.getRegistration();
  return {
    active: registration?.active?.state ?? null,
    waiting: registration?.waiting?.state ?? registration?.installing?.state ?? null,
    caches: await caches.keys(),
  };
}"""


def site_version(dist: Path) -> str:
    return re.search(r'const VERSION = "([0-9a-f]{12})"', (dist / "sw.js").read_text()).group(1)


def wait_until(page, predicate, what: str, timeout: float = 90) -> dict:
    """Poll the page's service worker state until ``predicate`` holds; return the state."""
    deadline = time.monotonic() + timeout
    while True:
        state = page.evaluate(CACHE_STATE)
        if predicate(state):
            return state
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: still {state} after {timeout} s")
        time.sleep(0.2)


def test_repeat_visit_with_the_network_cut_loads_every_page_and_boots_python(browser, site, dist):
    context = browser.new_context()
    try:
        first = context.new_page()
        first.goto(site.url + "explorer/")
        assert wait_for_python(first).startswith("Python ready")
        state = wait_until(first, lambda s: s["active"] == "activated", "the service worker did not activate")
        assert state["caches"] == [f"kd-tree-explorer {site.url} {site_version(dist)}"]
        first.close()

        context.set_offline(True)
        served_by_network = []
        context.on("response", lambda r: None if r.from_service_worker else served_by_network.append(r.url))
        failed = []
        context.on("requestfailed", lambda r: failed.append(r.url) if r.method == "GET" else None)
        for path, heading in PAGES.items():
            page = context.new_page()
            page.goto(site.url + path)
            assert heading in page.inner_text("h1"), path
            if path in ("explorer/", "ai-eval/"):
                status = wait_for_python(page)
                assert status.startswith("Python ready"), (path, status)
                assert page.is_hidden("#host-policy-warning"), "the kept worker script lost its policy header"
            page.close()
        # The one request that reaches the network is the browser's check for a new sw.js, which fails
        # offline. (Chromium reports the page's HEAD of the worker script as aborted, though the service
        # worker answers it: the page shows no policy warning.)
        assert served_by_network == []
        assert [url for url in failed if not url.endswith("/sw.js")] == []
        missing = context.new_page()
        missing.goto(site.url + "no-such-page")  # tried on the network first, then the kept 404.html
        assert "Page not found" in missing.inner_text("h1")
    finally:
        context.close()


def test_a_new_build_of_the_site_replaces_the_kept_copy(browser, dist, tmp_path):
    """Build the site again with a changed page: the next visits get it, the old cache is deleted."""
    project = tmp_path / "project"
    for name in ("decisions", "site_src", "pyapp", "vendor"):
        shutil.copytree(ROOT / name, project / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, project / name)
    (project / "node_modules").symlink_to(ROOT / "node_modules")
    index = project / "site_src" / "pages" / "index.md"
    index.write_text(index.read_text(encoding="utf-8") + "\nThis is the second version.\n", encoding="utf-8")
    second = tmp_path / "second"
    builder.build(project, second)

    served_folder = tmp_path / "served"
    shutil.copytree(dist, served_folder)
    served = serve(served_folder)
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(served.url)
        wait_until(page, lambda s: s["active"] == "activated", "the first version did not activate")
        page.close()

        shutil.rmtree(served_folder)
        shutil.copytree(second, served_folder)
        page = context.new_page()
        page.goto(served.url)  # still the first version; the browser finds the new sw.js and installs it
        assert "second version" not in page.inner_text("main")
        wait_until(page, lambda s: s["waiting"] == "installed", "the second version was not installed")
        page.close()

        page = context.new_page()  # no page of the first version is open: the second one is active
        page.goto(served.url)
        assert "This is the second version." in page.inner_text("main")
        state = wait_until(page, lambda s: len(s["caches"]) == 1, "the first version's cache was not deleted")
        assert state["caches"] == [f"kd-tree-explorer {served.url} {site_version(second)}"]
        page.close()

        context.set_offline(True)
        page = context.new_page()
        page.goto(served.url + "ai-eval/")
        assert wait_for_python(page).startswith("Python ready")
        page.goto(served.url)
        assert "This is the second version." in page.inner_text("main")
    finally:
        context.close()
        served.server.shutdown()
        served.server.server_close()


def pump_until(page, condition, timeout: float = 10) -> bool:
    """Let the page run until ``condition()`` holds (True) or ``timeout`` s have passed (False)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        page.wait_for_timeout(100)  # Playwright handles the page's events meanwhile
    return True


def test_first_script_starts_the_worker_and_the_wheels_download_while_pyodide_loads(browser, site):
    """python.mjs held back: the worker starts anyway. pyodide.asm.wasm held back: pyapp's wheel is asked for."""
    context = browser.new_context(service_workers="block")
    asked: set[str] = set()
    context.on("request", lambda r: asked.add("worker") if "/static/js/worker.mjs" in r.url else None)
    context.on("request", lambda r: asked.add("wheel") if "/app/" in r.url and ".whl" in r.url else None)
    held, released = [], False
    for pattern in ("**/static/js/python.mjs", "**/pyodide.asm.wasm"):
        context.route(pattern, lambda route: route.continue_() if released else held.append(route))
    try:
        page = context.new_page()
        page.goto(site.url + "explorer/", wait_until="commit")
        worker_in_time = pump_until(page, lambda: "worker" in asked)
        wheel_in_time = pump_until(page, lambda: "wheel" in asked)
        released = True
        for route in held:
            route.continue_()
        assert wait_for_python(page).startswith("Python ready")
        assert worker_in_time, "the worker waited for python.mjs"
        assert wheel_in_time, "pyapp's wheel waited for Pyodide"
    finally:
        context.close()


def test_worker_starts_and_asks_for_the_wheels_before_the_page_body_is_parsed(browser, site):
    """boot-watch.js, a classic script in the explorer's body, held back: the parser stops there, before the
    embedded map, and the worker runs and asks for pyapp's wheel meanwhile; released, the page boots."""
    context = browser.new_context(service_workers="block")
    asked: set[str] = set()
    context.on("request", lambda r: asked.add("worker") if "/static/js/worker.mjs" in r.url else None)
    context.on("request", lambda r: asked.add("wheel") if "/app/" in r.url and ".whl" in r.url else None)
    held, released = [], False
    context.route("**/static/js/boot-watch.js?v=*", lambda route: route.continue_() if released else held.append(route))
    try:
        page = context.new_page()
        page.goto(site.url + "explorer/", wait_until="commit")
        wheel_in_time = pump_until(page, lambda: "wheel" in asked and held)
        parsing = page.evaluate("[document.readyState, document.getElementById('map') === null]")
        released = True
        for route in held:
            route.continue_()
        assert wait_for_python(page).startswith("Python ready")
        assert "worker" in asked
        assert wheel_in_time, "the worker waited for the page's body"
        assert parsing == ["loading", True], "the body was parsed while boot-watch.js was held back"
    finally:
        context.close()
