"""Making audit entries (DR-005, DR-006): one constructor per entry type, each checked by
:func:`pyapp.auditlog.validation.validate_entry` before it is returned, and :func:`stamp`, the one
place a new entry gets its id and time from the clock passed in."""

from __future__ import annotations

import math
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from pyapp.auditlog.format import (
    AUDIT_FORMAT,
    MAX_ANSWER_BYTES,
    MAX_NUMBER,
    MAX_REPORTED_BYTES,
    MAX_TEXT_BYTES,
    OWN_CASE_SET_KEY,
    PLAN_METRIC,
    SEARCH_KEYS,
    format_time,
)
from pyapp.auditlog.rules import parse_rule
from pyapp.auditlog.validation import validate_entry
from pyapp.core.jsontypes import has_lone_surrogate, is_int, storable
from pyapp.core.vocabulary import ANSWERED, EntryType, Outcome
from pyapp.kdtree.geodata import COORD_DECIMALS
from pyapp.providers.client import CallOutcome
from pyapp.providers.settings import Settings


def new_entry_id() -> str:
    """A fresh random id (uuid4 as 32 hex digits; ``os.urandom`` works under Pyodide)."""
    return uuid.uuid4().hex


Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


def stamp(now: Clock = utc_now) -> tuple[str, datetime]:
    """A new entry's id and time: a fresh random id, and ``now()`` (the wall clock unless a test passes one)."""
    return new_entry_id(), now()


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


def judgement_entry(*, entry_id: str, time: datetime | str, call_id: str, judging_id: str, prompt: Any,
                    rubric_version: str, settings: Settings, outcome: CallOutcome, verdict: Any) -> dict:
    """The audit entry of one request to a model judge about the call ``call_id`` (DR-012).

    ``prompt`` needs ``.version`` and ``.hash``; ``verdict`` (``pyapp.explanation.judge.Verdict``) is what
    the reply said, ``None`` when no reply came. The reply is kept, cut to :data:`MAX_TEXT_BYTES`.
    """
    reply = outcome.reply
    if (reply is None) != (verdict is None):
        raise ValueError("a judge's reply needs its verdict, and only a reply has one")
    message = " ".join(part for part in (storable(outcome.message), None if verdict is None else verdict.detail)
                       if part)
    input_tokens = None if reply is None else _token_count(reply.input_tokens)
    output_tokens = None if reply is None else _token_count(reply.output_tokens)
    entry = {
        "format": AUDIT_FORMAT,
        "id": entry_id,
        "type": EntryType.JUDGEMENT,
        "time": format_time(time),
        "call_id": call_id,
        "judging_id": judging_id,
        "prompt_version": prompt.version,
        "prompt_hash": prompt.hash,
        "rubric_version": rubric_version,
        "settings": settings.to_dict(),
        "status": outcome.status,
        "reply": None if reply is None else _cut(storable(reply.text), MAX_TEXT_BYTES),
        "stop": None if reply is None else reply.stop,
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "answer_ms": outcome.answer_ms,
        "total_ms": outcome.total_ms,
        "retries": outcome.retries,
        "error": outcome.error,
        "failure": None if verdict is None else verdict.failure,
        "message": _cut(message, MAX_TEXT_BYTES),
        "model_reported": None if reply is None else _cut(storable(reply.model), MAX_REPORTED_BYTES),
        "answers": None if verdict is None else verdict.answers,
        "reasons": None if verdict is None else verdict.reasons,
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


def _number(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError("not a number")
    number = float(value)  # OverflowError beyond a float's range
    if not math.isfinite(number):
        raise ValueError("not a finite number")
    return number


def own_case_search(search: dict) -> dict:
    """The search as an own case keeps it: the five fields, coordinates to 7 decimals, floats for numbers.

    ``TypeError``, ``ValueError`` or ``OverflowError`` when a coordinate or the radius is not a usable number.
    """
    radius = search.get("radius")
    return {
        "order": search.get("order"),
        "kind": search.get("kind"),
        "lon": round(_number(search.get("lon")), COORD_DECIMALS),
        "lat": round(_number(search.get("lat")), COORD_DECIMALS),
        "radius": None if radius is None else _number(radius),
    }


def own_case_entry(entry_id: str, time: datetime | str, search: dict, set_name: str | None = None) -> dict:
    """The audit entry that adds ``search`` to the visitor's cases, whose set is then named ``set_name``
    (``pyapp.evaluation.own_cases.OwnCases.name_with``); ``ValueError`` in words for a bad search."""
    try:
        kept = own_case_search(search)
    except (AttributeError, TypeError, ValueError, OverflowError):
        raise ValueError("The search needs a query point with a longitude and a latitude, and a radius search "
                         "a radius, as numbers.") from None
    entry = {"format": AUDIT_FORMAT, "id": entry_id, "type": EntryType.OWN_CASE, "time": format_time(time),
             "search": kept, **({} if set_name is None else {OWN_CASE_SET_KEY: set_name})}
    problems = validate_entry(entry)
    if problems:
        raise ValueError("; ".join(problems))
    return entry


def plan_entry(entry_id: str, time: datetime | str, x: str, y: str, rule: str, note: str = "") -> dict:
    """A plan comparing configuration ``y`` against ``x`` by ``rule``; ``ValueError`` saying what is wrong."""
    entry = {
        "format": AUDIT_FORMAT,
        "id": entry_id,
        "type": EntryType.PLAN,
        "time": format_time(time),
        "x": x,
        "y": y,
        "metric": PLAN_METRIC,
        "rule": parse_rule(rule).text,
        "note": note.strip(),
    }
    problems = validate_entry(entry)
    if problems:
        raise ValueError("; ".join(problems))
    return entry
