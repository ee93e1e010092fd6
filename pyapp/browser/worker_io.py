"""What the worker gives Python (DR-002, DR-005): ``fetch`` for the audited client, a clock, sleeps and
the cancel button, events for the page, and reads of and appends to the IndexedDB audit log (which
``pyapp.browser.log_cache`` makes).

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


def start_append(texts: list[str], from_file: bool = False) -> Awaitable[dict]:
    """Hand entries' JSON texts to the IndexedDB audit log, which stores them in one transaction while
    Python goes on; await the result for the store's answer, ``{"seqs": [the sequence number of each]}``.
    A failed write is an error the visitor sees. Entries the store refused that no kept file holds are
    handed to the page to download, unless they come ``from_file`` the visitor has (DR-015)."""
    from kdt_audit_store import append

    promise = append(json.dumps(texts))  # the write is under way (audit-store.mjs)

    async def written() -> dict:
        try:
            return json.loads(await promise)
        except Exception as exc:
            reason = str(exc).removeprefix("Error: ")
            refusal = _refusal(reason)
            if refusal is not None and not refusal.get("kept") and not from_file:
                from pyapp.presentation.storage_line import unstored_downloaded

                emit({"type": "unstored", "lines": texts, "text": unstored_downloaded(len(texts))})
            raise RuntimeError(unstored_sentence(reason, from_file)) from None

    return written()


def read_from(seq: int, count: int | None = None) -> Awaitable[list[list]]:
    """The audit log's records from sequence number ``seq`` on (0: all), oldest first, at most ``count`` (None:
    all), each as [sequence number, its JSON text, or None when it holds none]. The read is under way when this
    returns (audit-store.mjs), so Python may take other records meanwhile; await the result for the records.

    The store sends the texts as UTF-8 bytes beside a JSON list of their sizes (``framed``): one JSON text of
    100,000 records took 2.6 s to become a Python string (DR-006)."""
    from kdt_audit_store import readFrom

    promise = readFrom(seq, count)

    async def rows() -> list[list]:
        read = await promise
        rows = json.loads(read.rows)
        texts = memoryview(read.texts.to_bytes())
        at = 0
        for row in rows:
            size = row[1]
            if type(size) is int:
                row[1] = str(texts[at:at + size], "utf-8")
                at += size
        return rows

    return rows()


def _refusal(reason: str) -> dict | None:
    """The store's rejection as ``log-keeping.mjs`` words it, ``{"error": ..., "kept": the kept file's name or
    null}``, or None when it came from the store alone."""
    try:
        refusal = json.loads(reason)
    except ValueError:
        return None
    return refusal if isinstance(refusal, dict) else None


def unstored_sentence(reason: str, from_file: bool = False) -> str:
    """What the visitor reads when the store refused entries. ``reason`` is the store's rejection: the browser's
    error, or JSON from ``log-keeping.mjs``, which has written the entries to the kept file if there is one;
    otherwise :func:`start_append` has handed them to the page as a download, unless they came ``from_file``
    (an import), which is left as it was (DR-015)."""
    refusal = _refusal(reason)
    error = str(refusal.get("error", "")) if refusal is not None else reason
    full = "QuotaExceededError" in error
    if from_file:
        said = ("this browser's storage for the site is full (QuotaExceededError)" if full
                else f"the audit log could not be written ({error}); browser storage may be full or blocked")
        return f"Nothing was imported: {said}. The file you imported is unchanged: import it again once there is room."
    if full:
        said = ("This browser's storage for the site is full (QuotaExceededError), so the audit log could not be "
                "written.")
    else:
        said = f"The audit log could not be written ({error}); browser storage may be full or blocked."
    if refusal is None:
        return f"{said} Nothing was shown, so nothing unrecorded was used."
    if refusal.get("kept"):
        return (f"{said} The entries it could not store are in your file {refusal['kept']}: import that file "
                "once there is room, and nothing is lost.")
    return (f"{said} The entries it could not store were offered as a download: keep that file and import "
            "it once there is room, and nothing is lost.")
