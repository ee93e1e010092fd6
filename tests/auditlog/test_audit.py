"""Audit log entries: building, strict validation, and keeping the key out (pyapp.auditlog.entries)."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designed_logs import JSON
from live_call import run_async
from pyapp.auditlog.entries import call_entry, cancel_entry, decision_entry, new_entry_id, ungraded_outcome
from pyapp.auditlog.format import AUDIT_FORMAT, CALL_DRIFT_KEYS, CALL_KEYS, format_time
from pyapp.auditlog.validation import validate_entry
from pyapp.explanation.prompt import build_prompt
from pyapp.kdtree.search import search
from pyapp.providers.api import build_request
from pyapp.providers.client import CallOutcome, HttpResponse, NetworkError, call
from pyapp.providers.keyguard import contains_secret, scrub_secret
from pyapp.providers.settings import Settings
from pyapp.providers.wire import Reply

KEY = "sk-ant-api03-AUDITsecret0123456789ABCDEFGHIJ"
WHEN = datetime(2026, 12, 2, 16, 40, 5, 123456, tzinfo=UTC)
SEARCH = {"order": "file", "kind": "nearest", "lon": 24.945, "lat": 60.168, "radius": None}
PROMPT = build_prompt(search("file", "nearest", 24.945, 60.168))
SETTINGS = Settings("anthropic", "claude-sonnet-4-5", 2000, 0.0)
ANSWER = '{"result_ids": [1], "walkthrough": "Step 1 visits the root. <b>bold</b>"}'


def reply_outcome(text=ANSWER, stop="end", status=200):
    return CallOutcome(status, Reply(text, stop, 1200, 300, "tool_use" if stop == "end" else stop), None, "",
                       812.5, 2815.25, 1, False)


def failed_outcome(error="auth", status=401, message="The provider rejected the API key. (HTTP 401)"):
    answer_ms = 95.0 if status else None
    return CallOutcome(status, None, error, message, answer_ms, 95.0, 0, error in ("auth", "quota"))


def eval_call(**overrides):
    args = dict(entry_id=new_entry_id(), time=WHEN, run_id="run-1", case_id="C07",
                eval_set_version="explain-eval-v2", prompt=PROMPT, settings=SETTINGS,
                outcome=reply_outcome(), grade_outcome="grounded", failure=None)
    args.update(overrides)
    return call_entry(**args)


# ---------------------------------------------------------------- building


def test_call_entry_has_exactly_the_spec_fields():
    entry = eval_call()
    assert tuple(entry) == CALL_KEYS + CALL_DRIFT_KEYS
    assert entry["format"] == AUDIT_FORMAT == 1 and entry["type"] == "call"
    assert entry["time"] == "2026-12-02T16:40:05.123Z"
    assert (entry["run_id"], entry["case_id"]) == ("run-1", "C07")
    assert entry["eval_set_version"] == "explain-eval-v2"
    assert (entry["prompt_version"], entry["prompt_hash"]) == (PROMPT.version, PROMPT.hash)
    assert entry["settings"] == SETTINGS.to_dict()
    assert entry["status"] == 200 and entry["answer"] == ANSWER and entry["stop"] == "end"
    assert (entry["input_tokens"], entry["output_tokens"]) == (1200, 300)
    assert (entry["answer_ms"], entry["total_ms"], entry["retries"]) == (812.5, 2815.25, 1)
    assert entry["outcome"] == "grounded" and entry["error"] is None
    assert validate_entry(entry) == []
    assert json.loads(json.dumps(entry)) == entry


def test_explorer_call_stores_the_search():
    entry = eval_call(run_id=None, case_id=None, eval_set_version=None, search=SEARCH)
    assert entry["search"] == SEARCH and validate_entry(entry) == []
    with pytest.raises(ValueError, match="search: is required"):
        eval_call(run_id=None, case_id=None, eval_set_version=None)


def test_model_failure_keeps_full_text_and_tokens():
    text = '{"result_ids": [1], "walkthrough": "Step 1 vis'
    entry = eval_call(outcome=reply_outcome(text, "max_tokens"), grade_outcome="model_failure",
                      failure="truncated: the answer stopped at the token limit")
    assert entry["answer"] == text
    assert entry["stop"] == "max_tokens" and entry["raw_stop_reason"] == "max_tokens"
    assert (entry["input_tokens"], entry["output_tokens"]) == (1200, 300)
    assert entry["failure"].startswith("truncated")


def test_infrastructure_failure_entry():
    entry = eval_call(outcome=failed_outcome(), grade_outcome="infrastructure_failure", failure=None)
    assert entry["status"] == 401 and entry["answer"] is None and entry["error"] == "auth"
    assert entry["stop"] is None and entry["input_tokens"] is None
    assert "rejected the API key" in entry["message"]
    assert validate_entry(entry) == []


def test_cancelled_entry():
    out = CallOutcome(None, None, "cancelled", "Cancelled before an answer arrived.", None, 4000.0, 0, False)
    assert ungraded_outcome(out) == "cancelled"
    entry = eval_call(outcome=out, grade_outcome="cancelled", failure=None)
    assert entry["outcome"] == "cancelled" and entry["answer_ms"] is None and validate_entry(entry) == []


@pytest.mark.parametrize(
    ("outcome", "grade", "fragment"),
    [(failed_outcome(), "grounded", "without a reply is 'infrastructure_failure'"),
     (reply_outcome(), "infrastructure_failure", "must be graded"),
     (reply_outcome(), "cancelled", "must be graded"),
     (reply_outcome(), "great", "must be graded")],
    ids=["graded-without-reply", "infra-with-reply", "cancelled-with-reply", "unknown"],
)
def test_contradictions_are_refused(outcome, grade, fragment):
    with pytest.raises(ValueError, match=fragment):
        eval_call(outcome=outcome, grade_outcome=grade)


def test_oversized_answer_is_cut_and_says_so():
    text = "ä" * 600_000  # 1.2 MB in UTF-8
    entry = eval_call(outcome=reply_outcome(text), grade_outcome="model_failure", failure="invalid_json")
    assert len(entry["answer"].encode("utf-8")) == 1_000_000
    assert "1,200,000 bytes" in entry["message"] and validate_entry(entry) == []


def test_time_formats():
    helsinki = timezone(timedelta(hours=2))
    local = datetime(2026, 12, 2, 18, 0, 0, 999999, tzinfo=helsinki)
    assert format_time(local) == "2026-12-02T16:00:00.999Z"
    assert format_time("2026-12-02T16:00:00.000Z") == "2026-12-02T16:00:00.000Z"
    with pytest.raises(ValueError, match="timezone-aware"):
        format_time(datetime(2026, 12, 2))
    with pytest.raises(ValueError, match="is not"):
        format_time("2026-12-02 16:00")


def test_decision_and_cancel_entries():
    d = decision_entry("d1", WHEN, "c1", False, "Walkthrough skipped step 4.")
    assert d == {"format": 1, "id": "d1", "type": "decision", "time": "2026-12-02T16:40:05.123Z",
                 "call_id": "c1", "helpful": False, "note": "Walkthrough skipped step 4."}
    c = cancel_entry("x1", WHEN, "run-1", "C03")
    assert c["call_id"] is None and c["type"] == "cancel" and validate_entry(c) == []
    assert cancel_entry("x2", WHEN, "run-1", "C03", "c9")["call_id"] == "c9"
    with pytest.raises(ValueError, match="note: is longer than 10,000 bytes"):
        decision_entry("d2", WHEN, "c1", True, "n" * 10_001)
    with pytest.raises(ValueError, match="helpful"):
        decision_entry("d3", WHEN, "c1", 1, "")


def test_new_entry_ids_are_unique_hex():
    ids = {new_entry_id() for _ in range(500)}
    assert len(ids) == 500 and all(len(i) == 32 and int(i, 16) >= 0 for i in ids)


# ---------------------------------------------------------------- validation


def corrupt(field, value):
    entry = copy.deepcopy(eval_call())
    if value is DELETE:
        del entry[field]
    else:
        entry[field] = value
    return entry


DELETE = object()


@pytest.mark.parametrize(
    ("field", "value", "fragment"),
    [
        ("answer_ms", DELETE, "missing keys answer_ms"),
        ("api_key", KEY, "unknown keys api_key"),
        ("format", 2, "format: must be 1"),
        ("format", True, "format: must be 1"),
        ("id", "<img src=x onerror=alert(1)>", "id: must be"),
        ("id", "", "id: must be"),
        ("id", 7, "id: must be"),
        ("time", "2026-13-02T16:40:05.123Z", "time:"),
        ("time", "yesterday", "time:"),
        ("run_id", "r" * 65, "run_id: must be"),
        ("prompt_hash", "ABC", "prompt_hash:"),
        ("settings", {**SETTINGS.to_dict(), "api_key": KEY}, "settings: Settings: missing keys [], unknown"),
        ("settings", {**SETTINGS.to_dict(), "provider": "evil"}, "settings: Unknown provider"),
        ("status", 200.0, "status:"),
        ("status", 42, "status:"),
        ("answer", "x" * 1_000_001, "answer: is longer than 1,000,000 bytes"),
        ("answer", 5, "answer: must be text"),
        ("stop", "finished", "stop: must be one of"),
        ("input_tokens", -1, "input_tokens:"),
        ("output_tokens", True, "output_tokens:"),
        ("answer_ms", float("nan"), "answer_ms:"),
        ("total_ms", float("inf"), "total_ms:"),
        ("total_ms", None, "total_ms:"),
        ("retries", 1.0, "retries:"),
        ("outcome", "excellent", "outcome: must be one of"),
        ("outcome", "infrastructure_failure", "infrastructure_failure needs an error class"),
        ("error", "auth", "grounded needs an answer and a stop, and no error"),
        ("error", "teapot", "error: must be one of"),
        ("message", None, "message: must be text"),
        ("search", {"order": "file"}, "search: must be an object with exactly"),
        ("search", {**SEARCH, "lat": 95.0}, "search.lat:"),
        ("search", {**SEARCH, "radius": 0.001}, "search.radius: must be null"),
        ("search", {**SEARCH, "kind": "radius"}, "search.radius: a radius search needs"),
        ("search", {**SEARCH, "kind": "knn"}, "search.kind:"),
        ("case_id", None, "case_id: a call in a run needs"),
    ],
)
def test_validation_names_the_problem(field, value, fragment):
    problems = validate_entry(corrupt(field, value))
    assert problems, "a corrupt entry passed validation"
    assert any(fragment in p for p in problems), problems


@pytest.mark.parametrize("junk", [None, [], "call", 3, {"type": "bogus"}, {"type": ["call"]}, {}],
                         ids=["none", "list", "str", "int", "bogus-type", "list-type", "empty"])
def test_validation_rejects_non_entries(junk):
    assert validate_entry(junk)


def test_decision_validation():
    d = decision_entry("d1", WHEN, "c1", True, "")
    assert validate_entry({**d, "note": None}) == ["note: must be text"]
    assert validate_entry({**d, "call_id": None}) and validate_entry({**d, "extra": 1})


@settings(max_examples=300, deadline=None)
@given(field=st.sampled_from(CALL_KEYS), value=JSON)
def test_validation_never_raises_on_a_mutated_entry(field, value):
    entry = eval_call()
    entry[field] = value
    problems = validate_entry(entry)
    assert isinstance(problems, list) and all(isinstance(p, str) for p in problems)
    if not isinstance(value, str) and field in ("id", "time", "prompt_hash", "prompt_version", "message"):
        assert problems, f"{field}={value!r} passed"


@settings(max_examples=200, deadline=None)
@given(obj=JSON)
def test_validation_never_raises_on_junk(obj):
    assert validate_entry(obj) != [] or isinstance(obj, dict)


# ---------------------------------------------------------------- the key never lands in the log


def test_no_entry_from_a_real_call_contains_the_key():
    """Provider and network errors that echo the key still leave no trace of it."""
    req = build_request(SETTINGS, PROMPT, KEY, {"type": "object"})
    error = {"type": "authentication_error", "message": f"bad key {KEY}"}
    echo = json.dumps({"type": "error", "error": error})
    scripts = {
        "auth": [HttpResponse(401, {}, echo)],
        "network": [NetworkError(f"fetch failed, x-api-key={KEY}")] * 3,
        "html": [HttpResponse(200, {}, f"<html>{KEY}</html>")],
    }
    entries = []
    for script in scripts.values():
        items = list(script)
        now = [0.0]

        async def transport(request, items=items):
            item = items.pop(0)
            if isinstance(item, Exception):
                raise item
            return item

        async def sleep(s, now=now):
            now[0] += s * 1000

        out = run_async(call(req, transport, sleep=sleep, clock=lambda now=now: now[0]))
        assert out.reply is None
        entries.append(eval_call(outcome=out, grade_outcome=ungraded_outcome(out), failure=None))
    entries.append(decision_entry(new_entry_id(), WHEN, entries[0]["id"], False, "key rejected"))
    export = json.dumps({"format": AUDIT_FORMAT, "entries": entries})
    assert KEY not in export and not contains_secret(entries, KEY)
    assert all(validate_entry(e) == [] for e in entries)


def test_contains_secret_and_scrub():
    model_is_key = Settings("openai-compatible", KEY, 100, None, "http://127.0.0.1:8080/v1")
    entry = eval_call(settings=model_is_key)
    assert contains_secret(entry, KEY) and contains_secret([{"x": [f"..{KEY}.."]}], KEY)
    assert contains_secret({KEY: 1}, KEY) and contains_secret(entry, f"  {KEY}\n")
    assert not contains_secret(entry, None) and not contains_secret(entry, "")
    clean = scrub_secret(entry, KEY)
    assert not contains_secret(clean, KEY) and clean["settings"]["model"] == "[redacted]"
    assert validate_entry(clean) == [] and contains_secret(entry, KEY), "scrub must not modify its input"
    assert scrub_secret({"a": "redacted"}, "redacted") == {"a": "[hidden]"}


@settings(max_examples=200, deadline=None)
@given(key=st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=8, max_size=40),
       note=st.text(max_size=60))
def test_scrub_always_removes_the_key(key, note):
    entry = decision_entry("d1", WHEN, "c1", True, note + key + note)
    assert not contains_secret(scrub_secret(entry, key), key)
