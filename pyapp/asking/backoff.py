"""One back-off shared by the calls of a run in flight at once (DR-008).

Each call's own retries wait as the client's rules say (``pyapp.providers.client``). With several calls
in flight, a rate limit met by one is a rate limit for all: when any response is a 429, or carries a
``retry-after``, no request of the run is sent until that wait has passed. The wait is the response's
hint, or the client's first back-off without one, and never more than the client's longest wait.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from pyapp.providers.client import DEFAULT_POLICY, HttpResponse, RetryPolicy, Transport, parse_retry_after
from pyapp.providers.wire import HttpRequest

RATE_LIMITED = 429


class SharedBackoff:
    """Hold every request of a run while any of them has been told to wait. ``clock`` is in milliseconds."""

    def __init__(self, sleep: Callable[[float], Awaitable[object]], clock: Callable[[], float],
                 policy: RetryPolicy = DEFAULT_POLICY, wall_time: Callable[[], float] = time.time) -> None:
        self._sleep, self._clock, self._policy, self._wall_time = sleep, clock, policy, wall_time
        self.until_ms = 0.0  # no request is sent before this time of ``clock``
        self.holds = 0  # how many responses have held the run

    def around(self, transport: Transport) -> Transport:
        """``transport`` sending only when no hold is on, and putting one on when a response asks to wait."""

        async def send(request: HttpRequest) -> HttpResponse:
            while (left := self.until_ms - self._clock()) > 0:
                await self._sleep(left / 1000.0)
            response = await transport(request)
            hint = parse_retry_after(response.headers, self._wall_time()) if response.status >= 400 else None
            if response.status == RATE_LIMITED or hint is not None:
                seconds = min(self._policy.max_delay_s, hint if hint is not None else self._policy.backoff_s(0))
                self.until_ms = max(self.until_ms, self._clock() + seconds * 1000.0)
                self.holds += 1
            return response

        return send
