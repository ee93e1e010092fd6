"""Where the API key may appear: nowhere, in raw text or in any JSON-decoded view of it (DR-005).

A provider can echo the key in its reply, and a JSON answer can hide it behind
escapes (``\\u0073\\u006b...``) that pass a plain substring test but come back as
soon as a reader parses the answer. So every check looks at a text and at what
JSON decoding makes of it (again and again, for JSON inside JSON strings), and
every redaction removes the key from all of those views.

Keys shorter than :data:`MIN_SECRET_LENGTH` are not treated as secrets: hosted
providers issue keys of dozens of characters, while local OpenAI-compatible
servers are commonly given dummy keys such as ``x``, ``none`` or ``EMPTY``,
which occur in ordinary text by chance. Such a key is still only ever sent in
a header; the audit entry has no field for any key.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pyapp.core import strict_json

MIN_SECRET_LENGTH = 8
REDACTED = "[redacted]"
WITHHELD = "[withheld: this text contained the API key]"

_DECODE_ROUNDS = 4
_ESCAPE_RE = re.compile(r'\\(u[0-9a-fA-F]{4}|["\\/bfnrt])')
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def secret_variants(key: str | None) -> list[str]:
    """The forms of ``key`` to look for (as given and trimmed), longest first; none for a short key."""
    variants = {v for v in (key or "", (key or "").strip()) if len(v.strip()) >= MIN_SECRET_LENGTH}
    return sorted(variants, key=lambda v: (-len(v), v))


def _unescape(text: str) -> str:
    def one(match: re.Match) -> str:
        code = match[1]
        return chr(int(code[1:], 16)) if code[0] == "u" else _SIMPLE_ESCAPES[code]

    return _ESCAPE_RE.sub(one, text)


def decoded_views(text: str) -> list[str]:
    """``text`` and what decoding its JSON escapes gives, round after round (at most four), until nothing changes.

    Decoding every escape wherever it stands finds whatever ``json.loads`` would
    find inside string values (and in JSON nested in those), without needing the
    text to be valid JSON: a cut answer is decoded too.
    """
    views = [text]
    for _ in range(_DECODE_ROUNDS):
        if "\\" not in views[-1]:
            break
        decoded = _unescape(views[-1])
        if decoded == views[-1]:
            break
        views.append(decoded)
    return views


def text_contains(text: str, variants: list[str]) -> bool:
    """True if any variant occurs in ``text`` or in one of its decoded views."""
    return bool(variants) and any(v in view for view in decoded_views(text) for v in variants)


def scrub_text(text: str, variants: list[str]) -> str:
    """``text`` with the key gone from the raw text and from every decoded view.

    The key as written is replaced by ``[redacted]``. If it still shows once the
    escapes are decoded, a JSON text is parsed, scrubbed value by value and
    written out again; anything else is replaced whole by :data:`WITHHELD`.
    """
    if not text_contains(text, variants):
        return text
    marker = _marker(variants, REDACTED, "[hidden]")
    for variant in variants:
        # Replacing can form a new occurrence with the text around it; repeat a few times.
        for _ in range(8):
            if variant not in text:
                break
            text = text.replace(variant, marker)
    if not text_contains(text, variants):
        return text
    try:
        value = strict_json.loads(text)
    except (TypeError, ValueError, RecursionError):
        return _marker(variants, WITHHELD, "")
    rewritten = json.dumps(scrub_value(value, variants), ensure_ascii=False)
    if text_contains(rewritten, variants):
        return _marker(variants, WITHHELD, "")
    return rewritten


def scrub_value(value: Any, variants: list[str]) -> Any:
    """A copy of a JSON-like ``value`` (dicts, lists, text) with :func:`scrub_text` applied to every string."""
    if isinstance(value, str):
        return scrub_text(value, variants)
    if isinstance(value, dict):
        return {scrub_value(k, variants): scrub_value(v, variants) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub_value(v, variants) for v in value]
    return value


def _marker(variants: list[str], preferred: str, fallback: str) -> str:
    return fallback if text_contains(preferred, variants) else preferred
