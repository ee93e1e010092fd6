"""A call entry passed on sight: one of a run, as ``run`` and the page write them (DR-006).

Nearly every entry of a long log is such a call, and the full validation (:func:`pyapp.auditlog.validation.
validate_entry`) walks each of its values for numbers out of range and lone surrogates before checking each field
with a step of Python of its own. :func:`plainly_valid_call` decides the same for the common case in a few
comparisons of exact types: every key, no search, every number of its JSON type and in range, every text valid
Unicode within its limit. It never passes an entry the full validation refuses; anything it does not pass, valid or
not, goes the full way, which alone says what is wrong.
"""

from __future__ import annotations

import re

from pyapp.auditlog.fields import HASH_RE, ID_PATTERN, STOPS, settings_problem
from pyapp.auditlog.format import (
    AUDIT_FORMAT,
    CALL_DRIFT_KEYS,
    CALL_ERRORS,
    CALL_KEYS,
    MAX_ANSWER_BYTES,
    MAX_NUMBER,
    MAX_REPORTED_BYTES,
    MAX_TEXT_BYTES,
    OUTCOMES,
    valid_time,
)
from pyapp.core.jsontypes import has_lone_surrogate
from pyapp.core.vocabulary import ANSWERED, EntryType, Outcome

_KEY_SETS = (frozenset(CALL_KEYS), frozenset(CALL_KEYS + CALL_DRIFT_KEYS))
_IDS = ("id", "run_id", "case_id", "eval_set_version", "prompt_version")
_COUNTS = ("input_tokens", "output_tokens")
_OPTIONAL_TEXTS = (("raw_stop_reason", 200), ("failure", MAX_TEXT_BYTES),
                   *((key, MAX_REPORTED_BYTES) for key in CALL_DRIFT_KEYS))
# The ids, joined by line breaks (which no id holds), each as fields.ID_RE takes one.
_IDS_RE = re.compile(rf"(?:{ID_PATTERN}\n){{{len(_IDS) - 1}}}{ID_PATTERN}\Z")


def plainly_valid_call(obj: dict) -> bool:
    """True for a call entry of a run that the full validation would find valid, decided on sight (module doc)."""
    if obj.get("type") != EntryType.CALL or obj.keys() not in _KEY_SETS or obj["search"] is not None:
        return False
    try:
        if not _IDS_RE.match("\n".join(map(obj.__getitem__, _IDS))):
            return False
    except TypeError:  # an id that is not text
        return False
    answer, stop, status, outcome, error = obj["answer"], obj["stop"], obj["status"], obj["outcome"], obj["error"]
    prompt_hash = obj["prompt_hash"]
    if not (type(obj["format"]) is int and obj["format"] == AUDIT_FORMAT and valid_time(obj["time"])
            and type(prompt_hash) is str and HASH_RE.match(prompt_hash)
            and (status is None or (type(status) is int and 100 <= status <= 599))
            and (stop is None or (type(stop) is str and stop in STOPS))
            and type(outcome) is str and outcome in OUTCOMES
            and (error is None or (type(error) is str and error in CALL_ERRORS))
            and type(obj["retries"]) is int and 0 <= obj["retries"] <= 1000
            and all(value is None or (type(value) is int and 0 <= value <= MAX_NUMBER)
                    for value in map(obj.__getitem__, _COUNTS))
            and _milliseconds(obj["total_ms"]) and (obj["answer_ms"] is None or _milliseconds(obj["answer_ms"]))):
        return False
    if outcome in ANSWERED:
        if error is not None or type(answer) is not str or stop is None:
            return False
    elif answer is not None or error is None or (error == Outcome.CANCELLED) != (outcome == Outcome.CANCELLED):
        return False
    limits = [(obj["message"], MAX_TEXT_BYTES)] if answer is None else \
        [(obj["message"], MAX_TEXT_BYTES), (answer, MAX_ANSWER_BYTES)]
    for key, limit in _OPTIONAL_TEXTS:
        value = obj.get(key)
        if value is not None:
            limits.append((value, limit))
    if not all(type(text) is str for text, _ in limits):
        return False
    # The settings pass only if their class takes them, and it refuses a number out of range and any text that is
    # not printable ASCII; so only the texts above may hold a lone surrogate.
    return _valid_unicode(limits) and type(obj["settings"]) is dict and settings_problem(obj["settings"]) is None


def _milliseconds(value: object) -> bool:
    return (type(value) is int or type(value) is float) and 0 <= value <= MAX_NUMBER


def _valid_unicode(limits: list[tuple[str, int]]) -> bool:
    """True when no text of ``limits`` holds a lone surrogate and each fits its limit in UTF-8."""
    joined = "".join([text for text, _ in limits])
    if joined.isascii():
        return all(len(text) <= limit for text, limit in limits)
    if has_lone_surrogate(joined):
        return False
    # A character takes at most four bytes, so only a text of more than a quarter of its limit is encoded.
    return all(len(text) <= limit and (4 * len(text) <= limit or len(text.encode("utf-8")) <= limit)
               for text, limit in limits)
