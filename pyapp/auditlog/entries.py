"""Audit log entries: plain JSON-able dicts, appended to IndexedDB and exported.

The log is append-only. Six entry types:

``call``      one per call, success or failure, written before anything is shown;
``decision``  a visitor's verdict (helpful or not, with a note) on an earlier call;
``cancel``    a visitor cancelled a case of a run (points at the call, if one ran);
``rating``    a named rater's yes/no answers to the rubric (``pyapp.explanation.rubric``) on an earlier call (DR-009);
``plan``      a comparison of two configurations registered in advance (``pyapp.evaluation.plans``);
``own_case``  a search the visitor added to their own cases in the explorer (``pyapp.evaluation.own_cases``, DR-009).

Every entry carries ``format`` (:data:`AUDIT_FORMAT`), ``id``, ``type`` and
``time`` (ISO 8601, UTC, millisecond precision, ``Z`` suffix). Later facts
about a call are new entries whose ``call_id`` names it; nothing is ever
edited.

There is no field for the API key. :func:`contains_secret` is the last check
before a write or an export, and :func:`scrub_secret` removes the key from an
entry without losing the rest of it.

A call entry also records what the provider said answered (``model_reported``,
``system_fingerprint``, DR-008); entries written before those keys existed lack them
and stay valid.

:func:`validate_entry` is strict (known type, exactly the known keys, types,
safe id patterns, bounded sizes) so that imported files and possibly corrupt
stored records are rejected with reasons instead of being half-read. Before any
other check it refuses every number outside JavaScript's exact-integer range and
every text holding a lone surrogate, anywhere in the entry, so no later
arithmetic, encoding or export meets one (DR-006).
"""

from __future__ import annotations

import math
import re
import uuid
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from pyapp.auditlog.rules import parse_rule
from pyapp.core.jsontypes import has_lone_surrogate, hostile_values, is_int, shown, storable
from pyapp.core.vocabulary import ANSWERED, EntryType, ErrorClass, Outcome, SearchKind, Stop
from pyapp.explanation.rubric import answers_problem
from pyapp.kdtree.tree import ORDERS
from pyapp.providers.client import CallOutcome
from pyapp.providers.keyguard import scrub_value, secret_variants, text_contains
from pyapp.providers.vendors import Settings

AUDIT_FORMAT = 1

ENTRY_TYPES = tuple(EntryType)
OUTCOMES = tuple(Outcome)
# What a call's ``error`` may hold: why the request failed, or that the visitor cancelled it.
CALL_ERRORS = (*ErrorClass, Outcome.CANCELLED)

MAX_ANSWER_BYTES = 1_000_000
MAX_NOTE_BYTES = 10_000
MAX_TEXT_BYTES = 10_000  # message and failure detail
MAX_NUMBER = 1e12
MAX_RATER_CHARS = 40

_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}\Z")  # \Z: "$" would accept a final line break
_HASH_RE = re.compile(r"^[0-9a-f]{64}\Z")
_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_CONFIGURATION_RE = re.compile(r"^[0-9a-f]{8}\Z")  # pyapp.evaluation.configurations.Configuration.id
_TIME_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\Z")

