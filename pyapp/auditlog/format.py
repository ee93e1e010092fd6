"""The audit log's format: the entry types, their keys and limits, and how times are written.

Audit log entries are plain JSON-able dicts, appended to IndexedDB and exported.

The log is append-only. Seven entry types:

``call``      one per call, success or failure, written before anything is shown;
``decision``  a visitor's verdict (helpful or not, with a note) on an earlier call;
``cancel``    a visitor cancelled a case of a run (points at the call, if one ran);
``rating``    a named rater's yes/no answers to the rubric (``pyapp.explanation.rubric``) on an earlier call (DR-009);
``plan``      a comparison of two configurations registered in advance (``pyapp.evaluation.plans``);
``own_case``  a search the visitor added to their own cases in the explorer (``pyapp.evaluation.own_cases``, DR-009);
``judgement`` a model judge's verdict on the rubric (``pyapp.explanation.judge``) about an earlier call, or why
              it gave none: one entry per request to the judge (DR-012).

Every entry carries ``format`` (:data:`AUDIT_FORMAT`), ``id``, ``type`` and
``time`` (ISO 8601, UTC, millisecond precision, ``Z`` suffix). Later facts
about a call are new entries whose ``call_id`` names it; nothing is ever
edited.

There is no field for the API key. :func:`pyapp.providers.keyguard.contains_secret` is
the last check before a write or an export, and :func:`pyapp.providers.keyguard.scrub_secret`
removes the key from an entry without losing the rest of it.

A call entry also records what the provider said answered (``model_reported``,
``system_fingerprint``, DR-008); an ``own_case`` entry, the name of the visitor's set
once its search is in it (``set``, DR-009), so that runs of that set stay gradable in
any log the entry is imported into. Entries written before those keys existed lack them
and stay valid.

Entries are made in :mod:`pyapp.auditlog.entries` and checked in :mod:`pyapp.auditlog.validation`.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from pyapp.core.vocabulary import EntryType, ErrorClass, Outcome

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


# A judge's request is audited as a call is: settings, status, tokens, latencies, retries, error; its reply is
# kept (cut to MAX_TEXT_BYTES) so a judge failure can be shown, and a verdict is its answers and reasons.
JUDGEMENT_KEYS = _COMMON_KEYS + (
    "call_id", "judging_id", "prompt_version", "prompt_hash", "rubric_version", "settings", "status", "reply",
    "stop", "input_tokens", "output_tokens", "answer_ms", "total_ms", "retries", "error", "failure", "message",
    "model_reported", "answers", "reasons",
)


OWN_CASE_KEYS = _COMMON_KEYS + ("search",)
OWN_CASE_SET_KEY = "set"  # optional: the set's name with this search in it, in the log it was added to
# A name of the visitor's own set: "own-" and the first 8 hex digits of a sha256 (pyapp.evaluation.own_cases).
OWN_SET_PREFIX = "own-"
OWN_SET_NAME_RE = re.compile(rf"^{OWN_SET_PREFIX}[0-9a-f]{{8}}\Z")


# The one primary metric a plan can name (DR-008); every other figure is secondary.
PLAN_METRIC = "grounded_share"


KEYS = {EntryType.CALL: CALL_KEYS, EntryType.DECISION: DECISION_KEYS, EntryType.CANCEL: CANCEL_KEYS,
         EntryType.RATING: RATING_KEYS, EntryType.PLAN: PLAN_KEYS, EntryType.OWN_CASE: OWN_CASE_KEYS,
         EntryType.JUDGEMENT: JUDGEMENT_KEYS}


TIME_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\Z")


def valid_time(value: Any) -> bool:
    if not isinstance(value, str) or not TIME_RE.match(value):
        return False
    try:
        datetime.fromisoformat(value[:-1])  # the pattern fixed the layout; this checks the calendar
    except ValueError:
        return False
    return True


def format_time(when: datetime | str) -> str:
    """``when`` as ``YYYY-MM-DDTHH:MM:SS.mmmZ``; an aware datetime or an already formatted string."""
    if isinstance(when, str):
        if not valid_time(when):
            raise ValueError(f"time {when!r} is not YYYY-MM-DDTHH:MM:SS.mmmZ")
        return when
    if not isinstance(when, datetime) or when.tzinfo is None:
        raise ValueError("time must be a timezone-aware datetime")
    utc = when.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"
