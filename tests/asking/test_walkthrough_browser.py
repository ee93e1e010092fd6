"""Browser tests of "Explain this search": every call outcome, its audit entry, and where the key may go.

The providers are mocked only at the network edge: the browser context routes
``https://api.anthropic.com/**`` and ``https://api.openai.com/**`` to a queue of
scripted replies, and everything else (the page, the worker, Pyodide, pyapp,
IndexedDB) runs for real. Because route interception answers CORS by itself,
the OpenAI-compatible tests talk to ``tests/support/fake_provider.py``, a real HTTP
server on another 127.0.0.1 port, so the browser's own preflight is exercised.

One page is shared by the whole module (booting Python once); every test sets
the provider, model and key itself, and counts audit entries before and after
its own click.
"""

from __future__ import annotations

import json
import time

import pytest

from explorer_page import (
    KEY,
    MODELS,
    Reply,
    Sent,
    answered,
    anthropic_message,
    faithful,
    fulfil,
    openai_completion,
    page_prompt,
    page_search,
    stall,
)
from fake_provider import USAGE as FAKE_USAGE
from fake_provider import FakeProvider
from pyapp.auditlog.validation import validate_entry
from pyapp.explanation.prompt import prompt_hash
from pyapp.providers.client import DEFAULT_POLICY

pytestmark = pytest.mark.browser

TOKENS = {"anthropic": (5120, 410), "openai": (4980, 388)}
BACKOFF_MS = DEFAULT_POLICY.base_delay_s * 1000


# --------------------------------------------------------------------------- scripted replies


def abort(route) -> None:
    route.abort("failed")


def error(provider: str, status: int, kind: str, message: str, headers: dict | None = None) -> Reply:
    if provider == "anthropic":
        return fulfil(status, {"type": "error", "error": {"type": kind, "message": message}}, headers)
    return fulfil(status, {"error": {"message": message, "type": kind, "code": None}}, headers)


# --------------------------------------------------------------------------- the shared page


def sent_prompt_hash(sent: Sent) -> str:
    body = json.loads(sent.body)
    if "system" in body:  # Anthropic Messages
        return prompt_hash(body["system"], body["messages"][0]["content"])
    parts = {m["role"]: m["content"] for m in body["messages"]}
    return prompt_hash(parts["system"], parts["user"])


def assert_logged(entry: dict, page, provider: str, outcome: str, *, status: int | None,
                  tokens: tuple | None = None, base_url: str | None = None) -> None:
    """The call entry names the prompt, the settings, both latencies and the tokens the mock gave."""
    prompt = page_prompt(page)
    assert entry["outcome"] == outcome
    assert entry["prompt_hash"] == prompt.hash
    assert entry["prompt_version"] == prompt.version
    assert entry["settings"] == {"provider": provider, "model": MODELS[provider], "max_tokens": 4000,
                                 "temperature": 0.0, "base_url": base_url}
    assert entry["status"] == status
    assert entry["total_ms"] > 0
    if status is None:
        assert entry["answer_ms"] is None
    else:
        assert 0 < entry["answer_ms"] <= entry["total_ms"]
    assert (entry["input_tokens"], entry["output_tokens"]) == (tokens or (None, None))
    assert entry["search"]["order"] == page.input_value("#order")


# --------------------------------------------------------------------------- the two hosted providers


# Where each provider is asked, and the header that carries the key.
ENDPOINTS = {
    "anthropic": ("https://api.anthropic.com/v1/messages", "x-api-key", KEY),
    "openai": ("https://api.openai.com/v1/chat/completions", "authorization", f"Bearer {KEY}"),
}


