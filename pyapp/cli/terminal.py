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
import contextlib
import os
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable

from pyapp.asking.runner import new_run_id, run_eval
from pyapp.cli.exit_status import LocalIOError
from pyapp.cli.inputs import check_log_end, check_writable
from pyapp.evaluation.evalset import EVAL_SET_VERSION, FIXED_SETS, CaseSets
from pyapp.evaluation.export import ImportFileError, is_log, log_line, parse_import
from pyapp.evaluation.log_end import ends_whole
from pyapp.evaluation.rebuild import rebuild
from pyapp.evaluation.runs import Run
from pyapp.providers.client import DEFAULT_POLICY, HttpResponse, NetworkError, RetryPolicy, TimedOut
from pyapp.providers.keyguard import contains_secret
from pyapp.providers.settings import OPENAI_COMPATIBLE, Settings
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
            raise NetworkError(str(exc.reason), hint=_hint(request)) from None
        except OSError as exc:
            raise NetworkError(exc.strerror or "the connection failed", hint=_hint(request)) from None

    async def transport(request: HttpRequest) -> HttpResponse:
        return await asyncio.to_thread(send, request)

    return transport


def _hint(request: HttpRequest) -> str:
    return " Is the server running at that address?" if request.provider == OPENAI_COMPATIBLE else ""


def _text(body: bytes) -> str:
    return body.decode("utf-8", errors="replace")


class LogNotWritten(LocalIOError):
    """An entry could not be appended to the log; it was printed to standard error instead."""


