"""Browser tests: the built site, served under a sub-path, boots Pyodide under its CSP."""

from __future__ import annotations

import re

import pytest

from chromium import wait_for_python
from pyapp import __version__
from served import serve
from sitegen import ROOT
from sitegen.render import BOOT_TIMEOUT_MS
from sitegen.serve import SiteHandler
from sitegen.static import pyodide_folder

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("path", ["explorer/", "experiments/", "ai-eval/"], ids=["explorer", "experiments", "ai-eval"])
def test_page_boots_python_under_csp_without_leaving_the_site(watched, site, path):
    watched.page.goto(site.url + path)
    status = wait_for_python(watched.page)
    assert re.fullmatch(rf"Python ready: Python 3\.\d+\.\d+, pyapp {re.escape(__version__)}", status), status
    assert watched.csp_violations == []
    assert watched.foreign_requests == []
    assert watched.errors == []


class NoWasmHandler(SiteHandler):
    """A host whose Content-Security-Policy forbids WebAssembly."""

    security_headers = {"Content-Security-Policy": "default-src 'self'; script-src 'self'"}


def test_host_forbidding_webassembly_gets_a_clear_message_not_a_hang(browser, dist):
    served = serve(dist, "/", handler=NoWasmHandler)
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(served.url + "explorer/")
        status = wait_for_python(page, timeout=BOOT_TIMEOUT_MS + 10_000)
        assert page.get_attribute("#python-status", "data-state") == "error"
        assert status.startswith("Python could not start:"), status
        assert "Content-Security-Policy" in status
    finally:
        context.close()
        served.server.shutdown()
        served.server.server_close()


def test_served_with_wasm_and_module_mime_types(site):
    import urllib.request

    pyodide = pyodide_folder(ROOT / "node_modules" / "pyodide")
    for path, mime in [(f"{pyodide}/pyodide.asm.wasm", "application/wasm"),
                       (f"{pyodide}/pyodide.mjs", "text/javascript"), ("static/js/worker.mjs", "text/javascript")]:
        with urllib.request.urlopen(site.url + path) as response:
            assert response.headers["Content-Type"] == mime
            assert "'wasm-unsafe-eval'" in response.headers["Content-Security-Policy"]
    with pytest.raises(urllib.error.HTTPError):
        urllib.request.urlopen(f"{site.origin}/{pyodide}/pyodide.mjs")  # outside the /kd/ prefix
