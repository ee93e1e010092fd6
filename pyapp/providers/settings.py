"""The request settings a visitor chooses (DR-005): provider, model, max tokens, temperature and, for an
OpenAI-compatible server, its base URL, checked so that nothing unsafe is sent or recorded.

``temperature`` may be ``None``: the field is then left out of the request, because some
models accept only their default temperature.
"""

from __future__ import annotations

import ipaddress
import math
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

ANTHROPIC = "anthropic"


OPENAI = "openai"


OPENAI_COMPATIBLE = "openai-compatible"


PROVIDERS = (ANTHROPIC, OPENAI, OPENAI_COMPATIBLE)


MAX_MODEL_LENGTH = 200


MAX_BASE_URL_LENGTH = 2_000


MAX_TOKENS_LIMIT = 200_000


_MODEL_RE = re.compile(r"^[\x21-\x7e]+$")


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


def is_private_channel(url: str) -> bool:
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
