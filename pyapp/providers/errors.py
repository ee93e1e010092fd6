"""A response that is not an answer: its error class, and a message for the visitor that says what to do and
never holds the key (DR-005)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pyapp.core.vocabulary import ErrorClass
from pyapp.providers.keyguard import redact
from pyapp.providers.settings import ANTHROPIC, OPENAI, OPENAI_COMPATIBLE

_DETAIL_LIMIT = 300


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


def provider_label(provider: str) -> str:
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


def http_error(provider: str, status: int, data: Any, key: str | None) -> ProviderError:
    err_type, code, msg = _error_fields(data)
    kind = classify_status(provider, status, err_type, code, msg)
    detail = ", ".join(dict.fromkeys(s for s in (err_type, code) if s))
    message = f"{_ADVICE[kind]} (HTTP {status}{': ' + detail if detail else ''})"
    if msg:
        short = " ".join(msg.split())
        if len(short) > _DETAIL_LIMIT:
            short = short[:_DETAIL_LIMIT] + "..."
        message += f" {provider_label(provider)} said: {short}"
    return ProviderError(kind, status, redact(message, key), redact(err_type or code or "", key) or None)
