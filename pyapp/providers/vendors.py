"""Provider requests and replies: Anthropic, OpenAI, and OpenAI-compatible servers.

Pure functions only: ``build_request`` turns settings, a prompt and a schema into
an :class:`HttpRequest`; ``parse_response`` turns an HTTP status, headers and
body into a :class:`Reply` or a :class:`ProviderError`. Sending is someone
else's job (the browser adapter, or a test's fake transport).

How each provider is asked for JSON that fits the published schema:

* Anthropic: one tool whose ``input_schema`` is the answer schema, forced with
  ``tool_choice: {"type": "tool", ...}``. Forced tool use works on every Claude
  model the Messages API serves, while the JSON-output mode
  (``output_config.format``) only exists on the newest models and would fail
  with a 400 on the rest. The reply text is the tool input serialised back to
  JSON, so grading still checks it against the schema itself.
* OpenAI: ``response_format`` of type ``json_schema`` with ``strict: true``, and
  ``max_completion_tokens``: the official API has deprecated ``max_tokens`` and
  its reasoning models reject it.
* OpenAI-compatible: the same body, but with ``max_tokens``, because common local
  servers (Ollama, LM Studio, older llama.cpp builds) ignore
  ``max_completion_tokens`` and would then generate without a limit.

``temperature`` may be ``None``: the field is then left out, because some
models accept only their default temperature.

The API key is only ever placed in a header. Every message built here comes
from the HTTP status and the provider's error type and message, and is passed
through :func:`redact` before it leaves this module.
"""

from __future__ import annotations

import ipaddress
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urlsplit

from pyapp.core import strict_json
from pyapp.core.jsontypes import is_int
from pyapp.core.vocabulary import ErrorClass, Stop
from pyapp.providers import keyguard
from pyapp.providers.keyguard import scrub_text, secret_variants, text_contains

ANTHROPIC = "anthropic"
OPENAI = "openai"
OPENAI_COMPATIBLE = "openai-compatible"
PROVIDERS = (ANTHROPIC, OPENAI, OPENAI_COMPATIBLE)

ANTHROPIC_URL = "https://api.anthropic.com/v1/messages"
ANTHROPIC_VERSION = "2023-06-01"
OPENAI_URL = "https://api.openai.com/v1/chat/completions"

DEFAULT_SCHEMA_NAME = "search_explanation"
MAX_MODEL_LENGTH = 200
MAX_BASE_URL_LENGTH = 2_000
MAX_TOKENS_LIMIT = 200_000
_DETAIL_LIMIT = 300
_SNIPPET_LIMIT = 120

_MODEL_RE = re.compile(r"^[\x21-\x7e]+$")
_SCHEMA_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
# Keys the providers echo back in masked form (e.g. "sk-proj-****abcd"), and
# anything shaped like a secret key: never repeat them, even partly.
_MASKED_RE = re.compile(r"[A-Za-z0-9_\-]*\*{3,}[A-Za-z0-9_\-]*")
_KEYLIKE_RE = re.compile(r"\bsk-[A-Za-z0-9_\-]{6,}")
REDACTED = "[redacted]"
WITHHELD = "[message withheld: it contained the API key]"


class PromptLike(Protocol):
    system: str
    user: str


def redact(text: str, key: str | None) -> str:
    """``text`` with the key, masked keys and key-shaped tokens replaced by ``[redacted]``.

    A text that still shows the key once JSON escapes are decoded is withheld whole;
    a key under ``keyguard.MIN_SECRET_LENGTH`` characters is not a secret (DR-005).
    """
    text = _KEYLIKE_RE.sub(REDACTED, _MASKED_RE.sub(REDACTED, text))
    variants = secret_variants(key)
    if not text_contains(text, variants):
        return text
    scrubbed = scrub_text(text, variants)
    return WITHHELD if scrubbed == keyguard.WITHHELD or not scrubbed else scrubbed


