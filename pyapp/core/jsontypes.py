"""What a JSON value from outside may hold: whole numbers in the two senses pyapp needs, and the
scan for values that JSON parses but nothing downstream should take (numbers beyond 2^53, texts
that are not valid Unicode).

``bool`` is a subclass of ``int`` in Python, but ``true`` is never a number in
JSON, so both refuse it.
"""

from __future__ import annotations

import math
import re
from typing import Any

# The largest integer a JavaScript number holds exactly: the page passes entries through JavaScript.
MAX_SAFE_INTEGER = 2**53 - 1
MAX_SHOWN_CHARS = 40

# In a Python string every surrogate is a lone one (a JSON pair decodes to one character).
_SURROGATE_RE = re.compile("[\ud800-\udfff]")
_INT_ONLY = {int}


def is_int(value: object) -> bool:
    """A Python ``int`` and not a ``bool``: what a stored field or a count must be."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_json_integer(value: object) -> bool:
    """An integer as JSON Schema counts one: ``3`` and ``3.0`` are, ``3.5`` and ``true`` are not."""
    return is_int(value) or (isinstance(value, float) and value.is_integer())


def has_lone_surrogate(text: str) -> bool:
    if text.isascii():  # a flag of the string, known without a look at its characters
        return False
    # A lone surrogate is the one thing UTF-8 cannot encode; the encoder finds it far sooner than a search.
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def storable(text: str | None) -> str | None:
    """``text`` with every lone surrogate replaced by U+FFFD, so that it encodes as UTF-8."""
    if text is None or not _SURROGATE_RE.search(text):
        return text
    return _SURROGATE_RE.sub("\ufffd", text)



def shown(value: object, limit: int = MAX_SHOWN_CHARS) -> str:
    """``value`` (a key or a text) as a problem message may echo it: at most ``limit`` characters, valid Unicode."""
    text = value if isinstance(value, str) else type(value).__name__
    if len(text) > limit:
        text = text[:limit] + "…"
    return storable(text)


def hostile_values(obj: Any, limit: int = 3) -> list[tuple[str, str]]:
    """(where, what) for the first ``limit`` numbers out of range and texts that are not valid Unicode.

    Out of range: an integer beyond ±(2^53 − 1) or a float that is not finite (JSON's
    ``1e400`` parses to infinity). ``where`` is a path like ``settings.temperature``
    ("" for ``obj`` itself). Walks any nesting without recursion; never raises.
    """
    if not _holds_hostile(obj):
        return []
    found: list[tuple[str, str]] = []
    stack: list[tuple[str, Any]] = [("", obj)]
    while stack and len(found) < limit:
        path, value = stack.pop()
        if isinstance(value, str):
            if _SURROGATE_RE.search(value):
                found.append((path, "holds characters that are not valid Unicode (a lone surrogate)"))
        elif isinstance(value, bool):
            continue
        elif isinstance(value, int):
            if not -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
                found.append((path, "is a number out of range (beyond 2^53)"))
        elif isinstance(value, float):
            if not math.isfinite(value):
                found.append((path, "is a number out of range (not finite)"))
        elif isinstance(value, dict):
            if any(isinstance(key, str) and _SURROGATE_RE.search(key) for key in value):
                found.append((path, "has a key that is not valid Unicode (a lone surrogate)"))
                continue
            stack.extend((f"{path}.{shown(key)}" if path else shown(key), item)
                         for key, item in reversed(list(value.items())))
        elif isinstance(value, (list, tuple)):
            stack.extend((f"{path}[{i}]", item) for i, item in reversed(list(enumerate(value))))
    return found


def _holds_hostile(obj: Any) -> bool:
    # The fast pass of hostile_values: no paths, exact types only (anything unusual -> the full walk decides).
    stack = [obj]
    strings: list[str] = []
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind is str:
            strings.append(value)
        elif kind is int:
            if not -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
                return True
        elif kind is dict:
            strings.extend(value)  # keys: a key that is not text makes the join below fail
            stack.extend(value.values())
        elif kind is float:
            if not math.isfinite(value):
                return True
        elif kind is list:
            # A list of plain integers (an answer's ids) is bounded by its ends, without a step per item.
            if value and set(map(type, value)) == _INT_ONLY:
                if min(value) < -MAX_SAFE_INTEGER or max(value) > MAX_SAFE_INTEGER:
                    return True
            else:
                stack.extend(value)
        elif value is not None and kind is not bool:
            return True
    try:
        joined = "".join(strings)
    except TypeError:
        return True
    return has_lone_surrogate(joined)
