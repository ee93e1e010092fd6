"""In Chromium: the key in replies, tabs and URLs, and runs under provider faults (DR-005, DR-006).

Providers are mocked at the network edge only (route interception, or the real
fake server of ``tests/support/fake_provider.py`` for the OpenAI-compatible path); the
page, the worker, Pyodide, pyapp and IndexedDB are the built site's.
"""

from __future__ import annotations

import json
import time

import pytest

from eval_page import KEY as EVAL_KEY
from eval_page import calls, open_eval, wait_run_end
from explain_samples import answer_from_prompt
from explorer_page import KEY, answered, faithful, fulfil, openai_completion, stall
from fake_provider import FakeProvider
from key_checks import key_recoverable
from pyapp.evaluation.evalset import FIXED_SETS, case_prompt

pytestmark = pytest.mark.browser

ANTHROPIC = "https://api.anthropic.com/v1/messages"
FAR_HOST = "192.0.2.10:8080"  # TEST-NET-1: never a real server
PROMPT_CASE = {(p.system, p.user): c.case_id for c in FIXED_SETS.cases() for p in [case_prompt(c)]}
STORED_KEY = "() => [sessionStorage.getItem('kd-explorer-api-key'), localStorage.getItem('kd-explorer-api-key')]"


def escaped(key: str) -> str:
    return "".join(f"\\u{ord(ch):04x}" for ch in key)


# --------------------------------------------------------------------------- the key in a reply


def test_a_reply_echoing_the_key_is_logged_once_with_the_key_removed(ui):
    answer = faithful(ui.page)
    answer["walkthrough"] += f" Your key is {KEY}."
    entry = ui.explain("anthropic", [answered("anthropic", answer)])

    assert ui.shown_outcome() == "grounded"
    assert "Your key is [redacted]." in ui.page.inner_text("#prose")
    assert "contained the API key" in entry["message"]
    ui.assert_key_nowhere()


def test_a_reply_echoing_the_key_json_escaped_is_neither_stored_nor_shown_nor_exported(ui):
    answer = faithful(ui.page)
    answer["walkthrough"] += " Your key is KEYHERE."
    content = json.dumps(answer).replace("KEYHERE", escaped(KEY))
    entry = ui.explain("openai", [fulfil(200, openai_completion({"content": content}, "stop"))])

    assert ui.shown_outcome() == "grounded"
    assert "Your key is [redacted]." in ui.page.inner_text("#prose")
    assert not key_recoverable(json.dumps(entry), KEY)
    assert not key_recoverable(ui.export_text(), KEY)
    ui.assert_key_nowhere()


# --------------------------------------------------------------------------- a stalled provider


def test_a_stalled_provider_shows_the_attempt_and_the_seconds_waited_and_cancel_still_works(ui):
    page = ui.page
    before = ui.start("anthropic", [stall])
    page.wait_for_selector("#explain-status:has-text('attempt 1 of 4, 2 s waiting for the answer')", timeout=15_000)
    assert "Asking the model" in page.inner_text("#explain-status")
    assert "gives up at 60 s" in page.inner_text("#explain-status")
    clicked = time.monotonic()
    page.click("#cancel-explain")
    entry = ui.finish(before, timeout=10_000)
    assert time.monotonic() - clicked < 3
    assert entry["outcome"] == "cancelled" and len(ui.sent) == 1
    ui.assert_key_nowhere()


# --------------------------------------------------------------------------- where the key may go


def test_a_key_is_not_sent_over_plain_http_to_another_computer(ui):
    page = ui.page
    ui.configure("openai-compatible", base_url=f"http://{FAR_HOST}/v1")
    before = len(ui.audit())
    page.click("#explain")
    page.wait_for_selector("#explain-status:has-text('No call was made')", timeout=15_000)

    status = page.inner_text("#explain-status")
    assert "unencrypted" in status and "https://" in status and "127.0.0.1" in status
    assert len(ui.audit()) == before
    assert [url for url in ui.urls if FAR_HOST in url] == []
    ui.assert_key_nowhere()


