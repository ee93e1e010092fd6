"""Provider requests and reply parsing (pyapp.providers: api, anthropic, openai, errors, settings)."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pyapp.providers import keyguard, wire
from pyapp.providers.api import build_request, parse_response
from pyapp.providers.errors import ProviderError
from pyapp.providers.settings import PROVIDERS, Settings
from pyapp.providers.wire import HttpRequest, Reply

KEY = "sk-ant-api03-SECRETsecretSECRET0123456789abcdef"
OAI_KEY = "sk-proj-TOPSECRET0123456789abcdefXYZ"
SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {"result": {"type": "integer"}},
    "required": ["result"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class FakePrompt:
    system: str = "You explain k-d tree searches."
    user: str = "Explain this trace: step 1 visit node 7."
    version: str = "p1"
    hash: str = "abc"


def anthropic() -> Settings:
    return Settings("anthropic", "claude-sonnet-4-5", 2000, 0.0)


def openai(temp: float | None = 0.2) -> Settings:
    return Settings("openai", "gpt-4o-mini", 1500, temp)


def local(url: str = "http://127.0.0.1:8080/v1/") -> Settings:
    return Settings("openai-compatible", "qwen2.5", 1024, None, url)


# ---------------------------------------------------------------- settings


def test_settings_round_trip_and_normalise():
    s = local()
    assert s.base_url == "http://127.0.0.1:8080/v1"
    assert s.to_dict() == {
        "provider": "openai-compatible",
        "model": "qwen2.5",
        "max_tokens": 1024,
        "temperature": None,
        "base_url": "http://127.0.0.1:8080/v1",
    }
    assert Settings.from_dict(s.to_dict()) == s
    assert json.loads(json.dumps(s.to_dict())) == s.to_dict()


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"provider": "gemini"}, "Unknown provider"),
        ({"model": "  "}, "Enter a model name"),
        ({"model": "gpt 4o"}, "without spaces"),
        ({"model": "x" * 201}, "1 to 200"),
        ({"max_tokens": 0}, "between 1 and"),
        ({"max_tokens": True}, "whole number"),
        ({"max_tokens": 10.0}, "whole number"),
        ({"temperature": 1.5}, "between 0 and 1"),
        ({"temperature": float("nan")}, "must be a number"),
        ({"temperature": "hot"}, "must be a number"),
        ({"base_url": "https://example.com/v1"}, "only used with openai-compatible"),
    ],
    ids=["provider", "blank-model", "space-model", "long-model", "zero-tokens", "bool-tokens",
         "float-tokens", "anthropic-temp", "nan-temp", "str-temp", "url-for-anthropic"],
)
def test_settings_rejects_with_clear_message(kwargs, fragment):
    args = {"provider": "anthropic", "model": "claude-x", "max_tokens": 100, "temperature": 0.5}
    args.update(kwargs)
    with pytest.raises(ValueError, match=fragment):
        Settings(**args)


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        (None, "Enter the server's base URL"),
        ("ftp://host/v1", "http:// or https://"),
        ("http://user:pw@127.0.0.1:8080/v1", "user name or password"),
        ("http://127.0.0.1:8080/v1?key=1", "'\\?' or '#'"),
        ("http://127.0.0.1:99999/v1", "not a valid URL"),
        ("http:///v1", "name a host"),
        ("http://127.0.0.1:8080/\ud800", "plain ASCII"),
        ("http://127.0.0.1:8080/v1\x00", "plain ASCII"),
        ("http://127.0.0.1:8080/" + "a" * 2_000, "at most 2,000"),
    ],
    ids=["missing", "scheme", "userinfo", "query", "port", "no-host", "lone-surrogate", "control-character",
         "too-long"],
)
def test_base_url_validation(url, fragment):
    with pytest.raises(ValueError, match=fragment):
        Settings("openai-compatible", "m", 10, None, url)


def test_openai_temperature_up_to_two():
    assert Settings("openai", "gpt-4o", 10, 2.0).temperature == 2.0
    with pytest.raises(ValueError, match="between 0 and 2"):
        Settings("openai", "gpt-4o", 10, 2.01)


def test_settings_from_dict_rejects_unknown_and_missing():
    d = anthropic().to_dict()
    with pytest.raises(ValueError, match="unknown keys \\['api_key'\\]"):
        Settings.from_dict({**d, "api_key": "x"})
    del d["model"]
    with pytest.raises(ValueError, match="missing keys \\['model'\\]"):
        Settings.from_dict(d)


# ---------------------------------------------------------------- requests


def test_anthropic_request_uses_forced_tool():
    req = build_request(anthropic(), FakePrompt(), KEY, SCHEMA)
    assert req.method == "POST" and req.url == "https://api.anthropic.com/v1/messages"
    assert req.headers == {
        "content-type": "application/json",
        "x-api-key": KEY,
        "anthropic-version": "2023-06-01",
        "anthropic-dangerous-direct-browser-access": "true",
    }
    body = json.loads(req.body)
    assert body["model"] == "claude-sonnet-4-5"
    assert body["max_tokens"] == 2000 and body["temperature"] == 0.0
    assert body["system"] == FakePrompt.system
    assert body["messages"] == [{"role": "user", "content": FakePrompt.user}]
    (tool,) = body["tools"]
    assert tool["name"] == "search_explanation"
    assert tool["input_schema"] == {k: v for k, v in SCHEMA.items() if k != "$schema"}
    assert body["tool_choice"] == {"type": "tool", "name": "search_explanation"}
    assert KEY not in req.body and KEY not in req.url and KEY not in repr(req)


def test_openai_request_uses_strict_json_schema_and_completion_tokens():
    req = build_request(openai(), FakePrompt(), OAI_KEY, SCHEMA)
    assert req.url == "https://api.openai.com/v1/chat/completions"
    assert req.headers == {"content-type": "application/json", "authorization": f"Bearer {OAI_KEY}"}
    body = json.loads(req.body)
    assert body["messages"][0] == {"role": "system", "content": FakePrompt.system}
    assert body["messages"][1] == {"role": "user", "content": FakePrompt.user}
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["strict"] is True
    assert body["response_format"]["json_schema"]["name"] == "search_explanation"
    assert "$schema" not in body["response_format"]["json_schema"]["schema"]
    assert body["max_completion_tokens"] == 1500 and "max_tokens" not in body
    assert body["temperature"] == 0.2


def test_temperature_none_is_left_out():
    assert "temperature" not in json.loads(build_request(openai(None), FakePrompt(), OAI_KEY, SCHEMA).body)


def test_compatible_request_without_key_uses_max_tokens():
    req = build_request(local(), FakePrompt(), None, SCHEMA)
    assert req.url == "http://127.0.0.1:8080/v1/chat/completions"
    assert req.headers == {"content-type": "application/json"}
    body = json.loads(req.body)
    assert body["max_tokens"] == 1024 and "max_completion_tokens" not in body
    assert "temperature" not in body
    with_key = build_request(local(), FakePrompt(), " local-key \n", SCHEMA)
    assert with_key.headers["authorization"] == "Bearer local-key"
    assert wire.request_key(with_key) == "local-key"


@pytest.mark.parametrize("provider_settings", [anthropic(), openai()], ids=["anthropic", "openai"])
def test_hosted_providers_need_a_key(provider_settings):
    with pytest.raises(ValueError, match="API key is needed"):
        build_request(provider_settings, FakePrompt(), "  ", SCHEMA)


def test_unsendable_key_rejected_without_quoting_it():
    bad = "sk-ant-abc def"
    with pytest.raises(ValueError) as info:
        build_request(anthropic(), FakePrompt(), bad, SCHEMA)
    assert bad not in str(info.value) and "abc" not in str(info.value)


@pytest.mark.parametrize(
    ("settings_", "prompt", "place"),
    [
        (Settings("openai-compatible", KEY, 10, None, "http://h/v1"), FakePrompt(), "model name"),
        (Settings("openai-compatible", "m", 10, None, f"http://h/{KEY}"), FakePrompt(), "base URL"),
        (anthropic(), FakePrompt(user=f"my key is {KEY}"), "prompt"),
    ],
    ids=["model", "url", "prompt"],
)
def test_key_never_sent_outside_headers(settings_, prompt, place):
    with pytest.raises(ValueError, match=place) as info:
        build_request(settings_, prompt, KEY, SCHEMA)
    assert KEY not in str(info.value)


def test_schema_must_be_object():
    with pytest.raises(ValueError, match="type 'object'"):
        build_request(anthropic(), FakePrompt(), KEY, {"type": "array"})
    with pytest.raises(ValueError, match="schema name"):
        build_request(anthropic(), FakePrompt(), KEY, SCHEMA, schema_name="has space")


# ---------------------------------------------------------------- replies


def anthropic_body(content, stop="tool_use", usage=None):
    return json.dumps(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "content": content,
            "stop_reason": stop,
            "usage": usage if usage is not None else {"input_tokens": 900, "output_tokens": 120},
        }
    )


def openai_body(content, finish="stop", refusal=None, usage=None):
    return json.dumps(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": content, "refusal": refusal},
                 "finish_reason": finish}
            ],
            "usage": usage if usage is not None else {"prompt_tokens": 800, "completion_tokens": 90},
        }
    )


ANSWER = {"result": 7, "walkthrough": "Första steget: ä"}


@pytest.mark.parametrize(
    ("body", "stop", "text"),
    [
        (anthropic_body([{"type": "tool_use", "id": "t", "name": "search_explanation", "input": ANSWER}]),
         "end", json.dumps(ANSWER, ensure_ascii=False)),
        (anthropic_body([{"type": "tool_use", "id": "t", "name": "search_explanation", "input": {}}],
                        "max_tokens"), "max_tokens", "{}"),
        (anthropic_body([{"type": "text", "text": "I can't help with that."}], "refusal"),
         "refusal", "I can't help with that."),
        (anthropic_body([{"type": "text", "text": '{"result": '}, {"type": "text", "text": "7}"}],
                        "end_turn"),
         "end", '{"result": 7}'),
        (anthropic_body([], "model_context_window_exceeded"), "max_tokens", ""),
        (anthropic_body([{"type": "text", "text": "x"}], "pause_turn"), "other", "x"),
    ],
    ids=["tool-use", "truncated", "refusal", "text-blocks", "context-window", "pause"],
)
def test_anthropic_replies(body, stop, text):
    reply = parse_response("anthropic", 200, {}, body)
    assert isinstance(reply, Reply)
    assert reply.stop == stop and reply.text == text
    assert reply.input_tokens == 900 and reply.output_tokens == 120
    assert reply.raw_stop_reason == json.loads(body)["stop_reason"]


def test_anthropic_cache_tokens_count_as_input():
    body = anthropic_body([], "end_turn", {"input_tokens": 10, "cache_read_input_tokens": 5,
                                           "cache_creation_input_tokens": 0, "output_tokens": 3})
    reply = parse_response("anthropic", 200, {}, body)
    assert (reply.input_tokens, reply.output_tokens) == (15, 3)


@pytest.mark.parametrize(
    ("body", "stop", "text"),
    [
        (openai_body('{"result": 7}'), "end", '{"result": 7}'),
        (openai_body('{"result": ', "length"), "max_tokens", '{"result": '),
        (openai_body(None, "stop", refusal="I'm sorry, I can't."), "refusal", "I'm sorry, I can't."),
        (openai_body("", "content_filter"), "refusal", ""),
        (openai_body(None, "tool_calls"), "other", ""),
        (openai_body([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]), "end", "ab"),
    ],
    ids=["stop", "length", "refusal-field", "content-filter", "tool-calls", "content-parts"],
)
def test_openai_replies(body, stop, text):
    for provider in ("openai", "openai-compatible"):
        reply = parse_response(provider, 200, {}, body)
        assert isinstance(reply, Reply)
        assert (reply.stop, reply.text) == (stop, text)
        assert (reply.input_tokens, reply.output_tokens) == (800, 90)


def test_missing_usage_gives_none():
    body = json.dumps({"choices": [{"message": {"content": "x"}, "finish_reason": "stop"}]})
    reply = parse_response("openai-compatible", 200, {}, body)
    assert (reply.input_tokens, reply.output_tokens, reply.stop) == (None, None, "end")


@pytest.mark.parametrize(
    ("provider", "body", "fragment"),
    [
        ("anthropic", "<html>Bad gateway</html>", "not JSON"),
        ("anthropic", json.dumps({"type": "message"}), "unexpected shape: no message content"),
        ("openai", json.dumps({"choices": []}), "unexpected shape: no choices"),
        ("openai", json.dumps({"choices": [{"finish_reason": "stop"}]}), "no message"),
        ("openai", json.dumps({"choices": [{"message": {"content": 5}}]}), "not text"),
        ("openai", json.dumps([1, 2]), "not JSON"),
        ("openai-compatible", "", "not JSON"),
    ],
    ids=["html", "anthropic-shape", "no-choices", "no-message", "content-int", "list-body", "empty"],
)
def test_200_with_wrong_shape_is_bad_response(provider, body, fragment):
    err = parse_response(provider, 200, {}, body)
    assert isinstance(err, ProviderError)
    assert err.kind == "bad_response" and err.status == 200 and fragment in err.message
    assert not err.retryable and not err.stops_run


def anthropic_error(kind, message):
    return json.dumps({"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_1"})


def openai_error(message, kind, code):
    return json.dumps({"error": {"message": message, "type": kind, "param": None, "code": code}})


@pytest.mark.parametrize(
    ("provider", "status", "body", "kind"),
    [
        ("anthropic", 401, anthropic_error("authentication_error", "invalid x-api-key"), "auth"),
        ("anthropic", 403, anthropic_error("permission_error", "no access"), "auth"),
        ("anthropic", 402, anthropic_error("billing_error", "pay up"), "quota"),
        ("anthropic", 400, anthropic_error(
            "invalid_request_error", "Your credit balance is too low to access the Anthropic API."), "quota"),
        ("anthropic", 429, anthropic_error("rate_limit_error", "slow down"), "rate_limit"),
        ("anthropic", 529, anthropic_error("overloaded_error", "Overloaded"), "overloaded"),
        ("anthropic", 500, anthropic_error("api_error", "oops"), "server"),
        ("anthropic", 404, anthropic_error("not_found_error", "model: claude-nope"), "bad_request"),
        ("anthropic", 413, anthropic_error("request_too_large", "too big"), "bad_request"),
        ("openai", 401, openai_error("Incorrect API key provided: sk-proj-****************abcd.",
                                     "invalid_request_error", "invalid_api_key"), "auth"),
        ("openai", 429, openai_error("You exceeded your current quota.", "insufficient_quota",
                                     "insufficient_quota"), "quota"),
        ("openai", 429, openai_error("Rate limit reached", "requests", "rate_limit_exceeded"), "rate_limit"),
        ("openai", 404, openai_error("The model `gpt-9` does not exist", "invalid_request_error",
                                     "model_not_found"), "bad_request"),
        ("openai", 422, "", "bad_request"),
        ("openai", 503, "<html>unavailable</html>", "overloaded"),
        ("openai", 502, "", "server"),
        ("openai", 504, "", "server"),
        ("openai-compatible", 408, "", "server"),
    ],
    ids=lambda v: str(v)[:30] if not isinstance(v, str) or len(v) < 30 else None,
)
def test_error_classes(provider, status, body, kind):
    err = parse_response(provider, status, {}, body)
    assert isinstance(err, ProviderError)
    assert (err.kind, err.status) == (kind, status)
    assert f"HTTP {status}" in err.message
    assert err.retryable == (kind in ("rate_limit", "overloaded", "server"))
    assert err.stops_run == (kind in ("auth", "quota"))


def test_error_message_carries_provider_detail_but_no_masked_key():
    body = openai_error("Incorrect API key provided: sk-proj-********************abcd. See docs.",
                        "invalid_request_error", "invalid_api_key")
    err = parse_response("openai", 401, {}, body, key=OAI_KEY)
    assert "invalid_request_error, invalid_api_key" in err.message
    assert "Incorrect API key provided: [redacted]" in err.message
    assert "abcd" not in err.message and "****" not in err.message


@pytest.mark.parametrize("status", [200, 400, 401, 429, 500])
def test_echoed_key_is_redacted(status):
    echoed = json.dumps({"error": {"type": f"x {KEY}", "message": f"bad key {KEY} here", "code": KEY}})
    for provider in PROVIDERS:
        out = parse_response(provider, status, {}, echoed if status != 200 else f"oops {KEY}", key=KEY)
        assert isinstance(out, ProviderError)
        assert KEY not in out.message and KEY not in (out.provider_type or "")
        assert "SECRETsecret" not in out.message


def test_long_provider_message_is_cut():
    err = parse_response("openai", 400, {}, openai_error("x" * 5000, "invalid_request_error", None))
    assert len(err.message) < 600 and err.message.endswith("...")


def test_redact_variants():
    assert keyguard.redact(f"a {KEY} b", KEY) == "a [redacted] b"
    assert keyguard.redact("token sk-live-abcdefgh1234 end", None) == "token [redacted] end"
    assert keyguard.redact("masked sk-****wxyz end", None) == "masked [redacted] end"
    assert keyguard.redact("plain text, nothing secret", "k3y-not-here") == "plain text, nothing secret"
    assert keyguard.redact("key: redacted", "redacted") == "key: [hidden]"
    assert keyguard.redact("it said provider", "provider") == "it said [redacted]"


@settings(max_examples=300, deadline=None)
@given(
    key=st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=8, max_size=60),
    status=st.sampled_from([200, 400, 401, 402, 403, 404, 429, 500, 503, 529]),
    before=st.text(max_size=40),
    after=st.text(max_size=40),
    provider=st.sampled_from(PROVIDERS),
)
@example(key="redacted", status=401, before="", after="", provider="openai")
@example(key="]]]]]]]]", status=401, before="", after="]]]]]]]", provider="anthropic")
@example(key="provider", status=500, before="", after="", provider="openai")
@example(key="withheld", status=500, before="", after="", provider="openai")
def test_no_message_ever_contains_the_key(key, status, before, after, provider):
    msg = before + key + after
    for body in (msg, json.dumps({"error": {"type": key, "message": msg, "code": key}}),
                 json.dumps({"type": "error", "error": {"type": key, "message": msg}})):
        out = parse_response(provider, status, {}, body, key=key)
        if isinstance(out, ProviderError):
            assert key not in out.message
            assert key not in (out.provider_type or "")


def test_http_request_repr_hides_headers():
    req = HttpRequest("POST", "https://x", {"x-api-key": KEY}, "{}")
    assert KEY not in repr(req) and KEY not in str(req)


def test_deeply_nested_provider_reply_is_a_bad_response_not_a_crash():
    from pyapp.providers.api import parse_response
    from pyapp.providers.errors import ProviderError

    reply = parse_response("openai", 200, {}, '{"choices": ' + "[" * 10_000 + "]" * 10_000 + "}")
    assert isinstance(reply, ProviderError) and reply.kind == "bad_response"