# --------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class Settings:
    """Request settings chosen by the visitor; recorded with every call.

    ``base_url`` is required for ``openai-compatible`` (e.g. ``http://127.0.0.1:8080/v1``)
    and must be ``None`` for the two hosted providers, whose URLs are fixed.
    Raises ``ValueError`` with a sentence a visitor can act on.
    """

    provider: str
    model: str
    max_tokens: int
    temperature: float | None = None
    base_url: str | None = None

    def __post_init__(self) -> None:
        if self.provider not in PROVIDERS:
            raise ValueError(f"Unknown provider {self.provider!r}: choose one of {', '.join(PROVIDERS)}.")
        if not isinstance(self.model, str) or not self.model.strip():
            raise ValueError("Enter a model name, e.g. the model id from the provider's documentation.")
        model = self.model.strip()
        if len(model) > MAX_MODEL_LENGTH or not _MODEL_RE.match(model):
            raise ValueError(
                f"The model name must be 1 to {MAX_MODEL_LENGTH} printable characters without spaces."
            )
        object.__setattr__(self, "model", model)
        if isinstance(self.max_tokens, bool) or not isinstance(self.max_tokens, int):
            raise ValueError("Max tokens must be a whole number.")
        if not 1 <= self.max_tokens <= MAX_TOKENS_LIMIT:
            raise ValueError(f"Max tokens must be between 1 and {MAX_TOKENS_LIMIT:,}.")
        if self.temperature is not None:
            t = self.temperature
            if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t):
                raise ValueError("Temperature must be a number (or empty for the model's default).")
            top = 1.0 if self.provider == ANTHROPIC else 2.0
            if not 0.0 <= t <= top:
                raise ValueError(f"Temperature for {self.provider} must be between 0 and {top:g}.")
            object.__setattr__(self, "temperature", float(t))
        if self.provider == OPENAI_COMPATIBLE:
            object.__setattr__(self, "base_url", _check_base_url(self.base_url))
        elif self.base_url is not None:
            raise ValueError(f"A base URL is only used with openai-compatible, not with {self.provider}.")

    def to_dict(self) -> dict:
        """The JSON form stored in audit entries and exports."""
        return {
            "provider": self.provider,
            "model": self.model,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "base_url": self.base_url,
        }

    @classmethod
    def from_dict(cls, data: Any) -> Settings:
        """Inverse of :meth:`to_dict`; ``ValueError`` on missing or unknown keys."""
        if not isinstance(data, dict):
            raise ValueError("Settings must be an object.")
        expected = {"provider", "model", "max_tokens", "temperature", "base_url"}
        missing = sorted(expected - set(data))
        unknown = sorted(str(k) for k in set(data) - expected)
        if missing or unknown:
            raise ValueError(f"Settings: missing keys {missing}, unknown keys {unknown}.")
        return cls(**data)


def _check_base_url(url: str | None) -> str:
    if not isinstance(url, str) or not url.strip():
        raise ValueError("Enter the server's base URL, e.g. http://127.0.0.1:8080/v1.")
    url = url.strip()
    if len(url) > MAX_BASE_URL_LENGTH or not (url.isascii() and url.isprintable()):
        # Recorded with every call: bounded, and text that every log, export and page can hold.
        raise ValueError(
            f"The base URL must be at most {MAX_BASE_URL_LENGTH:,} plain ASCII characters "
            "(write an international host name in its xn-- form)."
        )
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError:
        raise ValueError("The base URL is not a valid URL.") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("The base URL must start with http:// or https:// and name a host.")
    if parts.username is not None or parts.password is not None:
        # Anything in the URL is recorded with every call; credentials must not be.
        raise ValueError("The base URL must not contain a user name or password; put a key in the key field.")
    if parts.query or parts.fragment:
        raise ValueError("The base URL must not contain '?' or '#'.")
    if any(ch.isspace() for ch in url):
        raise ValueError("The base URL must not contain spaces.")
    return url.rstrip("/")


# --------------------------------------------------------------------------- requests


@dataclass(frozen=True)
class HttpRequest:
    """One HTTP request, ready for a transport. Headers stay out of ``repr`` (they hold the key)."""

    method: str
    url: str
    headers: dict = field(repr=False)
    body: str = field(repr=False)
    provider: str = ANTHROPIC