_COMMON_KEYS = ("format", "id", "type", "time")
CALL_KEYS = _COMMON_KEYS + (
    "run_id", "case_id", "search", "eval_set_version", "prompt_version", "prompt_hash", "settings",
    "status", "answer", "stop", "raw_stop_reason", "input_tokens", "output_tokens", "answer_ms",
    "total_ms", "retries", "outcome", "error", "failure", "message",
)
# Added later, so a call entry may lack them: what the provider says answered (DR-008).
CALL_DRIFT_KEYS = ("model_reported", "system_fingerprint")
MAX_REPORTED_BYTES = 200
DECISION_KEYS = _COMMON_KEYS + ("call_id", "helpful", "note")
CANCEL_KEYS = _COMMON_KEYS + ("run_id", "case_id", "call_id")
RATING_KEYS = _COMMON_KEYS + ("call_id", "rater", "rubric_version", "answers", "note")
SEARCH_KEYS = ("order", "kind", "lon", "lat", "radius")
PLAN_KEYS = _COMMON_KEYS + ("x", "y", "metric", "rule", "note")
OWN_CASE_KEYS = _COMMON_KEYS + ("search",)
# The one primary metric a plan can name (DR-008); every other figure is secondary.
PLAN_METRIC = "grounded_share"
_KEYS = {EntryType.CALL: CALL_KEYS, EntryType.DECISION: DECISION_KEYS, EntryType.CANCEL: CANCEL_KEYS,
         EntryType.RATING: RATING_KEYS, EntryType.PLAN: PLAN_KEYS, EntryType.OWN_CASE: OWN_CASE_KEYS}
# Sets, and values computed once: validation runs on every entry of a stored log (DR-006).
_ALLOWED = {kind: frozenset(keys + CALL_DRIFT_KEYS if kind == EntryType.CALL else keys) for kind, keys in _KEYS.items()}
_STOPS = tuple(Stop)
_SEARCH_KINDS = tuple(SearchKind)
_SETTINGS_PROBLEMS: dict[tuple, str | None] = {}
MAX_SETTINGS_REMEMBERED = 256


def new_entry_id() -> str:
    """A fresh random id (uuid4 as 32 hex digits; ``os.urandom`` works under Pyodide)."""
    return uuid.uuid4().hex


def format_time(when: datetime | str) -> str:
    """``when`` as ``YYYY-MM-DDTHH:MM:SS.mmmZ``; an aware datetime or an already formatted string."""
    if isinstance(when, str):
        if not _valid_time(when):
            raise ValueError(f"time {when!r} is not YYYY-MM-DDTHH:MM:SS.mmmZ")
        return when
    if not isinstance(when, datetime) or when.tzinfo is None:
        raise ValueError("time must be a timezone-aware datetime")
    utc = when.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def ungraded_outcome(outcome: CallOutcome) -> str | None:
    """The outcome class of a call that produced no answer, or ``None`` when the reply must be graded."""
    if outcome.reply is not None:
        return None
    return Outcome.CANCELLED if outcome.error == Outcome.CANCELLED else Outcome.INFRA_FAILURE


def call_entry(
    *,
    entry_id: str,
    time: datetime | str,
    run_id: str | None,
    case_id: str | None,
    eval_set_version: str | None,
    prompt: Any,
    settings: Settings,
    outcome: CallOutcome,
    grade_outcome: str,
    failure: str | None,
    search: dict | None = None,
) -> dict:
    """The audit entry of one call (DR-005). ``prompt`` needs ``.version`` and ``.hash``.

    ``search`` ({order, kind, lon, lat, radius}) is required for explorer calls
    (``run_id`` None), so the log and its exports say which search was explained;
    only calls of a run are graded again (``pyapp.evaluation.runs``). Raises ``ValueError``
    when the parts contradict each other (e.g. a graded outcome without a reply).
    """
    reply = outcome.reply
    expected = ungraded_outcome(outcome)
    if expected is not None and grade_outcome != expected:
        raise ValueError(f"a call without a reply is '{expected}', not '{grade_outcome}'")
    if expected is None and grade_outcome not in ANSWERED:
        raise ValueError(f"a call with a reply must be graded, not '{grade_outcome}'")
    message = storable(outcome.message)
    answer = None if reply is None else stored_answer(reply.text)
    if reply is not None and answer != reply.text:
        message = f"{answer_note(reply.text)} {message}"
    input_tokens = None if reply is None else _token_count(reply.input_tokens)
    output_tokens = None if reply is None else _token_count(reply.output_tokens)
    if reply is not None and (input_tokens, output_tokens) != (reply.input_tokens, reply.output_tokens):
        message = f"The provider reported a token count out of range; it is not recorded. {message}"
    entry = {
        "format": AUDIT_FORMAT,
        "id": entry_id,
        "type": EntryType.CALL,
        "time": format_time(time),
        "run_id": run_id,
        "case_id": case_id,
        "search": None if search is None else {k: search.get(k) for k in SEARCH_KEYS},
        "eval_set_version": eval_set_version,
        "prompt_version": prompt.version,
        "prompt_hash": prompt.hash,
        "settings": settings.to_dict(),
        "status": outcome.status,
        "answer": answer,
        "stop": None if reply is None else reply.stop,
        "raw_stop_reason": None if reply is None else _cut(storable(reply.raw_stop_reason), 200),
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "answer_ms": outcome.answer_ms,
        "total_ms": outcome.total_ms,
        "retries": outcome.retries,
        "outcome": grade_outcome,
        "error": outcome.error,
        "failure": _cut(storable(failure), MAX_TEXT_BYTES),
        "message": _cut(message.strip(), MAX_TEXT_BYTES),
        "model_reported": None if reply is None else _cut(storable(reply.model), MAX_REPORTED_BYTES),
        "system_fingerprint": None if reply is None else _cut(storable(reply.system_fingerprint),
                                                              MAX_REPORTED_BYTES),
    }
    _raise_if_invalid(entry)
    return entry


