"""The command line's edge for ``python -m pyapp run``: HTTP with urllib, the log on disk (DR-008).

The set is asked by :func:`pyapp.asking.runner.run_eval`, the page's own runner, so the
prompts, the client's retries, the grading and the audit entries are the page's.
Only the three things the browser does differently live here: sending a request
(``urllib.request``, the standard library's client), sleeping and reading the clock
(``asyncio`` and ``time.monotonic``), and storing entries (a JSON-lines file, one
entry a line, written and flushed as each call ends, so an interrupted run loses no
answered call). The key comes from an environment variable and is checked against
every line before it is written, as the page checks before storing.
"""

from __future__ import annotations

import asyncio
import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable

from pyapp.asking.runner import new_run_id, run_eval
from pyapp.evaluation.evalset import EVAL_SET_VERSION
from pyapp.evaluation.export import ImportFileError, is_log, log_line, parse_import
from pyapp.evaluation.rebuild import rebuild
from pyapp.evaluation.runs import Run
from pyapp.providers.client import DEFAULT_POLICY, HttpResponse, NetworkError, RetryPolicy, TimedOut
from pyapp.providers.keyguard import contains_secret
from pyapp.providers.settings import Settings
from pyapp.providers.wire import HttpRequest


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is returned as the response it is: following it would resend the key elsewhere."""

    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirects)


def urllib_transport(policy: RetryPolicy = DEFAULT_POLICY) -> Callable:
    """An async transport for :func:`pyapp.providers.client.call` that sends with ``urllib`` in a worker thread."""

    def send(request: HttpRequest) -> HttpResponse:
        http = urllib.request.Request(request.url, data=request.body.encode("utf-8"), headers=request.headers,
                                      method=request.method)
        try:
            with _OPENER.open(http, timeout=policy.request_timeout_s) as response:
                return HttpResponse(response.status, dict(response.headers), _text(response.read()))
        except urllib.error.HTTPError as exc:  # a status other than 2xx is still an answer
            with exc:
                return HttpResponse(exc.code, dict(exc.headers or {}), _text(exc.read()))
        except TimeoutError:
            raise TimedOut(f"no answer within {policy.request_timeout_s:g} s") from None
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, TimeoutError):
                raise TimedOut(f"no answer within {policy.request_timeout_s:g} s") from None
            raise NetworkError(str(exc.reason)) from None
        except OSError as exc:
            raise NetworkError(exc.strerror or "the connection failed") from None

    async def transport(request: HttpRequest) -> HttpResponse:
        return await asyncio.to_thread(send, request)

    return transport


def _text(body: bytes) -> str:
    return body.decode("utf-8", errors="replace")


class LogFile:
    """A JSON-lines audit log: checked whole when opened, then appended to a line per entry."""

    def __init__(self, path: str, api_key: str | None) -> None:
        self.path = path
        self._key = api_key
        self.entries = self._read()

    def _read(self) -> list[dict]:
        try:
            with open(self.path, "rb") as handle:
                data = handle.read()
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise ValueError(f"cannot read {self.path}: {exc.strerror}") from None
        if not data.strip():
            return []
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = ""
        if not is_log(text) or not text.endswith("\n"):
            raise ValueError(f"{self.path} is not a log written by run (one entry a line, each ended by a line "
                             "break); give the name of a new file or of such a log")
        try:
            return parse_import(text)
        except ImportFileError as exc:
            raise ValueError(f"{self.path} cannot be appended to: {exc}") from None

    async def append(self, entries: list[dict]) -> None:
        lines = [log_line(e) for e in entries]
        if contains_secret(lines, self._key):  # never reached: entries are scrubbed before; a last guard
            raise RuntimeError("An entry held the API key, so it was not written.")
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.writelines(lines)
            handle.flush()
            os.fsync(handle.fileno())
        self.entries.extend(entries)


async def run_set(settings: Settings, api_key: str | None, log: LogFile, runs: int,
                  say: Callable[[str], object], transport: Callable | None = None,
                  set_version: str = EVAL_SET_VERSION) -> list[dict]:
    """Ask set ``set_version`` ``runs`` times, one fresh run after another, appending to ``log``; the runners'
    results.

    Stops early when a run stops (a rejected key, exhausted quota, a provider that is down).
    """
    transport = transport or urllib_transport()
    results = []

    async def run_of(run_id: str) -> Run:
        return rebuild(log.entries).run(run_id)

    def emit(event: dict) -> None:
        if event["type"] == "case-done":
            say(f"{event['run_id']} {event['case_id']} ({event['index'] + 1} of {event['total']}): "
                f"{event['outcome']}" + (f". {event['message']}" if event["message"] else ""))

    for _ in range(runs):
        result = await run_eval(new_run_id(), True, settings, api_key, read_run=run_of, append=log.append,
                                emit=emit, cancelled=lambda: False, set_version=set_version, transport=transport,
                                sleep=asyncio.sleep, clock=lambda: time.monotonic() * 1000)
        results.append(result)
        say(result["message"])
        if result["stopped"] is not None:
            break
    return results