def request_key(request: HttpRequest) -> str | None:
    """The key carried by ``request`` (for redaction), or ``None``."""
    headers = {k.lower(): v for k, v in request.headers.items()}
    if "x-api-key" in headers:
        return headers["x-api-key"]
    auth = headers.get("authorization", "")
    return auth[len("Bearer ") :] if auth.startswith("Bearer ") else None


def _check_key(api_key: str | None, provider: str) -> str | None:
    key = (api_key or "").strip()
    if not key:
        if provider == OPENAI_COMPATIBLE:
            return None
        name = "Anthropic" if provider == ANTHROPIC else "OpenAI"
        raise ValueError(f"An {name} API key is needed for this provider.")
    if any(ch.isspace() for ch in key) or not key.isascii() or not key.isprintable():
        raise ValueError("The API key contains spaces or characters that cannot be sent; paste it again.")
    return key


def _is_private_channel(url: str) -> bool:
    """True for https:// and for plain http:// to this computer."""
    return urlsplit(url).scheme == "https" or is_loopback_url(url)


def is_loopback_url(url: str) -> bool:
    """True if ``url`` names this computer: 127.0.0.0/8, localhost or [::1]."""
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def schema_for_sending(schema: dict) -> dict:
    # "$schema"/"$id" describe the file, not the answer; providers reject or ignore them.
    return {k: v for k, v in schema.items() if k not in ("$schema", "$id")}


def build_request(
    settings: Settings,
    prompt: PromptLike,
    api_key: str | None,
    schema: dict,
    *,
    schema_name: str = DEFAULT_SCHEMA_NAME,
) -> HttpRequest:
    """The HTTP request that asks ``settings.model`` to answer ``prompt`` in ``schema``.

    Raises ``ValueError`` (never quoting the key) when the key is missing or
    unsendable, or when the key appears in the model name, URL or prompt.
    """
    key = _check_key(api_key, settings.provider)
    if not isinstance(schema, dict) or schema.get("type") != "object":
        raise ValueError("The answer schema must be a JSON Schema object with type 'object'.")
    if not _SCHEMA_NAME_RE.match(schema_name):
        raise ValueError("The schema name must be 1-64 letters, digits, '_' or '-'.")
    variants = secret_variants(key)
    places = {
        "model name": settings.model,
        "base URL": settings.base_url or "",
        "prompt": prompt.system + prompt.user,
    }
    for place, text in places.items():
        if text_contains(text, variants):
            raise ValueError(
                f"The API key appears in the {place}, so it would be sent and logged as plain text. "
                "Check that the key field holds only your key, and the other fields no key."
            )
    if key and settings.base_url and not _is_private_channel(settings.base_url):
        raise ValueError(
            "The base URL starts with http:// and names another computer, so the key would cross the network "
            "unencrypted; nothing was sent. Use https://, or a server on this computer (127.0.0.1, localhost "
            "or [::1]). This site's security policy lets the page reach only Anthropic, OpenAI and servers on "
            "this computer, so a server elsewhere would be blocked by the browser anyway."
        )
    schema = schema_for_sending(schema)
    if settings.provider == ANTHROPIC:
        return _anthropic_request(settings, prompt, key or "", schema, schema_name)
    return _openai_request(settings, prompt, key, schema, schema_name)


def _anthropic_request(
    settings: Settings, prompt: PromptLike, key: str, schema: dict, schema_name: str
) -> HttpRequest:
    body: dict[str, Any] = {"model": settings.model, "max_tokens": settings.max_tokens}
    if prompt.system:
        body["system"] = prompt.system
    body["messages"] = [{"role": "user", "content": prompt.user}]
    body["tools"] = [
        {
            "name": schema_name,
            "description": "Record the explanation of the search as JSON that fits this schema.",
            "input_schema": schema,
        }
    ]
    body["tool_choice"] = {"type": "tool", "name": schema_name}
    if settings.temperature is not None:
        body["temperature"] = settings.temperature
    headers = {
        "content-type": "application/json",
        "x-api-key": key,
        "anthropic-version": ANTHROPIC_VERSION,
        # Without it the API refuses CORS requests from a page.
        "anthropic-dangerous-direct-browser-access": "true",
    }
    return HttpRequest("POST", ANTHROPIC_URL, headers, json.dumps(body), ANTHROPIC)