@pytest.mark.parametrize("provider", list(ENDPOINTS))
def test_grounded_call_sends_the_prompt_and_the_key_in_its_header_and_logs_one_entry(ui, provider):
    page = ui.page
    entry = ui.explain(provider, [answered(provider, faithful(page))])

    assert ui.shown_outcome() == "grounded"
    assert_logged(entry, page, provider, "grounded", status=200, tokens=TOKENS[provider])
    [sent] = ui.sent
    url, header, value = ENDPOINTS[provider]
    assert (sent.url, sent.headers[header]) == (url, value)
    assert sent_prompt_hash(sent) == page_prompt(page).hash
    assert KEY not in sent.body
    if provider == "openai":
        assert json.loads(sent.body)["response_format"]["type"] == "json_schema"
    else:
        assert sent.headers["anthropic-dangerous-direct-browser-access"] == "true"
        assert [page.inner_text(f"#checks tr[data-check='{name}'] td:nth-child(2)") for name in
                ("result", "distance", "nodes_visited", "subtrees_pruned", "cited_steps")] == ["pass"] * 5
        assert page.inner_text("#prose") == faithful(page)["walkthrough"]
    ui.assert_key_nowhere()
    page.click("#refresh-audit")  # the audit view lists the call
    page.wait_for_selector(f"#audit-table tr[data-entry-id='{entry['id']}']")


def test_export_holds_the_explorer_calls(ui):
    entry = ui.explain("anthropic", [answered("anthropic", faithful(ui.page))])
    exported = json.loads(ui.export_text())
    assert entry["id"] in {e["id"] for e in exported["entries"]}


def test_radius_search_cut_at_150_steps_is_grounded_from_the_prompt_alone(ui):
    page = ui.page
    page.select_option("#order", "shuffled")
    page.select_option("#kind", "radius:0.003")
    expected = page_search(page)
    page.wait_for_selector(f"#step-count:text-is('{len(expected.trace)}')")
    prompt = page_prompt(page)
    assert prompt.cut and prompt.steps_sent == 150 < prompt.steps_total
    entry = ui.explain("openai", [answered("openai", faithful(page))])

    assert ui.shown_outcome() == "grounded"
    assert_logged(entry, page, "openai", "grounded", status=200, tokens=TOKENS["openai"])
    assert entry["search"] == {"order": "shuffled", "kind": "radius", "lon": float(page.input_value("#lon")),
                               "lat": float(page.input_value("#lat")), "radius": 0.003}
    assert sent_prompt_hash(ui.sent[0]) == prompt.hash
    ui.assert_key_nowhere()


# --------------------------------------------------------------------------- answers that fail the checks


def test_wrong_numbers_are_not_grounded_and_the_failed_checks_are_named(ui):
    page = ui.page
    answer = faithful(page)
    answer["nodes_visited"] += 1
    answer["subtrees_pruned"] += 2
    entry = ui.explain("anthropic", [answered("anthropic", answer)])

    assert ui.shown_outcome() == "not_grounded"
    assert_logged(entry, page, "anthropic", "not_grounded", status=200, tokens=TOKENS["anthropic"])
    assert page.inner_text("#outcome-detail") == "Failed: nodes_visited, subtrees_pruned."
    results = {name: page.inner_text(f"#checks tr[data-check='{name}'] td:nth-child(2)")
               for name in ("result", "nodes_visited", "subtrees_pruned")}
    assert results == {"result": "pass", "nodes_visited": "fail", "subtrees_pruned": "fail"}
    ui.assert_key_nowhere()


def test_message_content_that_is_not_json_is_a_model_failure(ui):
    page = ui.page
    prose = "Sure! The search starts at the root and finds the nearest business."
    entry = ui.explain("openai", [fulfil(200, openai_completion({"content": prose}, "stop"))])

    assert ui.shown_outcome() == "model_failure"
    assert_logged(entry, page, "openai", "model_failure", status=200, tokens=TOKENS["openai"])
    assert entry["answer"] == prose
    assert "not valid JSON" in entry["failure"]
    assert "not valid JSON" in page.inner_text("#outcome-detail")
    ui.assert_key_nowhere()


