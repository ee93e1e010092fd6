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


# Keys the providers echo back in masked form (e.g. "sk-proj-****abcd"), and
# anything shaped like a secret key: never repeat them, even partly.
_MASKED_RE = re.compile(r"[A-Za-z0-9_\-]*\*{3,}[A-Za-z0-9_\-]*")


_KEYLIKE_RE = re.compile(r"\bsk-[A-Za-z0-9_\-]{6,}")


MESSAGE_WITHHELD = "[message withheld: it contained the API key]"


def redact(text: str, key: str | None) -> str:
    """``text`` with the key, masked keys and key-shaped tokens replaced by ``[redacted]``.

    A text that still shows the key once JSON escapes are decoded is withheld whole;
    a key under :data:`MIN_SECRET_LENGTH` characters is not a secret (DR-005).
    """
    text = _KEYLIKE_RE.sub(REDACTED, _MASKED_RE.sub(REDACTED, text))
    variants = secret_variants(key)
    if not text_contains(text, variants):
        return text
    scrubbed = scrub_text(text, variants)
    return MESSAGE_WITHHELD if scrubbed == WITHHELD or not scrubbed else scrubbed


def _strings(obj: Any):
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            yield from _strings(item)


def contains_secret(obj: Any, key: str | None) -> bool:
    """True if the key occurs in any string inside ``obj``, as written or once JSON escapes are decoded.

    Keys shorter than :data:`pyapp.providers.keyguard.MIN_SECRET_LENGTH` are not secrets (DR-005).
    """
    variants = secret_variants(key)
    return bool(variants) and any(text_contains(s, variants) for s in _strings(obj))


def scrub_secret(obj: Any, key: str | None) -> Any:
    """A copy of ``obj`` with the key removed from every string, in raw and decoded views alike."""
    variants = secret_variants(key)
    return scrub_value(obj, variants) if variants else obj
