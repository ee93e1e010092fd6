"""Runs and calls under provider faults: a provider that dies, one that stalls (DR-005, DR-006).

The real runner and client with a fake transport, sleep and clock; the browser
edge's ``transport`` with the worker's modules stood in for (``worker`` in conftest.py).
"""

from __future__ import annotations

import json

import pytest

from fake_transport import KEY, SETTINGS, Provider, answer
from live_call import run_async
from pyapp.asking.runner import MAX_FAILURES_IN_A_ROW
from pyapp.browser import worker_io as browser
from pyapp.evaluation.evalset import FIXED_SETS, case_prompt
from pyapp.explanation.schema import load_schema
from pyapp.providers.api import build_request
from pyapp.providers.client import (
    ASKING,
    DEFAULT_POLICY,
    WAITING,
    Cancelled,
    HttpResponse,
    NetworkError,
    Progress,
    TimedOut,
    call,
)

# --------------------------------------------------------------------------- a provider that dies mid-run


def test_a_provider_that_dies_mid_run_stops_the_run_after_three_failed_cases():
    provider = Provider(dies_after=2)
    result, logged, events, _ = provider.run()

    calls = [e for e in logged if e["type"] == "call"]
    assert [e["outcome"] for e in calls] == ["grounded"] * 2 + ["infrastructure_failure"] * MAX_FAILURES_IN_A_ROW
    assert sorted(set(provider.asked)) == list(FIXED_SETS.case_ids())[:5], \
        "nothing after the third failed case is asked"
    assert "3 calls in a row got no answer" in result["stopped"]
    assert result["message"].startswith("Run run-faults stopped after 5 of 20 cases")
    assert "every case" not in result["message"]
    assert KEY not in json.dumps([result, logged, events])


def test_one_failure_between_answers_does_not_stop_the_run_but_is_never_called_complete():
    result, logged, _, _ = Provider(fails={"C04"}).run()
    assert len([e for e in logged if e["type"] == "call"]) == 20
    assert result["stopped"] is None
    assert "every case" not in result["message"]
    assert "1 got no answer" in result["message"] and "continue the run" in result["message"]


def test_a_run_with_every_answer_says_so():
    result, _, _, _ = Provider().run()
    assert result["message"] == "Run run-faults has an answer for every case it asked."


# --------------------------------------------------------------------------- a stalled provider


def request():
    return build_request(SETTINGS, case_prompt(FIXED_SETS.cases()[0]), KEY, load_schema())


def test_a_stalled_request_is_sent_at_most_twice_and_each_gets_60_seconds():
    sent, now = [], [0.0]

    async def transport(req):
        sent.append(now[0])
        now[0] += DEFAULT_POLICY.request_timeout_s * 1000  # the transport gave up at the limit
        raise TimedOut("no answer within 60 s")

    async def sleep(seconds):
        now[0] += seconds * 1000

    outcome = run_async(call(request(), transport, sleep=sleep, clock=lambda: now[0]))

    assert DEFAULT_POLICY.request_timeout_s == 60
    assert len(sent) == 2
    assert (outcome.error, outcome.retries) == ("network", 1)
    assert outcome.total_ms <= 2 * 60_000 + DEFAULT_POLICY.backoff_s(0) * 1000
    assert "no answer within 60 s" in outcome.message and "Tried 2 times" in outcome.message


def test_progress_names_each_attempt_and_wait_with_the_time_elapsed():
    script = [HttpResponse(529, {}, json.dumps({"type": "error", "error": {"type": "overloaded_error"}})), None]
    seen, now = [], [1_000.0]

    async def transport(req):
        now[0] += 2_500
        item = script.pop(0)
        return item or answer(req)

    async def sleep(seconds):
        now[0] += seconds * 1000

    run_async(call(request(), transport, sleep=sleep, clock=lambda: now[0], progress=seen.append))

    assert [(p.phase, p.attempt) for p in seen] == [(ASKING, 1), (WAITING, 1), (ASKING, 2)]
    assert seen[0].text(seen[0].since_ms + 12_400) == "attempt 1 of 4, 12 s waiting for the answer (gives up at 60 s)"
    assert seen[1].text(seen[1].since_ms) == "attempt 1 of 4 failed; trying again in 1 s"


def test_the_runner_labels_progress_with_the_case_and_clears_it_after_each_call():
    _, _, events, progress = Provider().run()
    assert progress[0][0] == "Asking C01 (1 of 20)" and isinstance(progress[0][1], Progress)
    assert progress[1] == ("Asking C01 (1 of 20)", None)
    assert [e["text"] for e in events if e["type"] == "case-start"][:2] == ["Asking C01 (1 of 20).",
                                                                           "Asking C02 (2 of 20)."]


# --------------------------------------------------------------------------- the browser edge's transport


class AbortError(Exception):
    """Named like the error ``pyfetch`` raises when its signal aborts the request."""


def test_the_browser_transport_gives_a_request_60_seconds_and_reports_a_timeout(worker):
    worker.fail = AbortError("signal timed out")
    with pytest.raises(TimedOut, match="no answer within 60 s"):
        run_async(browser.transport(request()))
    assert worker.signals == [60_000]


def test_the_browser_transport_reports_a_refused_request_as_a_network_error_and_a_cancel_as_cancelled(worker):
    worker.fail = AbortError("Failed to fetch")
    with pytest.raises(NetworkError) as failed:
        run_async(browser.transport(request()))
    assert not isinstance(failed.value, TimedOut)
    worker.cancel = True
    with pytest.raises(Cancelled):
        run_async(browser.transport(request()))