# An answer the provider cut at its token limit, and a refusal: (reply per provider, stop logged, words shown).
MODEL_FAILURES = {
    "truncated": ({
        "anthropic": lambda: fulfil(200, anthropic_message([{"type": "text", "text": '{"walkthrough": "The sea'}],
                                                           "max_tokens")),
        "openai": lambda: fulfil(200, openai_completion({"content": '{"walkthrough": "The sea'}, "length")),
    }, "max_tokens", "token limit"),
    "refusal": ({
        "anthropic": lambda: fulfil(200, anthropic_message([{"type": "text", "text": "I can't help with that."}],
                                                           "refusal")),
        "openai": lambda: fulfil(200, openai_completion({"content": None, "refusal": "I can't help with that."},
                                                        "stop")),
    }, "refusal", "declined"),
}


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
@pytest.mark.parametrize("failure", list(MODEL_FAILURES))
def test_an_answer_cut_at_the_token_limit_or_refused_is_a_model_failure(ui, provider, failure):
    replies, stop, words = MODEL_FAILURES[failure]
    entry = ui.explain(provider, [replies[provider]()])

    assert ui.shown_outcome() == "model_failure"
    assert_logged(entry, ui.page, provider, "model_failure", status=200, tokens=TOKENS[provider])
    assert entry["stop"] == stop
    assert words in ui.page.inner_text("#outcome-detail")
    ui.assert_key_nowhere()


def test_html_and_script_in_the_prose_are_shown_as_text_and_run_nothing(ui):
    page = ui.page
    payload = "Step 1 visits the root. <img src=x onerror=alert(1)> <script>alert(2)</script> Then step 2."
    answer = {**faithful(page), "walkthrough": payload}
    entry = ui.explain("anthropic", [answered("anthropic", answer)])

    assert ui.shown_outcome() == "grounded"
    assert_logged(entry, page, "anthropic", "grounded", status=200, tokens=TOKENS["anthropic"])
    prose = page.inner_text("#prose")
    assert "<img src=x onerror=alert(1)>" in prose
    assert "<script>alert(2)</script>" in prose
    assert page.locator("#prose img").count() == 0
    assert page.locator("#prose script").count() == 0
    page.wait_for_timeout(300)  # an onerror handler would have fired by now
    assert ui.dialogs == []
    assert [url for url in ui.urls if url.endswith("/x")] == []
    ui.assert_key_nowhere()


# --------------------------------------------------------------------------- infrastructure failures


@pytest.mark.parametrize(("provider", "status", "kind"), [
    ("anthropic", 401, "authentication_error"),
    ("openai", 401, "invalid_request_error"),
    ("anthropic", 403, "permission_error"),
    ("openai", 403, "permission_error"),
])
def test_rejected_key_is_an_infrastructure_failure_after_one_request(ui, provider, status, kind):
    # The provider's message quotes the key, as OpenAI's "Incorrect API key provided" does, and some markup.
    said = f"Incorrect API key provided: {KEY}. <img src=x onerror=alert(1)>"
    entry = ui.explain(provider, [error(provider, status, kind, said)])

    page = ui.page
    assert ui.shown_outcome() == "infrastructure_failure"
    assert_logged(entry, page, provider, "infrastructure_failure", status=status)
    assert len(ui.sent) == 1
    assert entry["error"] == "auth"
    assert "rejected the API key" in entry["message"]
    # Told once, in the status line: no empty answer layout, and no run to stop on the explorer.
    assert "rejected the API key" in page.inner_text("#explain-status")
    assert page.inner_text("#walkthrough").count("rejected the API key") == 1
    assert page.is_hidden("#explanation")
    assert "stops here" not in page.inner_text("body")
    assert "<img src=x onerror=alert(1)>" in page.inner_text("#explain-status")
    assert page.locator("#walkthrough img").count() == 0
    assert ui.dialogs == []
    ui.assert_key_nowhere()


