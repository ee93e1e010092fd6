"""Browser tests: hosts that drop the policy header or never deliver the page's module script."""

from __future__ import annotations

from pathlib import Path

import pytest

from chromium import PageWatch, wait_for_python
from served import serve
from sitegen import builder, render
from sitegen.serve import SiteHandler

pytestmark = pytest.mark.browser


class NoHeadersHandler(SiteHandler):
    """A host that sends none of the site's headers, as Apache does with `.htaccess` but without mod_headers."""

    security_headers = {}


def test_host_without_the_policy_header_gets_a_visible_warning_and_python_still_runs(browser, dist):
    served = serve(dist, "/kd/", handler=NoHeadersHandler)
    context = browser.new_context()
    watch = PageWatch(context, served.origin)
    try:
        watch.page.goto(served.url + "explorer/")
        assert wait_for_python(watch.page).startswith("Python ready"), "a missing header is a warning, not an error"
        watch.page.wait_for_selector("#host-policy-warning", state="visible", timeout=10_000)
        warning = watch.page.inner_text("#host-policy-warning")
        assert "does not send the site's Content-Security-Policy header" in warning
        assert "DR-002" in warning
        assert watch.errors == []
        assert watch.csp_violations == []
    finally:
        context.close()
        served.server.shutdown()
        served.server.server_close()


def test_module_script_that_never_arrives_still_ends_in_python_could_not_start(browser, tmp_path: Path, monkeypatch):
    """The boot time limit does not live in the module: a stalled module file still gets the message."""
    monkeypatch.setattr(render, "BOOT_TIMEOUT_MS", 2_000)
    short = tmp_path / "dist"
    builder.build(dist=short)
    served = serve(short, "/kd/")
    context = browser.new_context()
    stalled = []
    context.route("**/static/js/explorer.mjs*", lambda route: stalled.append(route))  # never answered
    try:
        page = context.new_page()
        page.goto(served.url + "explorer/", wait_until="commit")
        status = wait_for_python(page, timeout=render.BOOT_TIMEOUT_MS + 10_000)
        assert stalled, "the module request was not held back"
        assert page.get_attribute("#python-status", "data-state") == "error"
        assert status.startswith("Python could not start: the page's scripts did not arrive within 2 s."), status
    finally:
        context.close()
        served.server.shutdown()
        served.server.server_close()