def decision_entry(entry_id: str, time: datetime | str, call_id: str, helpful: bool, note: str) -> dict:
    """A visitor's verdict on the call ``call_id``; ``ValueError`` if the note is too long."""
    entry = {
        "format": AUDIT_FORMAT,
        "id": entry_id,
        "type": EntryType.DECISION,
        "time": format_time(time),
        "call_id": call_id,
        "helpful": helpful,
        "note": note,
    }
    _raise_if_invalid(entry)
    return entry


def rating_entry(
    entry_id: str, time: datetime | str, call_id: str, rater: str, rubric_version: str, answers: dict, note: str = ""
) -> dict:
    """Rater ``rater``'s answers to rubric ``rubric_version`` on the call ``call_id`` (DR-009).

    ``ValueError`` (in words for the rater) for a name that is empty or too long, or
    answers that do not answer exactly the rubric's questions with yes or no.
    """
    entry = {
        "format": AUDIT_FORMAT,
        "id": entry_id,
        "type": EntryType.RATING,
        "time": format_time(time),
        "call_id": call_id,
        "rater": rater,
        "rubric_version": rubric_version,
        "answers": answers,
        "note": note,
    }
    _raise_if_invalid(entry)
    return entry


def cancel_entry(
    entry_id: str, time: datetime | str, run_id: str, case_id: str, call_id: str | None = None
) -> dict:
    """The visitor cancelled ``case_id`` of ``run_id`` (during call ``call_id``, if one was running)."""
    entry = {
        "format": AUDIT_FORMAT,
        "id": entry_id,
        "type": EntryType.CANCEL,
        "time": format_time(time),
        "run_id": run_id,
        "case_id": case_id,
        "call_id": call_id,
    }
    _raise_if_invalid(entry)
    return entry


def _raise_if_invalid(entry: dict) -> None:
    problems = validate_entry(entry)
    if problems:
        raise ValueError("; ".join(problems))


def stored_answer(text: str) -> str:
    """The answer as the log keeps it, and so as it is graded, at call time and on every rebuild (DR-006).

    Lone surrogates (a provider can send ``"\\ud800"``) become U+FFFD, and the text is
    cut to :data:`MAX_ANSWER_BYTES` of UTF-8. Grading this text, not the reply, is what
    makes the grade at call time the grade every later rebuild gives.
    """
    return _cut(storable(text), MAX_ANSWER_BYTES)


def answer_note(text: str) -> str:
    """A sentence on how :func:`stored_answer` changed ``text`` (empty when it did not)."""
    notes = []
    if has_lone_surrogate(text):
        notes.append("Characters that are not valid Unicode were replaced by \ufffd.")
    size = len(storable(text).encode("utf-8"))
    if size > MAX_ANSWER_BYTES:
        notes.append(f"The answer was {size:,} bytes; the log keeps and grades its first {MAX_ANSWER_BYTES:,}.")
    return " ".join(notes)


