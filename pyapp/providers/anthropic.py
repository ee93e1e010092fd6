"""Anthropic's Messages API (DR-005).

The answer is asked for as one tool whose ``input_schema`` is the answer schema, forced with
``tool_choice: {"type": "tool", ...}``. Forced tool use works on every Claude model the Messages
API serves, while the JSON-output mode (``output_config.format``) only exists on the newest
models and would fail with a 400 on the rest. The reply text is the tool input serialised back
to JSON, so grading still checks it against the schema itself.
"""

from __future__ import annotations

import json
from typing import Any

from pyapp.core.vocabulary import Stop
from pyapp.providers.settings import ANTHROPIC, Settings
from pyapp.providers.wire import HttpRequest, PromptLike, Reply, ShapeError, text_or_none, tokens

URL = "https://api.anthropic.com/v1/messages"


VERSION = "2023-06-01"


def request(
    settings: Settings, prompt: PromptLike, key: str, schema: dict, schema_name: str, description: str
) -> HttpRequest:
    body: dict[str, Any] = {"model": settings.model, "max_tokens": settings.max_tokens}
    if prompt.system:
        body["system"] = prompt.system
    body["messages"] = [{"role": "user", "content": prompt.user}]
    body["tools"] = [
        {
            "name": schema_name,
            "description": description,
            "input_schema": schema,
        }
    ]
    body["tool_choice"] = {"type": "tool", "name": schema_name}
    if settings.temperature is not None:
        body["temperature"] = settings.temperature
    headers = {
        "content-type": "application/json",
        "x-api-key": key,
        "anthropic-version": VERSION,
        # Without it the API refuses CORS requests from a page.
        "anthropic-dangerous-direct-browser-access": "true",
    }
    return HttpRequest("POST", URL, headers, json.dumps(body), ANTHROPIC)


_STOPS = {
    "end_turn": Stop.END,
    "tool_use": Stop.END,  # the forced tool call is the complete answer
    "max_tokens": Stop.MAX_TOKENS,
    "model_context_window_exceeded": Stop.MAX_TOKENS,
    "refusal": Stop.REFUSAL,
}


def reply(data: dict) -> Reply:
    content = data.get("content")
    if data.get("type") != "message" or not isinstance(content, list):
        raise ShapeError("no message content")
    raw = data.get("stop_reason")
    if raw is not None and not isinstance(raw, str):
        raise ShapeError("stop_reason is not a string")
    tool_inputs = [b.get("input") for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]
    if tool_inputs:
        text = json.dumps(tool_inputs[0], ensure_ascii=False)
    else:
        # No tool call (a refusal, or a server that ignored the tool): keep whatever text came.
        blocks = [b for b in content if isinstance(b, dict) and b.get("type") == "text"]
        text = "".join(b["text"] for b in blocks if isinstance(b.get("text"), str))
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    return Reply(
        text=text,
        stop=_STOPS.get(raw or "", Stop.OTHER),
        input_tokens=tokens(usage, "input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"),
        output_tokens=tokens(usage, "output_tokens"),
        raw_stop_reason=raw,
        model=text_or_none(data.get("model")),
    )