def _openai_request(
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
        url = OPENAI_URL
    else:
        body["max_tokens"] = settings.max_tokens
        url = f"{settings.base_url}/chat/completions"
    if settings.temperature is not None:
        body["temperature"] = settings.temperature
    headers = {"content-type": "application/json"}
    if key:
        headers["authorization"] = f"Bearer {key}"
    return HttpRequest("POST", url, headers, json.dumps(body), settings.provider)


# --------------------------------------------------------------------------- replies


@dataclass(frozen=True)
class Reply:
    """What the model answered: full ``text``, the ``stop`` class and token counts.

    ``model`` is the model the provider says answered, and ``system_fingerprint`` OpenAI's
    name for the backend configuration; either is ``None`` when the reply does not say (DR-008).
    """

    text: str
    stop: Stop
    input_tokens: int | None
    output_tokens: int | None
    raw_stop_reason: str | None
    model: str | None = None
    system_fingerprint: str | None = None


@dataclass(frozen=True)
class ProviderError:
    """A request that did not produce a reply. ``message`` is for the visitor and never holds the key."""

    kind: ErrorClass
    status: int | None
    message: str
    provider_type: str | None = None

    @property
    def retryable(self) -> bool:
        return self.kind in (ErrorClass.RATE_LIMIT, ErrorClass.OVERLOADED, ErrorClass.SERVER)

    @property
    def stops_run(self) -> bool:
        return self.kind in (ErrorClass.AUTH, ErrorClass.QUOTA)


_ANTHROPIC_STOPS = {
    "end_turn": Stop.END,
    "tool_use": Stop.END,  # the forced tool call is the complete answer
    "max_tokens": Stop.MAX_TOKENS,
    "model_context_window_exceeded": Stop.MAX_TOKENS,
    "refusal": Stop.REFUSAL,
}
_OPENAI_STOPS = {"stop": Stop.END, "length": Stop.MAX_TOKENS, "content_filter": Stop.REFUSAL}


def parse_response(
    provider: str, status: int, headers: dict, body_text: str, *, key: str | None = None
) -> Reply | ProviderError:
    """Classify one HTTP response; ``key`` is only used to scrub messages."""
    if provider not in PROVIDERS:
        raise ValueError(f"Unknown provider {provider!r}.")
    data = _json_or_none(body_text)
    if status != 200:
        return _http_error(provider, status, data, key)
    label = _provider_label(provider)
    if not isinstance(data, dict):
        snippet = " ".join((body_text or "").split())[:_SNIPPET_LIMIT]
        return ProviderError(
            ErrorClass.BAD_RESPONSE,
            status,
            redact(f"{label} answered HTTP 200 but the body is not JSON (it starts: {snippet!r}).", key),
        )
    try:
        if provider == ANTHROPIC:
            return _anthropic_reply(data)
        return _openai_reply(data)
    except _ShapeError as exc:
        return ProviderError(
            ErrorClass.BAD_RESPONSE, status,
            redact(f"{label} answered HTTP 200 in an unexpected shape: {exc}.", key),
        )


class _ShapeError(Exception):
    pass


def _json_or_none(text: str) -> Any:
    try:
        return strict_json.loads(text)
    except (TypeError, ValueError):
        return None


def _tokens(usage: dict, *names: str) -> int | None:
    values = [usage.get(n) for n in names]
    ints = [v for v in values if is_int(v) and v >= 0]
    return sum(ints) if ints else None


def _anthropic_reply(data: dict) -> Reply:
    content = data.get("content")
    if data.get("type") != "message" or not isinstance(content, list):
        raise _ShapeError("no message content")
    raw = data.get("stop_reason")
    if raw is not None and not isinstance(raw, str):
        raise _ShapeError("stop_reason is not a string")
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
        stop=_ANTHROPIC_STOPS.get(raw or "", Stop.OTHER),
        input_tokens=_tokens(usage, "input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"),
        output_tokens=_tokens(usage, "output_tokens"),
        raw_stop_reason=raw,
        model=_text_or_none(data.get("model")),
    )


