"""The call loop as a state machine: fake transport, fake clock, fake sleep (pyapp.providers.client)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from live_call import run_async
from pyapp.providers.api import build_request
from pyapp.providers.client import (
    DEFAULT_POLICY,
    CallOutcome,
    Cancelled,
    HttpResponse,
    NetworkError,
    RetryPolicy,
    call,
    parse_retry_after,
)
from pyapp.providers.settings import Settings

KEY = "sk-ant-api03-CLIENTsecret0123456789ABCDEFGH"
SCHEMA = {"type": "object", "properties": {"result": {"type": "integer"}}, "required": ["result"]}


@dataclass(frozen=True)
class FakePrompt:
    system: str = "system text"
    user: str = "user text"


def anthropic_request():
    return build_request(Settings("anthropic", "claude-x", 500, 0.0), FakePrompt(), KEY, SCHEMA)


def local_request():
    return build_request(Settings("openai-compatible", "m", 500, None, "http://127.0.0.1:8080/v1"),
                         FakePrompt(), None, SCHEMA)


OK_BODY = json.dumps({
    "type": "message",
    "content": [{"type": "tool_use", "name": "search_explanation", "input": {"result": 3}}],
    "stop_reason": "tool_use", "usage": {"input_tokens": 50, "output_tokens": 7},
})


def ok(headers=None):
    return HttpResponse(200, headers or {}, OK_BODY)


def err(status, kind="api_error", message="boom", headers=None):
    body = json.dumps({"type": "error", "error": {"type": kind, "message": message}})
    return HttpResponse(status, headers or {}, body)


class Env:
    """A fake world: the clock moves only when the transport answers or sleep is awaited."""

    def __init__(self, script, latency_ms=100.0, cancel_after_sleeps=None, wall=1_000_000.0):
        self.script = list(script)
        self.latency_ms = latency_ms
        self.now_ms = 5_000.0
        self.sleeps: list[float] = []
        self.sent = 0
        self.cancel_after_sleeps = cancel_after_sleeps
        self.cancel_flag = False
        self.wall = wall

    def clock(self) -> float:
        return self.now_ms

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now_ms += seconds * 1000.0
        if self.cancel_after_sleeps is not None and len(self.sleeps) >= self.cancel_after_sleeps:
            self.cancel_flag = True

    async def transport(self, request):
        assert KEY not in request.url
        self.sent += 1
        item = self.script.pop(0)
        self.now_ms += self.latency_ms
        if isinstance(item, BaseException):
            raise item
        return item

    def run(self, request=None, policy=DEFAULT_POLICY) -> CallOutcome:
        return run_async(call(
            request or anthropic_request(), self.transport, sleep=self.sleep, clock=self.clock,
            policy=policy, cancelled=lambda: self.cancel_flag, wall_time=lambda: self.wall,
        ))


def assert_no_key(outcome: CallOutcome):
    assert KEY not in outcome.message and KEY not in repr(outcome)


# ---------------------------------------------------------------- the cases of one call (DR-005)


def test_200_answers_first_time():
    env = Env([ok()])
    out = env.run()
    assert out.error is None and out.status == 200 and out.message == ""
    assert out.reply.text == '{"result": 3}' and out.reply.stop == "end"
    assert (out.reply.input_tokens, out.reply.output_tokens) == (50, 7)
    assert (out.answer_ms, out.total_ms, out.retries, out.stops_run) == (100.0, 100.0, 0, False)
    assert env.sleeps == [] and env.sent == 1


@pytest.mark.parametrize(("status", "kind"), [(401, "authentication_error"), (403, "permission_error")])
def test_rejected_key_stops_at_once(status, kind):
    env = Env([err(status, kind, "invalid x-api-key"), ok()])
    out = env.run()
    assert out.error == "auth" and out.stops_run and out.reply is None
    assert out.status == status and "rejected the API key" in out.message
    assert env.sent == 1 and env.sleeps == [] and out.retries == 0
    assert out.answer_ms == 100.0
    assert_no_key(out)


def test_quota_stops_at_once():
    body = json.dumps({"error": {"message": "You exceeded your current quota", "type": "insufficient_quota",
                                 "code": "insufficient_quota"}})
    req = build_request(Settings("openai", "gpt-4o", 100, None), FakePrompt(), KEY, SCHEMA)
    env = Env([HttpResponse(429, {"retry-after": "1"}, body), ok()])
    out = env.run(req)
    assert out.error == "quota" and out.stops_run and env.sent == 1 and env.sleeps == []
    assert "no quota or credit" in out.message


def test_429_with_retry_after_waits_as_told():
    env = Env([err(429, "rate_limit_error", headers={"Retry-After": "7"}), ok()])
    out = env.run()
    assert env.sleeps == [7.0]
    assert out.error is None and out.retries == 1 and out.status == 200
    assert out.answer_ms == 100.0
    assert out.total_ms == 100.0 + 7_000.0 + 100.0


def test_429_without_retry_after_backs_off_then_gives_up():
    env = Env([err(429, "rate_limit_error")] * 5)
    out = env.run()
    assert env.sleeps == [1.0, 2.0, 4.0] and env.sent == 4
    assert out.error == "rate_limit" and not out.stops_run and out.retries == 3
    assert out.status == 429 and "Gave up after 4 attempts" in out.message
    assert out.answer_ms == 100.0 and out.total_ms == 4 * 100.0 + 7_000.0


def test_retry_after_is_capped():
    env = Env([err(429, headers={"retry-after": "120"}), ok()])
    env.run()
    assert env.sleeps == [30.0]


def test_retry_after_http_date_and_ms():
    date = "Wed, 02 Dec 2026 12:00:10 GMT"
    wall = 1_796_212_800.0  # 2026-12-02T12:00:00Z
    env = Env([err(529, "overloaded_error", headers={"retry-after": date}), ok()], wall=wall)
    env.run()
    assert env.sleeps == [10.0]
    env = Env([err(429, headers={"retry-after-ms": "1500", "retry-after": "9"}), ok()])
    env.run()
    assert env.sleeps == [1.5]


@pytest.mark.parametrize(
    ("value", "expected"),
    [("3", 3.0), ("0.5", 0.5), ("-4", 0.0), ("soon", None), ("", None), ("nan", None),
     ("Wed, 02 Dec 2026 11:59:00 GMT", 0.0), ("Wed, 02 Dec 2026 12:01:00 -0000", 60.0)],
)
def test_parse_retry_after(value, expected):
    assert parse_retry_after({"Retry-After": value}, 1_796_212_800.0) == expected


def test_500_is_retried():
    env = Env([err(500), ok()])
    out = env.run()
    assert out.error is None and env.sleeps == [1.0] and out.retries == 1


def test_529_overloaded_is_retried_with_backoff():
    env = Env([err(529, "overloaded_error"), err(529, "overloaded_error"), ok()])
    out = env.run()
    assert out.error is None and env.sleeps == [1.0, 2.0] and out.retries == 2
    assert out.total_ms == 3 * 100.0 + 3_000.0 and out.answer_ms == 100.0


def test_529_exhausted_is_overloaded():
    out = Env([err(529, "overloaded_error")] * 4).run()
    assert out.error == "overloaded" and not out.stops_run and out.retries == 3


def test_network_failure_then_success():
    env = Env([NetworkError("Failed to fetch"), ok()])
    out = env.run()
    assert out.error is None and out.status == 200 and env.sleeps == [1.0] and out.retries == 1
    assert out.answer_ms == 100.0 and out.total_ms == 1_200.0


def test_network_failure_exhausted():
    env = Env([NetworkError("Failed to fetch", hint=" Is the server running?")] * 5)
    out = env.run(local_request())
    assert env.sent == 3 and env.sleeps == [1.0, 2.0]
    assert out.error == "network" and out.status is None and out.answer_ms is None and out.reply is None
    assert not out.stops_run and out.retries == 2
    assert "Could not reach 127.0.0.1:8080" in out.message and "Tried 3 times" in out.message
    assert out.message.endswith("Tried 3 times. Is the server running?")  # the transport's hint, last


def test_network_retries_share_the_attempt_budget():
    env = Env([err(500), err(500), NetworkError("x"), NetworkError("y"), ok()])
    out = env.run()
    assert env.sent == 4 and out.error == "network" and out.status == 500


def test_stall_then_cancel():
    """A request that never answers ends as cancelled once the visitor cancels."""

    async def scenario():
        flag = {"cancelled": False}
        abort = asyncio.Event()
        started = asyncio.Event()

        async def stalled(request):
            started.set()
            await abort.wait()  # the browser's AbortController firing
            raise Cancelled()

        async def visitor():
            await started.wait()
            flag["cancelled"] = True
            abort.set()

        loop = asyncio.get_running_loop()
        outcome, _ = await asyncio.gather(
            call(anthropic_request(), stalled, sleep=asyncio.sleep, clock=lambda: loop.time() * 1000,
                 cancelled=lambda: flag["cancelled"]),
            visitor(),
        )
        return outcome

    out = run_async(scenario())
    assert out.error == "cancelled" and out.reply is None and out.answer_ms is None
    assert out.status is None and not out.stops_run and "before an answer arrived" in out.message


def test_cancel_during_wait_raises_from_sleep():
    env = Env([err(429), ok()])

    async def interrupted_sleep(seconds):
        env.sleeps.append(seconds)
        raise Cancelled()

    env.sleep = interrupted_sleep
    out = env.run()
    assert out.error == "cancelled" and env.sent == 1 and out.status == 429
    assert "after HTTP 429" in out.message


def test_cancel_flag_set_during_wait_stops_before_next_attempt():
    env = Env([err(503), ok()], cancel_after_sleeps=1)
    out = env.run()
    assert out.error == "cancelled" and env.sent == 1 and out.total_ms == 1_100.0


def test_cancelled_before_start_sends_nothing():
    env = Env([ok()])
    env.cancel_flag = True
    out = env.run()
    assert out.error == "cancelled" and env.sent == 0 and out.retries == 0


def test_answer_arriving_after_cancel_is_kept():
    env = Env([ok()])

    async def answer_then_cancel(request):
        env.cancel_flag = True
        return ok()

    env.transport = answer_then_cancel
    out = env.run()
    assert out.error is None and out.reply is not None


# ---------------------------------------------------------------- not retried


@pytest.mark.parametrize(
    ("response", "error"),
    [(err(404, "not_found_error", "model: claude-nope"), "bad_request"),
     (err(400, "invalid_request_error"), "bad_request"),
     (HttpResponse(200, {}, "<html>portal</html>"), "bad_response")],
    ids=["404", "400", "html-200"],
)
def test_request_errors_are_not_retried(response, error):
    env = Env([response, ok()])
    out = env.run()
    assert out.error == error and env.sent == 1 and not out.stops_run and out.answer_ms == 100.0


def test_transport_bug_still_ends_in_an_outcome():
    env = Env([TypeError(f"bad JsProxy {KEY}"), ok()])
    out = env.run()
    assert out.error == "network" and env.sent == 1 and "TypeError" in out.message
    assert_no_key(out)


def test_network_message_never_contains_the_key():
    env = Env([NetworkError(f"failed with header x-api-key: {KEY}")] * 3)
    out = env.run()
    assert out.error == "network"
    assert_no_key(out)


def test_policy_validation():
    with pytest.raises(ValueError):
        RetryPolicy(max_attempts=0)
    with pytest.raises(ValueError):
        RetryPolicy(base_delay_s=5, max_delay_s=1)
    assert [DEFAULT_POLICY.backoff_s(i) for i in range(7)] == [1, 2, 4, 8, 16, 30, 30]


# ---------------------------------------------------------------- invariants over random scripts

EVENTS = {
    "ok": ok(),
    "401": err(401, "authentication_error"),
    "402": err(402, "billing_error"),
    "404": err(404, "not_found_error"),
    "429": err(429, "rate_limit_error"),
    "429h": err(429, "rate_limit_error", headers={"retry-after": "45"}),
    "500": err(500),
    "529": err(529, "overloaded_error"),
    "net": "net",
}


@settings(max_examples=400, deadline=None)
@given(
    script=st.lists(st.sampled_from(sorted(EVENTS)), min_size=6, max_size=6),
    max_attempts=st.integers(1, 5),
    network_retries=st.integers(0, 3),
)
def test_call_invariants(script, max_attempts, network_retries):
    items = [NetworkError("down") if EVENTS[s] == "net" else EVENTS[s] for s in script]
    env = Env(items, latency_ms=50.0)
    policy = RetryPolicy(max_attempts=max_attempts, network_retries=network_retries)
    out = env.run(policy=policy)
    used = script[: env.sent]
    assert 1 <= env.sent <= max_attempts
    assert used.count("net") <= network_retries + 1
    assert out.retries == len(env.sleeps) == env.sent - 1
    assert all(0 <= s <= policy.max_delay_s for s in env.sleeps)
    assert out.total_ms == pytest.approx(50.0 * env.sent + 1000.0 * sum(env.sleeps))
    assert (out.reply is not None) == (out.error is None) == (used[-1] == "ok")
    assert out.stops_run == (out.error in ("auth", "quota"))
    # Only retryable failures are ever followed by another attempt.
    assert all(s in ("429", "429h", "500", "529", "net") for s in used[:-1])
    if out.error == "network":
        assert out.answer_ms is None
    else:
        assert out.answer_ms == 50.0
