"""Debian's Chromium as the tests launch it, and what they watch and wait for in its pages."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator

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