class LogFile:
    """A JSON-lines audit log, appended to a line per entry.

    Opening it checks what appending needs, from the file's bytes alone: that it can be written, that it is
    a log (its first line an entry) and that its last line is whole. Its entries are parsed and checked, as
    an import is, only when first asked for (:attr:`entries`): a new run of a fixed set never asks, so its
    first call does not wait for a long log to be read (DR-008).
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.key: str | None = None  # the API key of the run, which no line may hold
        self.appended: list[dict] = []  # the entries this process wrote, in order
        self._entries: list[dict] | None = None
        self._check()
        check_writable(path)

    def _bytes(self) -> bytes:
        try:
            with open(self.path, "rb") as handle:
                return handle.read()
        except FileNotFoundError:
            return b""
        except OSError as exc:
            raise ValueError(f"cannot read {self.path}: {exc.strerror}") from None

    def _check(self) -> None:
        try:
            with open(self.path, "rb") as handle:
                if ends_whole(handle):  # its first and last lines say all is well: the rest is not read (DR-008)
                    return
        except FileNotFoundError:
            return
        except OSError as exc:
            raise ValueError(f"cannot read {self.path}: {exc.strerror}") from None
        data = self._bytes()
        if data.isspace() or not data:  # isspace stops at the first other byte; strip would copy the log
            return
        try:
            check_log_end(self.path, data, appending=True)  # a last line a write left unfinished, said as such
        except ImportFileError as exc:
            raise ValueError(f"{self.path} cannot be appended to: {exc}") from None
        first = data[:data.find(b"\n") + 1 or len(data)].decode("utf-8-sig", errors="replace")
        if not is_log(first) or not data.endswith(b"\n"):
            raise ValueError(f"{self.path} is not a log written by run (one entry a line, each ended by a line "
                             "break); give the name of a new file or of such a log")

    @property
    def entries(self) -> list[dict]:
        """Every entry of the log, parsed and checked as an import is when first asked for, then kept with what
        this process appends."""
        if self._entries is None:
            data = self._bytes()
            try:
                self._entries = [] if data.isspace() or not data else parse_import(data)
            except ImportFileError as exc:
                raise ValueError(f"{self.path} cannot be appended to: {exc}") from None
        return self._entries

    async def append(self, entries: list[dict]) -> None:
        """Append ``entries``, each a line, written and synced before this returns (the runner's ``append``)."""
        self.write(entries)

    def write(self, entries: list[dict]) -> None:
        lines = [log_line(e) for e in entries]
        if contains_secret(lines, self.key):  # never reached: entries are scrubbed before; a last guard
            raise RuntimeError("An entry held the API key, so it was not written.")
        try:
            _append_whole(self.path, "".join(lines).encode("utf-8"))
        except OSError as exc:
            # The answer is paid for: it goes where the person can keep it, whole, one JSON line an entry.
            sys.stderr.writelines(lines)
            sys.stderr.flush()
            raise LogNotWritten(
                f"cannot write {self.path}: {exc.strerror or exc}. The run stopped. What could not be written is "
                f"on standard error above, one JSON line an entry: keep it in a file and add it to the log with "
                f"python -m pyapp run --recover FILE --log {self.path}") from None
        self.appended.extend(entries)
        if self._entries is not None:
            self._entries.extend(entries)

    def recover(self, path: str) -> tuple[int, int]:
        """Append the entries that standard error kept in file ``path`` (its other lines are skipped);
        (appended, already in the log). Every entry is checked as an import is, before any is written."""
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                kept = [line for line in handle if line.startswith('{"format"')]
        except OSError as exc:
            raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
        if not kept:
            raise ValueError(f"{path} holds no audit entry: give the file that kept the run's standard error")
        try:
            entries = parse_import("".join(line if line.endswith("\n") else line + "\n" for line in kept))
        except ImportFileError as exc:
            raise ValueError(f"{path}: {exc}") from None
        known = {e["id"] for e in self.entries}
        new = [e for e in entries if e["id"] not in known]
        if new:
            self.write(new)
        return len(new), len(entries) - len(new)


def _append_whole(path: str, data: bytes) -> None:
    """Append ``data`` to ``path`` and sync it, or leave the file as it was: a disk that fills mid-write
    must not leave part of a line, which would make the whole log unreadable."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        start = os.lseek(fd, 0, os.SEEK_END)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        except OSError:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, start)
            raise
    finally:
        os.close(fd)


async def run_set(settings: Settings, api_key: str | None, log: LogFile, runs: int,
                  say: Callable[[str], object], transport: Callable | None = None,
                  set_version: str = EVAL_SET_VERSION, sets: CaseSets = FIXED_SETS,
                  continue_run: str | None = None, concurrency: int = 1,
                  started: Callable[[str], object] = lambda run_id: None) -> list[dict]:
    """Ask set ``set_version`` (a name ``sets`` knows) ``runs`` times, one fresh run after another, or, given
    ``continue_run``, the cases that run still lacks, as the page's continue asks them, ``concurrency``
    calls in flight at most; appends to ``log`` and returns the runners' results. ``say`` gets a line as
    each call ends, and ``started`` each run's id as it starts.

    Stops early when a run stops (a rejected key, exhausted quota, a provider that is down).
    """
    transport = transport or urllib_transport()
    results = []
    asked = [(continue_run, False)] if continue_run is not None else [(None, True)] * runs

    async def run_of(run_id: str) -> Run:
        return rebuild(log.entries).run(run_id)

    def emit(event: dict) -> None:
        if event["type"] == "case-done":
            say(f"{event['run_id']} {event['case_id']} ({event['index'] + 1} of {event['total']}): "
                f"{event['outcome']}" + (f". {event['message']}" if event["message"] else ""))

    for run_id, fresh in asked:
        run_id = run_id or new_run_id()
        started(run_id)
        result = await run_eval(run_id, fresh, settings, api_key, read_run=run_of, append=log.append,
                                emit=emit, cancelled=lambda: False, set_version=set_version, sets=sets,
                                concurrency=concurrency, transport=transport, sleep=asyncio.sleep,
                                clock=lambda: time.monotonic() * 1000)
        results.append(result)
        if result["stopped"] is not None:
            break
    return results
