"""Several calls of a run in flight at once (``run --concurrency``, DR-008): the same run as one call at a time,
latencies of each request alone, and one back-off for all when any call is told to wait."""

from __future__ import annotations

import asyncio
import time

import pytest

from cli_run import main_in_thread
from fake_provider import FakeProvider, faithful_reply
from fake_transport import KEY, SETTINGS, answer
from live_call import run_async
from pyapp.asking.runner import run_eval
from pyapp.evaluation.evalset import FIXED_SETS
from pyapp.evaluation.export import parse_import
from pyapp.evaluation.rebuild import rebuild
from pyapp.providers.client import HttpResponse

LATENCY_S = 0.2


def slow_reply(body: dict) -> dict:
    time.sleep(LATENCY_S)  # the server's threads answer side by side
    return faithful_reply(body)


def test_a_run_asked_four_at_a_time_rebuilds_as_the_same_run_asked_one_at_a_time(tmp_path):
    logs = {n: tmp_path / f"c{n}.jsonl" for n in (1, 4)}
    with FakeProvider(slow_reply) as fake:
        for n, log in logs.items():
            assert main_in_thread(["run", "--provider", "openai-compatible", "--model", "fake-model", "--base-url",
                                   fake.base_url, "--log", str(log), "--concurrency", str(n)]) == 0
        assert len(fake.requests("POST")) == 40
    (serial,), (parallel,) = (rebuild(parse_import(logs[n].read_bytes())) for n in (1, 4))
    assert [c.case_id for c in parallel.graded] == list(FIXED_SETS.case_ids())
    assert [(c.case_id, c.outcome, c.calls) for c in parallel.cases] == [
        (c.case_id, c.outcome, c.calls) for c in serial.cases]
    entries = parse_import(logs[4].read_bytes())  # one whole line a call
    assert len(entries) == 20 and len({e["case_id"] for e in entries}) == 20
    # Each latency is its own request's: never the time a case waited for a free slot.
    assert all(LATENCY_S * 1000 <= e["answer_ms"] < LATENCY_S * 1000 * 2.5 for e in entries)


def test_a_rate_limit_met_by_one_call_holds_every_call_of_the_run():
    sent: list[float] = []
    limited: list[float] = []

    async def transport(request):
        sent.append(time.monotonic())
        await asyncio.sleep(0.05)
        if not limited:
            limited.append(time.monotonic())
            return HttpResponse(429, {"retry-after-ms": "300"}, '{"error": {"message": "slow down"}}')
        return answer(request)

    entries: list[dict] = []

    async def append(new):
        entries.extend(new)

    async def go():
        return await run_eval("run-c", True, SETTINGS, KEY, read_run=None, append=append, emit=lambda _: None,
                              cancelled=lambda: False, transport=transport, sleep=asyncio.sleep,
                              clock=lambda: time.monotonic() * 1000, concurrency=3)

    result = run_async(go())
    assert result["stopped"] is None and len(entries) == 20
    after = [at for at in sent if at > limited[0]]
    assert len(sent) == 21 and len(after) == 21 - 3  # three were in flight when the 429 came
    assert min(after) >= limited[0] + 0.3 - 0.01, "no call of the run was sent while the hold was on"
    [run] = rebuild(entries)
    assert run.complete and [c.outcome for c in run.graded] == ["grounded"] * 20




@pytest.mark.parametrize("concurrency", [1, 3])
def test_an_entry_that_cannot_be_stored_ends_the_run_and_no_waiting_case_starts(concurrency):
    asked: list[float] = []

    async def transport(request):
        asked.append(time.monotonic())
        await asyncio.sleep(0.02)
        return answer(request)

    async def append(new):
        raise OSError("No space left on device")

    async def go():
        return await run_eval("run-f", True, SETTINGS, KEY, read_run=None, append=append, emit=lambda _: None,
                              cancelled=lambda: False, transport=transport, sleep=asyncio.sleep,
                              clock=lambda: time.monotonic() * 1000, concurrency=concurrency)

    with pytest.raises(OSError):
        run_async(go())
    assert len(asked) == concurrency, "only the calls already in flight were sent"
