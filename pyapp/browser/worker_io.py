"""What the worker gives Python (DR-002, DR-005): ``fetch`` for the audited client, a clock, sleeps and
the cancel button, events for the page, and appends to the IndexedDB audit log (which
``pyapp.browser.log_cache.append_entries`` makes).

The browser's modules (``js``, ``pyodide``, the worker's ``kdt_worker`` and ``kdt_audit_store``) are
imported inside functions, so this module imports on CPython too.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable


async def transport(request):
    """Send one HTTP request with ``fetch``, abortable by the page's cancel button and by the time limit."""
    from kdt_worker import cancel_requested, new_signal
    from pyodide.http import pyfetch

    from pyapp.providers.client import DEFAULT_POLICY, Cancelled, HttpResponse, NetworkError, TimedOut

    limit_s = DEFAULT_POLICY.request_timeout_s
    sent = clock_ms()
    try:
        response = await pyfetch(request.url, method=request.method, headers=request.headers, body=request.body,
                                 signal=new_signal(limit_s * 1000))
        body = await response.string()
    except Exception as exc:  # pyfetch turns every fetch rejection into an AbortError; none carries the key
        if cancel_requested():
            raise Cancelled() from None
        # A refused request also arrives as an AbortError ("Failed to fetch"); only the time limit's
        # reason says "timed out" (AbortSignal.timeout), and the clock confirms it.
        if "timed out" in str(exc).lower() or clock_ms() - sent >= limit_s * 1000:
            raise TimedOut(f"no answer within {limit_s:g} s") from None
        reason = "the request failed (a network error, or the server refused the browser's request)"
        raise NetworkError(reason, hint=_page_hint(request)) from None
    return HttpResponse(response.status, dict(response.headers), body)


def _page_hint(request) -> str:
    """Why a page may not reach a server: the site's security policy, or the server's CORS answer (DR-002)."""
    from pyapp.providers.settings import OPENAI_COMPATIBLE, is_loopback_url

    if request.provider != OPENAI_COMPATIBLE:
        return ""
    if not is_loopback_url(request.url):
        return (" This site's security policy lets the page reach only Anthropic, OpenAI and servers on this "
                "computer (127.0.0.1, localhost, [::1]), so the browser blocks a server elsewhere.")
    return " Is the server running, and does it allow requests from this page (CORS)?"


class ProgressLine:
    """The running call's progress for the page: sent on every change and again every second (DR-005).

    The page only places ``text``; the elapsed seconds are counted here.
    """

    def __init__(self, kind: str = "progress") -> None:
        self.kind = kind  # the event's type: a judging's progress has its own line on the page
        self.label = ""
        self.state = None
        self.running = True

    def show(self, label: str, state) -> None:
        self.label, self.state = label, state
        self.send()

    def send(self) -> None:
        if self.running and self.state is not None:
            emit({"type": self.kind, "text": f"{self.label}: {self.state.text(clock_ms())}."})

    async def tick(self) -> None:
        import asyncio

        while self.running:
            await asyncio.sleep(1)
            self.send()

    def __enter__(self) -> ProgressLine:
        import asyncio

        asyncio.ensure_future(self.tick())
        return self

    def __exit__(self, *exc: object) -> None:
        self.running = False


async def sleep(seconds: float) -> None:
    """Wait, in short slices so that a cancel is noticed at once."""
    import asyncio
    import time

    from kdt_worker import cancel_requested

    from pyapp.providers.client import Cancelled

    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        if cancel_requested():
            raise Cancelled()
        await asyncio.sleep(min(left, 0.1))


def clock_ms() -> float:
    import time

    return time.monotonic() * 1000


def cancelled() -> bool:
    from kdt_worker import cancel_requested

    return bool(cancel_requested())


def emit(event: dict) -> None:
    from kdt_worker import emit as post

    post(json.dumps(event))


def start_append(texts: list[str]) -> Awaitable[dict]:
    """Hand entries' JSON texts to the IndexedDB audit log, which stores them in one transaction while
    Python goes on; await the result for the store's answer, ``{"seqs": [...], "count": records held
    after}``. A failed write is an error the visitor sees."""
    from kdt_audit_store import append

    promise = append(json.dumps(texts))  # the write is under way (audit-store.mjs)

    async def written() -> dict:
        try:
            return json.loads(await promise)
        except Exception as exc:
            reason = str(exc).removeprefix("Error: ")
            raise RuntimeError(
                f"The audit log could not be written ({reason}); browser storage may be full or blocked. "
                "Nothing was shown, so nothing unrecorded was used."
            ) from None

    return written()