@pytest.mark.parametrize("retry_after", ["0", "1"])
def test_rate_limit_with_retry_after_waits_as_told_then_grades_the_answer(ui, retry_after):
    page = ui.page
    limited = error("anthropic", 429, "rate_limit_error", "Slow down.", {"retry-after": retry_after})
    entry = ui.explain("anthropic", [limited, answered("anthropic", faithful(page))])

    assert ui.shown_outcome() == "grounded"
    assert_logged(entry, page, "anthropic", "grounded", status=200, tokens=TOKENS["anthropic"])
    assert len(ui.sent) == 2
    assert entry["retries"] == 1
    # The hint, not the 1 s default backoff, sets the wait: 0 s is well under it.
    assert (entry["total_ms"] < BACKOFF_MS) if retry_after == "0" else (entry["total_ms"] >= 1000)
    ui.assert_key_nowhere()


def test_rate_limit_without_retry_after_gives_up_after_the_bounded_attempts(ui):
    limited = error("openai", 429, "requests", "Rate limit reached.")
    entry = ui.explain("openai", [limited])

    assert ui.shown_outcome() == "infrastructure_failure"
    assert_logged(entry, ui.page, "openai", "infrastructure_failure", status=429)
    attempts = DEFAULT_POLICY.max_attempts
    assert len(ui.sent) == attempts
    assert entry["retries"] == attempts - 1
    assert entry["error"] == "rate_limit"
    waits_ms = sum(DEFAULT_POLICY.backoff_s(i) for i in range(attempts - 1)) * 1000  # 1 + 2 + 4 s
    assert entry["total_ms"] >= waits_ms
    assert f"Gave up after {attempts} attempts" in entry["message"]
    ui.assert_key_nowhere()


@pytest.mark.parametrize(("status", "kind"), [(500, "api_error"), (529, "overloaded_error")])
def test_server_error_then_answer_is_retried_and_graded(ui, status, kind):
    page = ui.page
    entry = ui.explain("anthropic", [error("anthropic", status, kind, "Try again."),
                                     answered("anthropic", faithful(page))])

    assert ui.shown_outcome() == "grounded"
    assert_logged(entry, page, "anthropic", "grounded", status=200, tokens=TOKENS["anthropic"])
    assert len(ui.sent) == 2
    assert entry["retries"] == 1
    # answer_ms is the answering request alone; total_ms includes the failed one and the wait.
    assert entry["total_ms"] >= BACKOFF_MS > entry["answer_ms"]
    ui.assert_key_nowhere()


def test_network_failure_every_time_is_an_infrastructure_failure(ui):
    entry = ui.explain("anthropic", [abort])

    assert ui.shown_outcome() == "infrastructure_failure"
    assert_logged(entry, ui.page, "anthropic", "infrastructure_failure", status=None)
    assert len(ui.sent) == DEFAULT_POLICY.network_retries + 1
    assert entry["error"] == "network"
    assert "Could not reach api.anthropic.com" in ui.page.inner_text("#explain-status")
    ui.assert_key_nowhere()


def test_stalled_response_is_cancelled_within_seconds(ui):
    page = ui.page
    before = ui.start("anthropic", [stall])
    for _ in range(200):
        if ui.sent:
            break
        page.wait_for_timeout(50)
    assert len(ui.sent) == 1
    clicked = time.monotonic()
    page.click("#cancel-explain")
    entry = ui.finish(before, timeout=10_000)
    assert time.monotonic() - clicked < 3

    assert ui.shown_outcome() == "cancelled"
    assert_logged(entry, page, "anthropic", "cancelled", status=None)
    assert entry["error"] == "cancelled"
    assert entry["answer"] is None
    ui.assert_key_nowhere()


def test_cancel_during_a_retry_wait_ends_the_call_without_another_request(ui):
    page = ui.page
    before = ui.start("openai", [error("openai", 429, "requests", "Rate limit reached.")])
    for _ in range(200):
        if ui.sent:
            break
        page.wait_for_timeout(50)
    page.wait_for_timeout(200)  # now inside the 1 s wait before the first retry
    page.click("#cancel-explain")
    entry = ui.finish(before, timeout=10_000)
    page.wait_for_timeout(2 * BACKOFF_MS)  # a retry that slipped through would have been sent by now

    assert ui.shown_outcome() == "cancelled"
    assert len(ui.sent) == 1
    assert (entry["status"], entry["error"], entry["retries"]) == (429, "cancelled", 1)
    assert entry["answer_ms"] is None and entry["total_ms"] < BACKOFF_MS
    ui.assert_key_nowhere()


