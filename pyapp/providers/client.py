"""The audited client's call loop: one request at a time, bounded retries, two latencies.

``call`` sends one :class:`~pyapp.providers.wire.HttpRequest` through an injected
async ``transport`` and returns a :class:`CallOutcome`. Everything with a side
effect is injected (``transport``, ``sleep``, ``clock``, ``cancelled``,
``wall_time``), so the same code runs under Pyodide's event loop in the
browser, under ``asyncio`` on the command line, and in tests with a fake
clock. The module never starts an event loop itself.

Retry rules (defaults of :class:`RetryPolicy`):

* At most 4 attempts per call (the first request and 3 retries).
* 429 (rate limit), 500/502/504/408 (server) and 503/529 (overloaded) are
  retried. The wait is the response's ``retry-after-ms`` or ``retry-after``
  (seconds or an HTTP date) when present, otherwise 1 s, 2 s, 4 s ... doubling;
  either way never more than 30 s. So one call waits at most 3 × 30 s = 90 s,
  and 1 + 2 + 4 = 7 s when the provider gives no hint. No random jitter: the
  page sends one request at a time, so there is no crowd of clients to spread
  out, and fixed waits make tests and audit figures reproducible.
* A network failure is retried at most 2 times, on the same doubling
  schedule, within the 4 attempts.
* A request gets 60 s to answer (``request_timeout_s``, enforced by the
  transport, which raises ``TimedOut``), and a timed-out request is sent again
  at most once (``timeout_retries``): a stalled provider costs a case about
  2 minutes, not 6 (three attempts of 120 s before, DR-005). A model answering
  the whole prompt takes seconds to a few tens of seconds; a minute without a
  byte means the provider is stuck, and waiting longer mostly makes a visitor
  give up on the page.
* A rejected key (401/403) or exhausted quota ends the call at once, and the
  outcome says the run must stop (``stops_run``). Other 4xx answers and a
  malformed 200 are not retried: sending the same request again gives the same
  answer.
* ``cancelled()`` is checked before every attempt and around every wait; a
  ``Cancelled`` raised by ``sleep`` or ``transport`` ends the call as
  cancelled. A response that has already arrived is kept, never discarded.

While it works, ``call`` reports each attempt and each wait through
``progress`` (a :class:`Progress`), whose ``text`` the page shows with the
time elapsed, so a visitor sees a slow provider instead of a frozen page.

Latencies come from ``clock()`` in milliseconds: ``answer_ms`` is the request
that produced the final response (waits and earlier attempts excluded), and
``total_ms`` is the whole call including waits and retries.
"""

from __future__ import annotations

import email.utils
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import UTC
from urllib.parse import urlsplit

from pyapp.core.vocabulary import ErrorClass, Outcome
from pyapp.providers.api import parse_response
from pyapp.providers.errors import ProviderError
from pyapp.providers.keyguard import contains_secret, redact, scrub_secret
from pyapp.providers.wire import HttpRequest, Reply, request_key

_DETAIL_LIMIT = 200


class NetworkError(Exception):
    """Raised by a transport when the request could not be completed (no HTTP response).

    ``hint`` is what the transport's side knows about why, said after the failure (a page's
    security policy and CORS, which a terminal does not have): a sentence or two, each
    starting with a space, or "".
    """

    def __init__(self, detail: str = "", hint: str = "") -> None:
        super().__init__(detail)
        self.hint = hint


class TimedOut(NetworkError):
    """Raised by a transport when no response arrived within the policy's ``request_timeout_s``."""


class Cancelled(Exception):
    """Raised by a transport or ``sleep`` when the visitor cancelled."""


@dataclass(frozen=True)
class HttpResponse:
    """What a transport returns: the status, the headers, and the body as text."""

    status: int
    headers: dict
    body: str


