"""A call entry passed on sight: one of a run, as ``run`` and the page write them (DR-006).

Nearly every entry of a long log is such a call, and the full validation (:func:`pyapp.auditlog.validation.
validate_entry`) walks each of its values for numbers out of range and lone surrogates before checking each field
with a step of Python of its own. :func:`plainly_valid_call` decides the same for the common case in a few
comparisons of exact types: every key, no search, every number of its JSON type and in range, every text valid
Unicode within its limit. It never passes an entry the full validation refuses; anything it does not pass, valid or
not, goes the full way, which alone says what is wrong.
"""

from __future__ import annotations

from pyapp.auditlog.fields import HASH_RE, ID_RE, STOPS, settings_problem
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
from pyapp.core.jsontypes import MAX_SAFE_INTEGER
from pyapp.core.vocabulary import ANSWERED, EntryType, Outcome

_KEY_SETS = (frozenset(CALL_KEYS), frozenset(CALL_KEYS + CALL_DRIFT_KEYS))
_IDS = ("id", "run_id", "case_id", "eval_set_version", "prompt_version")
_COUNTS = ("input_tokens", "output_tokens")
_OPTIONAL_TEXTS = (("raw_stop_reason", 200), ("failure", MAX_TEXT_BYTES),
                   *((key, MAX_REPORTED_BYTES) for key in CALL_DRIFT_KEYS))
_SETTING_TYPES = {str, int, float, type(None)}


def plainly_valid_call(obj: dict) -> bool:
    """True for a call entry of a run that the full validation would find valid, decided on sight (module doc)."""
    if obj.get("type") != EntryType.CALL or obj.keys() not in _KEY_SETS or obj["search"] is not None:
        return False
    if not all(type(ident) is str and ID_RE.match(ident) for ident in map(obj.__getitem__, _IDS)):
        return False
    answer, stop, status, outcome, error = obj["answer"], obj["stop"], obj["status"], obj["outcome"], obj["error"]
    message, prompt_hash, settings = obj["message"], obj["prompt_hash"], obj["settings"]
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
    limits = [(message, MAX_TEXT_BYTES)] if answer is None else [(message, MAX_TEXT_BYTES), (answer, MAX_ANSWER_BYTES)]
    for key, limit in _OPTIONAL_TEXTS:
        value = obj.get(key)
        if value is not None:
            limits.append((value, limit))
    if not all(type(text) is str for text, _ in limits):
        return False
    texts = [text for text, _ in limits]  # ids, hashes, times and names of a kind are ASCII by their checks above
    if type(settings) is not dict or not _plain_settings(settings, texts):
        return False
    return _valid_unicode("".join(texts), limits) and settings_problem(settings) is None


def _milliseconds(value: object) -> bool:
    return (type(value) is int or type(value) is float) and 0 <= value <= MAX_NUMBER


def _plain_settings(settings: dict, texts: list[str]) -> bool:
    """True when every value of ``settings`` is text, a number in range or null; their texts are added to ``texts``."""
    if not set(map(type, settings.values())) <= _SETTING_TYPES:
        return False
    for name, value in settings.items():
        if type(value) is str:
            texts.append(value)
        elif type(value) is int and not -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
            return False
        elif type(value) is float and not -MAX_NUMBER <= value <= MAX_NUMBER:  # not NaN, not infinite
            return False
        texts.append(name)
    return True


def _valid_unicode(joined: str, limits: list[tuple[str, int]]) -> bool:
    """True when no text of ``joined`` holds a lone surrogate and each of ``limits`` fits its limit in UTF-8."""
    if joined.isascii():
        return all(len(text) <= limit for text, limit in limits)
    try:
        joined.encode("utf-8")  # a lone surrogate is the one thing UTF-8 cannot encode
    except UnicodeEncodeError:
        return False
    # A character takes at most four bytes, so only a text of more than a quarter of its limit is encoded.
    return all(len(text) <= limit and (4 * len(text) <= limit or len(text.encode("utf-8")) <= limit)
               for text, limit in limits)