def _token_count(value: int | None) -> int | None:
    return value if is_int(value) and 0 <= value <= MAX_NUMBER else None


def _cut(text: str | None, limit: int) -> str | None:
    if text is None:
        return None
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    return data[:limit].decode("utf-8", errors="ignore")


# --------------------------------------------------------------------------- validation


def _valid_time(value: Any) -> bool:
    if not isinstance(value, str) or not _TIME_RE.match(value):
        return False
    try:
        datetime.fromisoformat(value[:-1])  # the pattern fixed the layout; this checks the calendar
    except ValueError:
        return False
    return True


def valid_id(value: Any) -> bool:
    """True for a safe entry or run id: 1-64 letters, digits or ``_.:-``, starting with a letter or digit."""
    return isinstance(value, str) and _ID_RE.match(value) is not None


def valid_rater(value: Any) -> bool:
    """True for a rater's name: 1-40 characters, no control characters, no space at either end.

    Stripped names only, so "Ann" and "Ann " can never count as two raters.
    """
    return (isinstance(value, str) and 0 < len(value) <= MAX_RATER_CHARS and value == value.strip()
            and _CONTROL_RE.search(value) is None)


def _is_number(value: Any) -> bool:
    # math.isfinite would raise OverflowError on a huge int; ints are compared with bounds exactly.
    return is_int(value) or (isinstance(value, float) and math.isfinite(value))


class _Checker:
    def __init__(self, obj: dict):
        self.obj = obj
        self.problems: list[str] = []

    def fail(self, key: str, text: str) -> None:
        self.problems.append(f"{key}: {text}")

    def id(self, key: str, *, optional: bool = False) -> None:
        value = self.obj.get(key)
        if value is None and optional:
            return
        if not isinstance(value, str) or not _ID_RE.match(value):
            self.fail(key, "must be 1-64 letters, digits or _.:- (starting with a letter or digit)")

    def text(self, key: str, limit: int, *, optional: bool = False) -> None:
        value = self.obj.get(key)
        if value is None and optional:
            return
        if not isinstance(value, str):
            self.fail(key, "must be text")
        elif len(value) > limit or len(value.encode("utf-8")) > limit:
            self.fail(key, f"is longer than {limit:,} bytes")

    def int_range(self, key: str, low: int, high: float, *, optional: bool = False) -> None:
        value = self.obj.get(key)
        if value is None and optional:
            return
        if not is_int(value) or not low <= value <= high:
            self.fail(key, f"must be a whole number from {low} to {high:g}")

    def ms(self, key: str, *, optional: bool = False) -> None:
        value = self.obj.get(key)
        if value is None and optional:
            return
        if not _is_number(value) or not 0 <= value <= MAX_NUMBER:
            self.fail(key, "must be a non-negative number of milliseconds")

    def choice(self, key: str, options: tuple, *, optional: bool = False) -> None:
        value = self.obj.get(key)
        if value is None and optional:
            return
        if not isinstance(value, str) or value not in options:
            self.fail(key, f"must be one of {', '.join(options)}")


