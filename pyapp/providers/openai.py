"""OpenAI's Chat Completions API, and OpenAI-compatible servers (DR-005).

Both are asked with ``response_format`` of type ``json_schema`` and ``strict: true``. OpenAI gets
``max_completion_tokens``: the official API has deprecated ``max_tokens`` and its reasoning
models reject it. A compatible server gets ``max_tokens``, because common local servers
(Ollama, LM Studio, older llama.cpp builds) ignore ``max_completion_tokens`` and would then
generate without a limit.
"""

from __future__ import annotations

import json
from typing import Any

from pyapp.core.vocabulary import Stop
from pyapp.providers.settings import OPENAI, Settings
from pyapp.providers.wire import HttpRequest, PromptLike, Reply, ShapeError, text_or_none, tokens

URL = "https://api.openai.com/v1/chat/completions"


def request(
    settings: Settings, prompt: PromptLike, key: str | None, schema: dict, schema_name: str
) -> HttpRequest:
    messages = []
    if prompt.system:
        messages.append({"role": "system", "content": prompt.system})
    messages.append({"role": "user", "content": prompt.user})
    body: dict[str, Any] = {"model": settings.model, "messages": messages}
    body["response_format"] = {
        "type": "json_schema",
        "json_schema": {"name": schema_name, "schema": schema, "strict": True},
    }
    if settings.provider == OPENAI:
        body["max_completion_tokens"] = settings.max_tokens
        url = URL
    else:
        body["max_tokens"] = settings.max_tokens
        url = f"{settings.base_url}/chat/completions"
    if settings.temperature is not None:
        body["temperature"] = settings.temperature
    headers = {"content-type": "application/json"}
    if key:
        headers["authorization"] = f"Bearer {key}"
    return HttpRequest("POST", url, headers, json.dumps(body), settings.provider)


_STOPS = {"stop": Stop.END, "length": Stop.MAX_TOKENS, "content_filter": Stop.REFUSAL}


def reply(data: dict) -> Reply:
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ShapeError("no choices")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise ShapeError("no message in the first choice")
    raw = choices[0].get("finish_reason")
    if raw is not None and not isinstance(raw, str):
        raise ShapeError("finish_reason is not a string")
    content = message.get("content")
    if isinstance(content, list):  # some compatible servers send content parts
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        content = "".join(t for t in parts if isinstance(t, str))
    if content is not None and not isinstance(content, str):
        raise ShapeError("message content is not text")
    refusal = message.get("refusal")
    stop = _STOPS.get(raw or "", Stop.OTHER)
    text = content or ""
    if isinstance(refusal, str) and refusal:
        stop, text = Stop.REFUSAL, refusal
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    return Reply(
        text=text,
        stop=stop,
        input_tokens=tokens(usage, "prompt_tokens"),
        output_tokens=tokens(usage, "completion_tokens"),
        raw_stop_reason=raw,
        model=text_or_none(data.get("model")),
        system_fingerprint=text_or_none(data.get("system_fingerprint")),
    )
