"""Strict JSON for text from outside: model answers, provider replies, imported files.

Strict means no NaN or Infinity, no key twice in one object, no integer of more
than ``MAX_INT_DIGITS`` digits (Python's own limit, refused here in words rather
than with its message), and a bound on nesting checked before parsing: under Pyodide a ``json.loads`` of about ten
thousand nested brackets exhausts the JavaScript stack and kills the worker
rather than raising ``RecursionError``.

Parsing is on the path of every stored entry and every graded answer (DR-006), so
the hooks cost little: integers go through Python's own parser, whose own limit
refuses a longer number as it parses (the text is then parsed again with the
bound, to say so in words), and repeated keys are looked for only in an object
whose dict came out shorter than its pairs.
"""

from __future__ import annotations

import json
import re
import sys
from itertools import accumulate

MAX_DEPTH = 200
MAX_INT_DIGITS = 4_300

_ESCAPES = re.compile(r"\\\\|\\\"")
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_DEPTH_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def nesting_exceeds(text: str, limit: int) -> bool:
    """True if ``text``, read as JSON, opens more than ``limit`` arrays or objects inside each other.

    Brackets inside strings are ignored. Never underestimates the depth a JSON parser
    would reach before it stops, even on text that is not JSON, so a ``False`` means
    ``json.loads`` cannot recurse deeper than ``limit``.
    """
    if text.count("[") + text.count("{") <= limit:
        return False
    # Drop escaped backslashes and quotes, then every second piece between quotes is
    # string content. A backslash outside a string is a syntax error the parser stops
    # at, so misreading what follows it cannot hide depth the parser would reach.
    outside = "".join(_ESCAPES.sub("", text).split('"')[::2])
    brackets = _NOT_BRACKET.sub("", outside)
    return max(accumulate(map(_DEPTH_STEP.__getitem__, brackets)), default=0) > limit


class TooDeep(ValueError):
    """The text nests arrays or objects more deeply than allowed."""


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError("a number has too many digits to read")
    return int(digits)


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    out = dict(pairs)
    if len(out) < len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f'the key "{key[:40]}" appears twice in one object')
            seen.add(key)
    return out


_DECODER = json.JSONDecoder(parse_constant=_reject_constant, object_pairs_hook=_unique_keys)
_BOUNDED_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_int=_bounded_int,
                                    object_pairs_hook=_unique_keys)


def loads(text: str, max_depth: int | None = MAX_DEPTH) -> object:
    """Parse ``text`` strictly; ``json.JSONDecodeError`` for bad syntax, ``ValueError`` otherwise.

    ``max_depth`` None: the caller has bounded the nesting already, with :func:`nesting_exceeds` over a
    text that holds this one from its start or after whole JSON texts (the lines of a log before it).
    """
    if max_depth is not None and nesting_exceeds(text, max_depth):
        raise TooDeep(f"it nests lists or objects more than {max_depth} levels deep")
    if not isinstance(text, str) or text.startswith("\ufeff"):  # what json.loads says about those
        return json.loads(text, parse_constant=_reject_constant, parse_int=_bounded_int,
                          object_pairs_hook=_unique_keys)
    if not 0 < sys.get_int_max_str_digits() <= MAX_INT_DIGITS:  # Python's limit lifted: bound every integer
        return _BOUNDED_DECODER.decode(text)
    try:
        return _DECODER.decode(text)
    except json.JSONDecodeError:
        raise
    except ValueError:  # Python's limit on a number, or a hook's refusal: the bounded parse says which, in words
        return _BOUNDED_DECODER.decode(text)