def validate_entry(obj: Any) -> list[str]:
    """Every problem with ``obj`` as an audit entry (empty list: valid). Never raises."""
    if not isinstance(obj, dict):
        return ["entry: must be an object"]
    hostile = hostile_values(obj)
    if hostile:
        return [f"{where or 'entry'}: {what}" for where, what in hostile]
    kind = obj.get("type")
    if not isinstance(kind, str) or kind not in ENTRY_TYPES:
        return [f"type: must be one of {', '.join(ENTRY_TYPES)}"]
    required = _KEYS[kind]
    allowed = _ALLOWED[kind]
    problems = []
    missing = [k for k in required if k not in obj]
    unknown = sorted(shown(k) for k in obj if k not in allowed)
    if missing:
        problems.append(f"entry: missing keys {', '.join(missing)}")
    if unknown:
        problems.append(f"entry: unknown keys {', '.join(unknown)}")
    if problems:
        return problems
    check = _Checker(obj)
    if not is_int(obj["format"]) or obj["format"] != AUDIT_FORMAT:
        check.fail("format", f"must be {AUDIT_FORMAT}")
    check.id("id")
    if not _valid_time(obj["time"]):
        check.fail("time", "must be a UTC time like 2026-12-02T16:40:00.000Z")
    if kind == EntryType.CALL:
        _check_call(check)
    elif kind == EntryType.DECISION:
        check.id("call_id")
        if not isinstance(obj["helpful"], bool):
            check.fail("helpful", "must be true or false")
        check.text("note", MAX_NOTE_BYTES)
    elif kind == EntryType.RATING:
        check.id("call_id")
        if not valid_rater(obj["rater"]):
            check.fail("rater", f"must be a name of 1-{MAX_RATER_CHARS} characters without line breaks, "
                                "not starting or ending with a space")
        problem = answers_problem(obj["rubric_version"], obj["answers"])
        if problem:
            check.problems.append(problem)
        check.text("note", MAX_NOTE_BYTES)
    elif kind == EntryType.PLAN:
        _check_plan(check)
    elif kind == EntryType.OWN_CASE:
        _check_own_case(check)
    else:
        check.id("run_id")
        check.id("case_id")
        check.id("call_id", optional=True)
    return check.problems


def _check_plan(check: _Checker) -> None:
    obj = check.obj
    for key in ("x", "y"):
        if not isinstance(obj[key], str) or not _CONFIGURATION_RE.match(obj[key]):
            check.fail(key, "must be a configuration id (8 lowercase hex digits)")
    if obj["x"] == obj["y"]:
        check.fail("y", "must be another configuration than x")
    check.choice("metric", (PLAN_METRIC,))
    try:
        parse_rule(obj["rule"])
    except ValueError as exc:
        check.fail("rule", str(exc))
    check.text("note", MAX_NOTE_BYTES)


def _check_own_case(check: _Checker) -> None:
    search = check.obj["search"]
    if search is None:
        check.fail("search", "is required: the search the visitor added")
        return
    _check_search(check, search)
    if isinstance(search, dict) and search.get("order") not in ORDERS:
        check.fail("search.order", f"must be one of {', '.join(ORDERS)}")


def _check_call(check: _Checker) -> None:
    obj = check.obj
    check.id("run_id", optional=True)
    check.id("case_id", optional=True)
    check.id("eval_set_version", optional=True)
    check.id("prompt_version")
    if not isinstance(obj["prompt_hash"], str) or not _HASH_RE.match(obj["prompt_hash"]):
        check.fail("prompt_hash", "must be 64 lowercase hex digits")
    _check_search(check, obj["search"])
    if obj["run_id"] is None and obj["search"] is None:
        check.fail("search", "is required for a call outside a run")
    if obj["run_id"] is not None and (obj["case_id"] is None or obj["eval_set_version"] is None):
        check.fail("case_id", "a call in a run needs case_id and eval_set_version")
    problem = _settings_problem(obj["settings"])
    if problem is not None:
        check.fail("settings", problem)
    check.int_range("status", 100, 599, optional=True)
    check.text("answer", MAX_ANSWER_BYTES, optional=True)
    check.choice("stop", _STOPS, optional=True)
    check.text("raw_stop_reason", 200, optional=True)
    check.int_range("input_tokens", 0, MAX_NUMBER, optional=True)
    check.int_range("output_tokens", 0, MAX_NUMBER, optional=True)
    check.ms("answer_ms", optional=True)
    check.ms("total_ms")
    check.int_range("retries", 0, 1000)
    check.choice("outcome", OUTCOMES)
    check.choice("error", CALL_ERRORS, optional=True)
    check.text("failure", MAX_TEXT_BYTES, optional=True)
    check.text("message", MAX_TEXT_BYTES)
    for key in CALL_DRIFT_KEYS:
        check.text(key, MAX_REPORTED_BYTES, optional=True)
    outcome, error = obj["outcome"], obj["error"]
    answered = isinstance(obj["answer"], str) and obj["stop"] is not None
    if outcome in ANSWERED and (error is not None or not answered):
        check.fail("outcome", f"{outcome} needs an answer and a stop, and no error")
    if outcome == Outcome.INFRA_FAILURE and (error is None or error == Outcome.CANCELLED or obj["answer"] is not None):
        check.fail("outcome", "infrastructure_failure needs an error class and no answer")
    if outcome == Outcome.CANCELLED and (error != Outcome.CANCELLED or obj["answer"] is not None):
        check.fail("outcome", "cancelled needs error 'cancelled' and no answer")


