"""Whether a text lets a reader recover the API key, in any view a reader could decode."""

from __future__ import annotations

import json


def key_recoverable(text: str, key: str) -> bool:
    return any(key in s for s in strings_decoded(text))


def strings_decoded(value: object, depth: int = 0) -> list[str]:
    """Every string a reader gets from ``value`` by parsing JSON, and JSON inside its strings, again and again."""
    if isinstance(value, str):
        found = [value]
        if depth < 4:
            try:
                inner = json.loads(value)
            except ValueError:
                inner = None
            if inner is not None and not isinstance(inner, (int, float, bool)):
                found += strings_decoded(inner, depth + 1)
        return found
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in strings_decoded(k, depth) + strings_decoded(v, depth)]
    if isinstance(value, list):
        return [s for item in value for s in strings_decoded(item, depth)]
    return []