def test_forget_key_in_one_tab_clears_every_tab_and_no_tab_writes_it_back(browser, site):
    context = browser.new_context()
    sent = []
    context.route(ANTHROPIC, lambda route: (sent.append(route.request.headers), route.abort("failed")))
    try:
        first, second = context.new_page(), context.new_page()
        for page in (first, second):
            page.goto(site.url + "explorer/")
            page.wait_for_selector("body[data-explorer-ready='true']", timeout=90_000)
            page.select_option("#provider", "anthropic")
            page.fill("#model", "claude-test-model")
            page.fill("#api-key", KEY)
            page.check("#remember-key")
        assert second.evaluate(STORED_KEY) == [None, KEY]

        first.click("#forget-key")
        second.wait_for_selector("#settings-message:has-text('forgotten in another tab')", timeout=5_000)
        assert second.input_value("#api-key") == "" and not second.is_checked("#remember-key")

        second.click("#explain")  # the other tab's next call
        second.wait_for_selector("#explain-status:has-text('No call was made')", timeout=15_000)
        assert first.evaluate(STORED_KEY) == second.evaluate(STORED_KEY) == [None, None]
        assert sent == []
    finally:
        context.close()


def test_a_short_dummy_key_for_a_local_server_is_sent_and_the_call_logged(ui_unrouted):
    ui = ui_unrouted
    with FakeProvider() as fake:
        entry = ui.explain("openai-compatible", [], key="x", base_url=fake.base_url)
        [post] = fake.requests("POST")

    assert ui.shown_outcome() == "grounded" and entry["outcome"] == "grounded"
    assert post.headers["authorization"] == "Bearer x"


def test_a_server_elsewhere_is_blocked_by_the_site_policy_and_the_message_says_so(ui_unrouted):
    """Without a key nothing secret is at stake: the request is tried, and the browser refuses it (connect-src)."""
    ui = ui_unrouted
    entry = ui.explain("openai-compatible", [], key=None, base_url=f"http://{FAR_HOST}/v1")

    assert entry["outcome"] == "infrastructure_failure"
    status = ui.page.inner_text("#explain-status")
    assert f"Could not reach {FAR_HOST}" in status and "security policy" in status
    assert "the request failed" in status, "refused at once by the browser, not timed out"
    assert [url for url in ui.urls if FAR_HOST in url] == [], "blocked before any request left the page"


# --------------------------------------------------------------------------- runs under provider faults



def test_a_provider_that_dies_mid_run_stops_the_run_and_never_calls_it_complete(context, site):
    asked = []

    def provider(route):
        body = json.loads(route.request.post_data)
        case_id = PROMPT_CASE[(body["system"], body["messages"][0]["content"])]
        asked.append(case_id)
        if case_id in ("C01", "C02"):
            route.fulfill(status=200, content_type="application/json", body=json.dumps({
                "type": "message", "stop_reason": "tool_use", "usage": {"input_tokens": 10, "output_tokens": 5},
                "content": [{"type": "tool_use", "id": "t", "name": "search_explanation",
                             "input": answer_from_prompt(body["messages"][0]["content"])}]}))
        else:
            route.abort("failed")

    context.route(ANTHROPIC, provider)
    page = open_eval(context, site)
    page.click("#start-run")
    status = wait_run_end(page, 60_000)

    assert "stopped after 5 of 20 cases" in status and "3 calls in a row got no answer" in status
    assert "every case" not in status
    assert sorted(set(asked)) == list(FIXED_SETS.case_ids())[:5]
    assert [e["outcome"] for e in calls(page)] == ["grounded"] * 2 + ["infrastructure_failure"] * 3
    assert EVAL_KEY not in status


def test_a_stalled_case_shows_its_attempt_and_seconds_and_cancel_ends_the_run(context, site):
    context.route(ANTHROPIC, lambda route: None)  # never answered
    page = open_eval(context, site)
    page.click("#start-run")
    # The seconds count up once a second; a loaded machine may show 3 s where a quiet one shows 2 s.
    stalled = r"^Asking C01 \(1 of 20\): attempt 1 of 4, ([2-9]|\d\d+) s waiting for the answer \(gives up at 60 s\)\.$"
    page.wait_for_function("(pattern) => new RegExp(pattern).test(document.getElementById('run-status').textContent)",
                           arg=stalled, timeout=15_000)
    page.click("#cancel-run")
    assert "cancelled" in wait_run_end(page, 10_000)
    assert [e["outcome"] for e in calls(page)] == ["cancelled"]
