"""The API key in replies, escapes, short dummy keys and plain-http URLs (pyapp.providers.keyguard, DR-005).

Calls run through the real ``explain`` (and a model judge's through the real judging loop, DR-012) with a fake
transport and clock; the
checks on stored entries decode JSON independently of pyapp.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eval_helpers import call
from explain_samples import answer_from_prompt
from judge_design import verdict_text
from key_checks import key_recoverable
from live_call import explain_case
from live_call import judge_once as live_judge_once
from pyapp.auditlog.format import CALL_DRIFT_KEYS, CALL_KEYS
from pyapp.auditlog.validation import validate_entry
from pyapp.evaluation.evalset import FIXED_SETS, case_prompt
from pyapp.evaluation.rebuild import rebuild
from pyapp.explanation.rubric import RUBRIC
from pyapp.explanation.schema import load_schema
from pyapp.providers.api import build_request
from pyapp.providers.client import HttpResponse
from pyapp.providers.keyguard import (
    MIN_SECRET_LENGTH,
    WITHHELD,
    contains_secret,
    redact,
    scrub_secret,
    scrub_text,
    secret_variants,
)
from pyapp.providers.settings import Settings

KEY = "sk-proj-ECHOsecret0123456789abcdef"
CASE = FIXED_SETS.case("C01")
PROMPT = case_prompt(CASE)


def escaped(text: str, how: list[int]) -> str:
    """``text`` as it could stand inside a JSON string: character i raw, \\uXXXX, or a short escape."""
    out = []
    for ch, choice in zip(text, how, strict=True):
        short = {'"': '\\"', "\\": "\\\\", "/": "\\/"}.get(ch)
        if choice == 0 and short is None:
            out.append(ch)
        elif choice == 1 and short is not None:
            out.append(short)
        else:
            out.append(f"\\u{ord(ch):04{'x' if choice == 2 else 'X'}}")
    return "".join(out)


# --------------------------------------------------------------------------- scrubbing, property-tested

KEY_CHARS = st.characters(min_codepoint=33, max_codepoint=126)
SAFE_TEXT = st.text(st.characters(min_codepoint=32, max_codepoint=0x2FF, exclude_characters='"\\'), max_size=30)


@settings(max_examples=400, deadline=None)
@given(key=st.text(KEY_CHARS, min_size=MIN_SECRET_LENGTH, max_size=40), data=st.data(), before=SAFE_TEXT,
       after=SAFE_TEXT, twice=st.booleans())
def test_scrubbed_text_holds_the_key_neither_raw_nor_decoded(key, data, before, after, twice):
    how = data.draw(st.lists(st.integers(0, 3), min_size=len(key), max_size=len(key)))
    inner = before + escaped(key, how) + after
    if twice:  # JSON text inside a JSON string: the key's escapes are escaped again
        inner = json.dumps(json.dumps({"walkthrough": json.loads(f'"{inner}"')}))[1:-1]
    answer = '{"result": [3], "walkthrough": "' + inner + '"}'
    assert key_recoverable(answer, key), "the generator must hide the key where decoding finds it"

    scrubbed = scrub_text(answer, secret_variants(key))

    assert key not in scrubbed
    assert not key_recoverable(scrubbed, key)
    assert scrub_text(scrubbed, secret_variants(key)) == scrubbed


def test_an_escaped_key_inside_json_is_redacted_value_by_value_and_the_rest_kept():
    hidden = "".join(f"\\u{ord(ch):04x}" for ch in KEY)
    answer = '{"result": [3, 4], "walkthrough": "your key ' + hidden + ' is here"}'
    scrubbed = scrub_text(answer, secret_variants(KEY))
    assert json.loads(scrubbed) == {"result": [3, 4], "walkthrough": "your key [redacted] is here"}


def test_an_escaped_key_in_text_that_is_not_json_withholds_the_whole_text():
    hidden = "".join(f"\\u{ord(ch):04x}" for ch in KEY)
    assert scrub_text('```json\n{"walkthrough": "' + hidden, secret_variants(KEY)) == WITHHELD


def test_contains_secret_finds_the_escaped_key_and_redact_withholds_it():
    hidden = "".join(f"\\u{ord(ch):04x}" for ch in KEY)
    assert contains_secret({"answer": f'{{"w": "{hidden}"}}'}, KEY)
    assert not contains_secret(scrub_secret({"answer": f'{{"w": "{hidden}"}}'}, KEY), KEY)
    assert KEY not in redact(f"The server said: {hidden}", KEY).encode().decode("unicode_escape")


# --------------------------------------------------------------------------- a reply that echoes the key


def openai_reply(content: str) -> HttpResponse:
    body = {"object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant",
            "content": content}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 10, "completion_tokens": 5}}
    return HttpResponse(200, {}, json.dumps(body))


def ask(response: HttpResponse, key: str = KEY):
    """One call of case C01 through the real ``explain``; the entries it appended and its result."""
    return explain_case(response, Settings("openai", "gpt-x", 4000, 0.0), key, CASE.case_id, run_id="run-echo")


@pytest.mark.parametrize("hide", [lambda key: key, lambda key: "".join(f"\\u{ord(ch):04x}" for ch in key)],
                         ids=["verbatim", "json-escaped"])
def test_a_reply_echoing_the_key_is_logged_once_without_it_and_graded_as_stored(hide):
    answer = answer_from_prompt(PROMPT.user)
    answer["walkthrough"] += " Your key is KEYHERE."
    appended, explained = ask(openai_reply(json.dumps(answer).replace("KEYHERE", hide(KEY))))

    [entry] = appended
    assert validate_entry(entry) == []
    assert not key_recoverable(json.dumps(entry), KEY)
    assert not key_recoverable(json.dumps(explained.to_json()), KEY)
    assert "[redacted]" in json.loads(entry["answer"])["walkthrough"]
    assert entry["outcome"] == "grounded", "the key was removed from the prose; the numbers still check"
    assert "contained the API key" in entry["message"]
    assert rebuild(appended).run("run-echo").case_result(CASE.case_id).outcome == entry["outcome"]


def test_an_echoed_key_that_breaks_the_answer_is_a_model_failure_at_call_time_and_on_rebuild():
    hidden = "".join(f"\\u{ord(ch):04x}" for ch in KEY)
    appended, _ = ask(openai_reply('```json\n{"walkthrough": "' + hidden + '"'))  # not JSON, so withheld whole
    [entry] = appended
    assert entry["answer"] == WITHHELD
    assert entry["outcome"] == "model_failure"
    assert rebuild(appended).run("run-echo").case_result(CASE.case_id).outcome == "model_failure"


@pytest.mark.parametrize("field", ["model", "system_fingerprint", "finish_reason"])
def test_a_key_echoed_in_the_replys_other_fields_is_logged_once_without_it(field):
    """Not only the answer: what the provider says answered and its stop reason are stored too (DR-008)."""
    reply = json.loads(openai_reply(json.dumps(answer_from_prompt(PROMPT.user))).body)
    reply |= {"model": "gpt-x-2026", "system_fingerprint": "fp_1"}
    where = reply["choices"][0] if field == "finish_reason" else reply
    where[field] = f"echo {KEY} echo"
    appended, _ = ask(HttpResponse(200, {}, json.dumps(reply)))

    [entry] = appended
    assert validate_entry(entry) == []
    assert not key_recoverable(json.dumps(entry), KEY)
    assert "echo [redacted] echo" in (entry["model_reported"], entry["system_fingerprint"], entry["raw_stop_reason"])


# --------------------------------------------------------------------------- a model judge that echoes the key


def judge_once(response: HttpResponse) -> dict:
    """One judge call about a counted answer of C01 through the real judging loop; the entry it appended."""
    [entry] = live_judge_once(response, Settings("openai", "gpt-judge", 1000, 0.0), KEY, [call("run-j", "C01")])
    assert validate_entry(entry) == []
    return entry


def verdict_reply(reason: str, **extra: object) -> HttpResponse:
    verdict = json.loads(verdict_text(dict.fromkeys(RUBRIC.keys, True)))
    verdict["answer"]["reason"] = reason
    return HttpResponse(200, {}, json.dumps({**json.loads(openai_reply(json.dumps(verdict)).body), **extra}))


@pytest.mark.parametrize("hide", [lambda key: key, lambda key: "".join(f"\\u{ord(ch):04x}" for ch in key)],
                         ids=["verbatim", "json-escaped"])
def test_a_judge_echoing_the_key_in_a_reason_is_logged_once_without_it(hide):
    entry = judge_once(verdict_reply(f"Your key is {hide(KEY)}."))
    assert not key_recoverable(json.dumps(entry), KEY)
    assert "contained the API key" in entry["message"]


def test_a_judge_echoing_the_key_as_its_model_or_in_an_error_is_logged_without_it():
    entry = judge_once(verdict_reply("Fine.", model=f"echo {KEY}"))
    assert entry["model_reported"] == "echo [redacted]" and not key_recoverable(json.dumps(entry), KEY)
    error = HttpResponse(400, {}, json.dumps({"error": {"message": f"bad key {KEY}", "type": "invalid_request"}}))
    entry = judge_once(error)
    assert entry["error"] == "bad_request" and not key_recoverable(json.dumps(entry), KEY)


# --------------------------------------------------------------------------- short dummy keys


@pytest.mark.parametrize("dummy", ["x", "k", "none", "EMPTY", "ollama", "1234567"])
def test_a_short_dummy_key_in_the_prompt_is_no_reason_to_refuse(dummy):
    settings = Settings("openai-compatible", "local-model", 4000, None, "http://127.0.0.1:8080/v1")
    request = build_request(settings, PROMPT, dummy, load_schema())
    assert request.headers["authorization"] == f"Bearer {dummy}"
    assert dummy in PROMPT.system + PROMPT.user or dummy in ("EMPTY", "ollama", "1234567")


def test_a_short_dummy_key_is_not_redacted_from_answers_but_never_stored_as_a_key():
    appended, _ = ask(openai_reply(json.dumps(answer_from_prompt(PROMPT.user))), key="x")
    [entry] = appended
    assert entry["outcome"] == "grounded"
    assert tuple(entry) == CALL_KEYS + CALL_DRIFT_KEYS and "x" not in entry["settings"].values()


def test_a_real_key_in_the_prompt_is_refused_with_what_to_do():
    word = max((w for w in PROMPT.user.split() if w.isascii()), key=len)
    assert len(word) >= MIN_SECRET_LENGTH
    with pytest.raises(ValueError) as refused:
        build_request(Settings("openai", "gpt-x", 4000, 0.0), PROMPT, word, load_schema())
    assert "appears in the prompt" in str(refused.value)
    assert "Check that the key field holds only your key" in str(refused.value)


# --------------------------------------------------------------------------- plain http to another computer


@pytest.mark.parametrize("url", ["http://192.168.1.20:8080/v1", "http://models.example/v1", "http://[2001:db8::1]/v1",
                                 "http://127.0.0.1.example/v1"])
def test_a_key_is_never_sent_over_plain_http_to_another_computer(url):
    settings = Settings("openai-compatible", "m", 4000, None, url)
    with pytest.raises(ValueError) as refused:
        build_request(settings, PROMPT, KEY, load_schema())
    assert "unencrypted" in str(refused.value) and "nothing was sent" in str(refused.value)
    assert KEY not in str(refused.value)
    assert build_request(settings, PROMPT, None, load_schema()).url == f"{url}/chat/completions"


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080/v1", "http://127.8.9.10/v1", "http://localhost:11434/v1",
                                 "http://LOCALHOST/v1", "http://[::1]:8080/v1", "https://models.example/v1"])
def test_loopback_and_https_base_urls_take_the_key_silently(url):
    request = build_request(Settings("openai-compatible", "m", 4000, None, url), PROMPT, KEY, load_schema())
    assert request.headers["authorization"] == f"Bearer {KEY}"
