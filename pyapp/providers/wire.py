"""What crosses the network: one HTTP request as a transport sends it, and the reply a vendor's parser reads
from the response (DR-005, DR-008)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from pyapp.core.jsontypes import is_int
from pyapp.core.vocabulary import Stop
from pyapp.providers.settings import ANTHROPIC


class PromptLike(Protocol):
    system: str
    user: str


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


class ShapeError(Exception):
    pass


def tokens(usage: dict, *names: str) -> int | None:
    values = [usage.get(n) for n in names]
    ints = [v for v in values if is_int(v) and v >= 0]
    return sum(ints) if ints else None


def text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
