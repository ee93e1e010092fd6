"""One small interface over the vendors (DR-005): ``build_request`` turns settings, a prompt and a schema
into an :class:`~pyapp.providers.wire.HttpRequest`; ``parse_response`` turns an HTTP status, headers and
body into a :class:`~pyapp.providers.wire.Reply` or a :class:`~pyapp.providers.errors.ProviderError`.
Each vendor's module (:mod:`pyapp.providers.anthropic`, :mod:`pyapp.providers.openai`) builds its own
body and reads its own reply; sending is someone else's job (the browser's transport, the command
line's ``urllib``, or a test's fake).

The API key is only ever placed in a header. Every message built here comes from the HTTP status
and the provider's error type and message, and is passed through
:func:`pyapp.providers.keyguard.redact` before it leaves.
"""

from __future__ import annotations

import re
from typing import Any

from pyapp.core import strict_json
from pyapp.core.vocabulary import ErrorClass
from pyapp.providers import anthropic, openai
from pyapp.providers.errors import ProviderError, http_error, provider_label
from pyapp.providers.keyguard import redact, secret_variants, text_contains
from pyapp.providers.settings import ANTHROPIC, OPENAI_COMPATIBLE, PROVIDERS, Settings, is_private_channel
from pyapp.providers.wire import HttpRequest, PromptLike, Reply, ShapeError

DEFAULT_SCHEMA_NAME = "search_explanation"
# What Anthropic's forced tool is told it records (OpenAI's strict schema takes no such text).
DEFAULT_TOOL_DESCRIPTION = "Record the explanation of the search as JSON that fits this schema."


_SNIPPET_LIMIT = 120


_SCHEMA_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


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
    description: str = DEFAULT_TOOL_DESCRIPTION,
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
    if key and settings.base_url and not is_private_channel(settings.base_url):
        raise ValueError(
            "The base URL starts with http:// and names another computer, so the key would cross the network "
            "unencrypted; nothing was sent. Use https://, or a server on this computer (127.0.0.1, localhost "
            "or [::1]). This site's security policy lets the page reach only Anthropic, OpenAI and servers on "
            "this computer, so a server elsewhere would be blocked by the browser anyway."
        )
    schema = schema_for_sending(schema)
    if settings.provider == ANTHROPIC:
        return anthropic.request(settings, prompt, key or "", schema, schema_name, description)
    return openai.request(settings, prompt, key, schema, schema_name)


def parse_response(
    provider: str, status: int, headers: dict, body_text: str, *, key: str | None = None
) -> Reply | ProviderError:
    """Classify one HTTP response; ``key`` is only used to scrub messages."""
    if provider not in PROVIDERS:
        raise ValueError(f"Unknown provider {provider!r}.")
    data = _json_or_none(body_text)
    if status != 200:
        return http_error(provider, status, data, key)
    label = provider_label(provider)
    if not isinstance(data, dict):
        snippet = " ".join((body_text or "").split())[:_SNIPPET_LIMIT]
        return ProviderError(
            ErrorClass.BAD_RESPONSE,
            status,
            redact(f"{label} answered HTTP 200 but the body is not JSON (it starts: {snippet!r}).", key),
        )
    try:
        if provider == ANTHROPIC:
            return anthropic.reply(data)
        return openai.reply(data)
    except ShapeError as exc:
        return ProviderError(
            ErrorClass.BAD_RESPONSE, status,
            redact(f"{label} answered HTTP 200 in an unexpected shape: {exc}.", key),
        )


def _json_or_none(text: str) -> Any:
    try:
        return strict_json.loads(text)
    except (TypeError, ValueError):
        return None