@dataclass(frozen=True)
class RetryPolicy:
    """Bounds on retrying one call; see the module docstring for the reasons.

    ``request_timeout_s`` is for the transport to enforce (by aborting and
    raising ``TimedOut``; ``pyapp.browser.worker_io.transport`` reads it from
    ``DEFAULT_POLICY``); the call loop itself has no timer and only shows the
    limit in its ``Progress``.
    """

    max_attempts: int = 4
    base_delay_s: float = 1.0
    max_delay_s: float = 30.0
    network_retries: int = 2
    request_timeout_s: float = 60.0
    timeout_retries: int = 1

    def __post_init__(self) -> None:
        if self.max_attempts < 1 or self.network_retries < 0 or self.timeout_retries < 0:
            raise ValueError("max_attempts must be at least 1, network_retries and timeout_retries at least 0.")
        if not 0 <= self.base_delay_s <= self.max_delay_s or not math.isfinite(self.max_delay_s):
            raise ValueError("Delays must satisfy 0 <= base_delay_s <= max_delay_s < infinity.")

    def backoff_s(self, retry_index: int) -> float:
        """The wait before retry number ``retry_index`` (0-based) when the server gives no hint."""
        return min(self.max_delay_s, self.base_delay_s * 2.0 ** min(retry_index, 60))


DEFAULT_POLICY = RetryPolicy()


@dataclass(frozen=True)
class CallOutcome:
    """The result of one call, success or failure; what the audit entry records.

    ``error`` is ``None`` on a reply, otherwise an :class:`~pyapp.core.vocabulary.ErrorClass`
    or ``Outcome.CANCELLED``. ``status`` is the last HTTP
    status received (``None`` if none arrived). ``answer_ms`` is ``None`` when
    no response arrived.
    """

    status: int | None
    reply: Reply | None
    error: ErrorClass | Outcome | None
    message: str
    answer_ms: float | None
    total_ms: float
    retries: int
    stops_run: bool


ASKING = "asking"
WAITING = "waiting"


@dataclass(frozen=True)
class Progress:
    """What a call is doing: attempt ``attempt`` is out (``ASKING``) or a retry is due (``WAITING``).

    ``since_ms`` is ``clock()`` when this phase began; ``seconds`` is the
    request's time limit while asking, the wait's length while waiting.
    """

    phase: str
    attempt: int
    max_attempts: int
    since_ms: float
    seconds: float

    def text(self, now_ms: float) -> str:
        """Words for the page, e.g. ``attempt 1 of 4, 12 s waiting for the answer (gives up at 60 s)``."""
        elapsed = max(0, int((now_ms - self.since_ms) / 1000))
        if self.phase == WAITING:
            left = max(0, math.ceil(self.seconds - elapsed))
            return f"attempt {self.attempt} of {self.max_attempts} failed; trying again in {left} s"
        return (f"attempt {self.attempt} of {self.max_attempts}, {elapsed} s waiting for the answer "
                f"(gives up at {self.seconds:g} s)")