def _openai_reply(data: dict) -> Reply:
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise _ShapeError("no choices")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise _ShapeError("no message in the first choice")
    raw = choices[0].get("finish_reason")
    if raw is not None and not isinstance(raw, str):
        raise _ShapeError("finish_reason is not a string")
    content = message.get("content")
    if isinstance(content, list):  # some compatible servers send content parts
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        content = "".join(t for t in parts if isinstance(t, str))
    if content is not None and not isinstance(content, str):
        raise _ShapeError("message content is not text")
    refusal = message.get("refusal")
    stop = _OPENAI_STOPS.get(raw or "", Stop.OTHER)
    text = content or ""
    if isinstance(refusal, str) and refusal:
        stop, text = Stop.REFUSAL, refusal
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    return Reply(
        text=text,
        stop=stop,
        input_tokens=_tokens(usage, "prompt_tokens"),
        output_tokens=_tokens(usage, "completion_tokens"),
        raw_stop_reason=raw,
        model=_text_or_none(data.get("model")),
        system_fingerprint=_text_or_none(data.get("system_fingerprint")),
    )


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _provider_label(provider: str) -> str:
    return {ANTHROPIC: "Anthropic", OPENAI: "OpenAI", OPENAI_COMPATIBLE: "The server"}[provider]


def _error_fields(data: Any) -> tuple[str | None, str | None, str | None]:
    """(type, code, message) from either provider's error body, when present."""
    if not isinstance(data, dict):
        return None, None, None
    err = data.get("error")
    if isinstance(err, str):
        return None, None, err
    if not isinstance(err, dict):
        return None, None, None

    def text(v: Any) -> str | None:
        return v if isinstance(v, str) and v else None

    return text(err.get("type")), text(err.get("code")), text(err.get("message"))


def classify_status(
    provider: str, status: int, err_type: str | None, code: str | None, msg: str | None
) -> str:
    """The error class of a non-200 response."""
    words = " ".join(s for s in (err_type, code) if s).lower()
    lowered = (msg or "").lower()
    if status == 402 or "insufficient_quota" in words or "billing" in words:
        return ErrorClass.QUOTA
    if provider == ANTHROPIC and "credit balance" in lowered:
        return ErrorClass.QUOTA  # Anthropic reports an empty balance as a 400
    if status in (401, 403):
        return ErrorClass.AUTH
    if status == 429:
        return ErrorClass.RATE_LIMIT
    if status in (503, 529) or "overloaded" in words:
        return ErrorClass.OVERLOADED
    if status == 408 or status >= 500:
        return ErrorClass.SERVER
    return ErrorClass.BAD_REQUEST


_ADVICE = {
    # No "the run stops here": the explorer makes one call, and a run's own message says it stopped.
    ErrorClass.AUTH: "The provider rejected the API key. Check the key.",
    ErrorClass.QUOTA: "The account behind this key has no quota or credit left.",
    ErrorClass.RATE_LIMIT: "The provider is rate-limiting this key.",
    ErrorClass.OVERLOADED: "The provider is overloaded.",
    ErrorClass.SERVER: "The provider had a server error.",
    ErrorClass.BAD_REQUEST: "The provider refused the request (check the model name and settings).",
}


def _http_error(provider: str, status: int, data: Any, key: str | None) -> ProviderError:
    err_type, code, msg = _error_fields(data)
    kind = classify_status(provider, status, err_type, code, msg)
    detail = ", ".join(dict.fromkeys(s for s in (err_type, code) if s))
    message = f"{_ADVICE[kind]} (HTTP {status}{': ' + detail if detail else ''})"
    if msg:
        short = " ".join(msg.split())
        if len(short) > _DETAIL_LIMIT:
            short = short[:_DETAIL_LIMIT] + "..."
        message += f" {_provider_label(provider)} said: {short}"
    return ProviderError(kind, status, redact(message, key), redact(err_type or code or "", key) or None)