# --------------------------------------------------------------------------- the visitor's side


def test_human_decision_is_appended_as_an_entry_pointing_at_the_call(ui):
    page = ui.page
    call = ui.explain("anthropic", [answered("anthropic", faithful(page))])
    before = len(ui.audit())
    page.check("#decision-form input[value='no']")
    page.fill("#decision-note", "It never says why step 3 skips a subtree.")
    page.click("#decision-form button[type='submit']")
    page.wait_for_selector("#decision-status:has-text('Recorded in the audit log.')")

    new = ui.audit()[before:]
    assert len(new) == 1
    assert validate_entry(new[0]) == []
    assert {k: new[0][k] for k in ("type", "call_id", "helpful", "note")} == {
        "type": "decision", "call_id": call["id"], "helpful": False,
        "note": "It never says why step 3 skips a subtree."}
    assert ui.audit()[before - 1]["id"] == call["id"]  # the call itself is left as it was
    ui.assert_key_nowhere()


def test_remember_keeps_the_key_in_local_storage_and_forget_clears_both(ui):
    page = ui.page
    name = "kd-explorer-api-key"
    storage = f"() => [sessionStorage.getItem('{name}'), localStorage.getItem('{name}')]"
    ui.configure("anthropic")
    page.dispatch_event("#api-key", "change")
    assert page.evaluate(storage) == [KEY, None]

    page.check("#remember-key")
    assert page.evaluate(storage) == [None, KEY]
    ui.assert_key_nowhere(remembered=True)

    page.click("#forget-key")
    assert page.evaluate(storage) == [None, None]
    assert page.input_value("#api-key") == ""
    assert not page.is_checked("#remember-key")
    assert "forgotten" in page.inner_text("#settings-message")
    ui.assert_key_nowhere()


# --------------------------------------------------------------------------- a real server, real CORS


def test_openai_compatible_server_gets_a_real_preflight_and_the_bearer_key(ui_unrouted, site):
    ui = ui_unrouted
    page = ui.page
    with FakeProvider() as fake:
        entry = ui.explain("openai-compatible", [], base_url=fake.base_url)
        preflights, posts = fake.requests("OPTIONS"), fake.requests("POST")

    assert ui.shown_outcome() == "grounded"
    assert_logged(entry, page, "openai-compatible", "grounded", status=200, base_url=fake.base_url,
                  tokens=(FAKE_USAGE["prompt_tokens"], FAKE_USAGE["completion_tokens"]))
    [preflight] = preflights
    assert preflight.path == "/v1/chat/completions"
    assert preflight.headers["access-control-request-method"] == "POST"
    asked = {h.strip() for h in preflight.headers["access-control-request-headers"].split(",")}
    assert asked == {"authorization", "content-type"}
    [post] = posts
    assert post.headers["authorization"] == f"Bearer {KEY}"
    assert post.headers["origin"] == site.origin
    assert prompt_hash(*[m["content"] for m in json.loads(post.body)["messages"]]) == page_prompt(page).hash
    ui.assert_key_nowhere()


def test_openai_compatible_server_without_a_key_gets_no_authorization_header(ui_unrouted):
    ui = ui_unrouted
    with FakeProvider() as fake:
        entry = ui.explain("openai-compatible", [], key=None, base_url=fake.base_url)
        preflights, posts = fake.requests("OPTIONS"), fake.requests("POST")

    assert ui.shown_outcome() == "grounded"
    assert entry["outcome"] == "grounded"
    [preflight] = preflights
    assert preflight.headers["access-control-request-headers"] == "content-type"
    [post] = posts
    assert "authorization" not in post.headers