def parse_retry_after(headers: dict, now_s: float) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or HTTP date); else ``None``."""
    lowered = {str(k).lower(): str(v).strip() for k, v in headers.items()}
    millis = _number(lowered.get("retry-after-ms"))
    if millis is not None:
        return max(0.0, millis / 1000.0)
    value = lowered.get("retry-after")
    if not value:
        return None
    seconds = _number(value)
    if seconds is not None:
        return max(0.0, seconds)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:  # "-0000" dates come back naive; they are UTC by definition
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - now_s)


def _number(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


Transport = Callable[[HttpRequest], Awaitable[HttpResponse]]


async def call(
    request: HttpRequest,
    transport: Transport,
    *,
    sleep: Callable[[float], Awaitable[object]],
    clock: Callable[[], float],
    policy: RetryPolicy = DEFAULT_POLICY,
    cancelled: Callable[[], bool] = lambda: False,
    wall_time: Callable[[], float] = time.time,
    progress: Callable[[Progress], object] = lambda _: None,
) -> CallOutcome:
    """Send ``request`` until it is answered, fails for good, or is cancelled (see module doc)."""
    key = request_key(request)
    start = clock()
    attempts = 0
    retries = 0
    network_failures = 0
    timeouts = 0
    last_status: int | None = None

    def finish(
        *, reply: Reply | None = None, error: ErrorClass | Outcome | None, message: str, answer_ms: float | None
    ) -> CallOutcome:
        return CallOutcome(
            status=last_status,
            reply=reply,
            error=error,
            message=redact(message, key),
            answer_ms=answer_ms,
            total_ms=clock() - start,
            retries=retries,
            stops_run=error in (ErrorClass.AUTH, ErrorClass.QUOTA),
        )

    def stopped() -> CallOutcome:
        when = "before an answer arrived" if last_status is None else f"after HTTP {last_status}"
        return finish(error=Outcome.CANCELLED, message=f"Cancelled {when}.", answer_ms=None)

    async def wait(seconds: float) -> bool:
        """Wait; ``False`` when cancelled before, during or after the wait."""
        if cancelled():
            return False
        progress(Progress(WAITING, attempts, policy.max_attempts, clock(), seconds))
        try:
            await sleep(seconds)
        except Cancelled:
            return False
        return not cancelled()

    while True:
        if cancelled():
            return stopped()
        attempts += 1
        sent = clock()
        progress(Progress(ASKING, attempts, policy.max_attempts, sent, policy.request_timeout_s))
        try:
            response = await transport(request)
        except Cancelled:
            return stopped()
        except NetworkError as exc:
            network_failures += 1
            timeouts += isinstance(exc, TimedOut)
            if (network_failures > policy.network_retries or timeouts > policy.timeout_retries
                    or attempts >= policy.max_attempts):
                return finish(
                    error=ErrorClass.NETWORK, message=_network_message(request, exc, attempts), answer_ms=None
                )
            delay = policy.backoff_s(retries)
            retries += 1
            if not await wait(delay):
                return stopped()
            continue
        except Exception as exc:  # noqa: BLE001 - a transport bug must still end in an audited outcome
            message = f"The request failed unexpectedly ({type(exc).__name__}: {_short(str(exc))})."
            return finish(error=ErrorClass.NETWORK, message=message, answer_ms=None)
        answer_ms = clock() - sent
        last_status = response.status
        result = parse_response(request.provider, response.status, response.headers, response.body, key=key)
        if isinstance(result, Reply):
            return finish(reply=result, error=None, message="", answer_ms=answer_ms)
        if not result.retryable or attempts >= policy.max_attempts:
            return finish(error=result.kind, message=_error_message(result, attempts), answer_ms=answer_ms)
        hint = parse_retry_after(response.headers, wall_time())
        delay = min(policy.max_delay_s, hint if hint is not None else policy.backoff_s(retries))
        retries += 1
        if not await wait(delay):
            return stopped()


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _DETAIL_LIMIT else text[:_DETAIL_LIMIT] + "..."


def _error_message(error: ProviderError, attempts: int) -> str:
    if attempts > 1:
        return f"{error.message} Gave up after {attempts} attempts."
    return error.message


def _network_message(request: HttpRequest, exc: NetworkError, attempts: int) -> str:
    host = urlsplit(request.url).netloc or request.url
    detail = _short(str(exc)) or type(exc).__name__
    tries = f" Tried {attempts} times." if attempts > 1 else ""
    return f"Could not reach {host}: {detail}.{tries}{exc.hint}"


def scrub_outcome(outcome: CallOutcome, key: str | None) -> CallOutcome:
    """``outcome`` with an echoed key removed from the reply and the message, before it is graded.

    The answer is graded as stored, so grading at call time and on rebuild agree
    (DR-005); a redacted answer that no longer parses is a model failure both times.
    """
    reply = outcome.reply
    if not contains_secret([outcome.message, None if reply is None else [reply.text, reply.raw_stop_reason]], key):
        return outcome
    message = scrub_secret(outcome.message, key)
    if reply is not None:
        reply = replace(reply, text=scrub_secret(reply.text, key),
                        raw_stop_reason=scrub_secret(reply.raw_stop_reason, key))
        note = "The reply contained the API key; the log keeps it with the key removed."
        message = f"{note} {message}".strip()
    return replace(outcome, reply=reply, message=message)