def _settings_problem(settings: Any) -> str | None:
    """Why ``settings`` are not valid request settings, or None; remembered, as a log repeats a few settings."""
    key = None
    if type(settings) is dict:
        # The types belong in the key: 1, 1.0 and true are equal in Python but not the same setting.
        key = tuple((name, type(value), value) for name, value in settings.items())
        try:
            hash(key)
        except TypeError:  # a list or an object as a value: not remembered
            key = None
    if key is not None and key in _SETTINGS_PROBLEMS:
        return _SETTINGS_PROBLEMS[key]
    try:
        Settings.from_dict(settings)
        problem = None
    except (TypeError, ValueError, OverflowError) as exc:
        problem = storable(str(exc)[:200])
    if key is not None:
        if len(_SETTINGS_PROBLEMS) >= MAX_SETTINGS_REMEMBERED:
            _SETTINGS_PROBLEMS.clear()
        _SETTINGS_PROBLEMS[key] = problem
    return problem


def _check_search(check: _Checker, search: Any) -> None:
    if search is None:
        return
    if not isinstance(search, dict) or sorted(search) != sorted(SEARCH_KEYS):
        check.fail("search", f"must be an object with exactly {', '.join(SEARCH_KEYS)}")
        return
    if not isinstance(search["order"], str) or not _ID_RE.match(search["order"]):
        check.fail("search.order", "must be an insertion order name")
    if search["kind"] not in _SEARCH_KINDS:
        check.fail("search.kind", f"must be one of {', '.join(SearchKind)}")
    for axis, bound in (("lon", 180), ("lat", 90)):
        value = search[axis]
        if not _is_number(value) or not -bound <= value <= bound:
            check.fail(f"search.{axis}", f"must be a number from -{bound} to {bound}")
    radius = search["radius"]
    if search["kind"] == SearchKind.RADIUS and not (_is_number(radius) and 0 < radius <= 180):
        check.fail("search.radius", "a radius search needs a positive radius")
    if search["kind"] == SearchKind.NEAREST and radius is not None:
        check.fail("search.radius", "must be null for a nearest search")


# --------------------------------------------------------------------------- the key


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


def scrub_outcome(outcome: CallOutcome, key: str | None) -> CallOutcome:
    """``outcome`` with an echoed key removed from the reply and the message, before it is graded.

    The answer is graded as stored, so grading at call time and on rebuild agree
    (DR-005); a redacted answer that no longer parses is a model failure both times.
    """
    reply = outcome.reply
    if not contains_secret([outcome.message, None if reply is None else [reply.text, reply.raw_stop_reason]], key):
        return outcome
    message = scrub_secret(outcome.message, key)
    if reply is not None:
        reply = replace(reply, text=scrub_secret(reply.text, key),
                        raw_stop_reason=scrub_secret(reply.raw_stop_reason, key))
        note = "The reply contained the API key; the log keeps it with the key removed."
        message = f"{note} {message}".strip()
    return replace(outcome, reply=reply, message=message)
