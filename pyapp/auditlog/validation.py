"""Strict validation of audit entries (DR-006).

:func:`validate_entry` is strict (known type, exactly the known keys, types, safe id patterns,
bounded sizes) so that imported files and possibly corrupt stored records are rejected with
reasons instead of being half-read. Before any other check it refuses every number outside
JavaScript's exact-integer range and every text holding a lone surrogate, anywhere in the entry,
so no later arithmetic, encoding or export meets one.
"""

from __future__ import annotations

import re
from typing import Any

from pyapp.auditlog.fields import HASH_RE, ID_RE, STOPS, is_number, settings_problem
from pyapp.auditlog.format import (
    AUDIT_FORMAT,
    CALL_DRIFT_KEYS,
    CALL_ERRORS,
    ENTRY_TYPES,
    KEYS,
    MAX_ANSWER_BYTES,
    MAX_NOTE_BYTES,
    MAX_NUMBER,
    MAX_RATER_CHARS,
    MAX_REPORTED_BYTES,
    MAX_TEXT_BYTES,
    OUTCOMES,
    OWN_CASE_SET_KEY,
    OWN_SET_NAME_RE,
    OWN_SET_PREFIX,
    PLAN_METRIC,
    SEARCH_KEYS,
    valid_time,
)
from pyapp.auditlog.plain_call import plainly_valid_call
from pyapp.auditlog.rules import parse_rule
from pyapp.core.jsontypes import hostile_values, is_int, shown
from pyapp.core.vocabulary import ANSWERED, EntryType, JudgeFailure, Outcome, SearchKind
from pyapp.explanation.judge import MAX_REASON_CHARS
from pyapp.explanation.rubric import RUBRICS, answers_problem
from pyapp.kdtree.tree import ORDERS

_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


_CONFIGURATION_RE = re.compile(r"^[0-9a-f]{8}\Z")  # pyapp.evaluation.configurations.Configuration.id


# Sets, and values computed once: validation runs on every entry of a stored log (DR-006).
_OPTIONAL = {EntryType.CALL: CALL_DRIFT_KEYS, EntryType.OWN_CASE: (OWN_CASE_SET_KEY,)}
_ALLOWED = {kind: frozenset(keys + _OPTIONAL.get(kind, ())) for kind, keys in KEYS.items()}


_SEARCH_KINDS = tuple(SearchKind)


def valid_id(value: Any) -> bool:
    """True for a safe entry or run id: 1-64 letters, digits or ``_.:-``, starting with a letter or digit."""
    return isinstance(value, str) and ID_RE.match(value) is not None


def valid_rater(value: Any) -> bool:
    """True for a rater's name: 1-40 characters, no control characters, no space at either end.

    Stripped names only, so "Ann" and "Ann " can never count as two raters.
    """
    return (isinstance(value, str) and 0 < len(value) <= MAX_RATER_CHARS and value == value.strip()
            and _CONTROL_RE.search(value) is None)


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
        if not isinstance(value, str) or not ID_RE.match(value):
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
        if not is_number(value) or not 0 <= value <= MAX_NUMBER:
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
    if plainly_valid_call(obj):
        return []
    hostile = hostile_values(obj)
    if hostile:
        return [f"{where or 'entry'}: {what}" for where, what in hostile]
    kind = obj.get("type")
    if not isinstance(kind, str) or kind not in ENTRY_TYPES:
        return [f"type: must be one of {', '.join(ENTRY_TYPES)}"]
    required = KEYS[kind]
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
    if not valid_time(obj["time"]):
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
    elif kind == EntryType.JUDGEMENT:
        _check_judgement(check)
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


_JUDGE_FAILURES = tuple(JudgeFailure)


def _check_judgement(check: _Checker) -> None:
    obj = check.obj
    check.id("call_id")
    check.id("judging_id")
    check.id("prompt_version")
    if not isinstance(obj["prompt_hash"], str) or not HASH_RE.match(obj["prompt_hash"]):
        check.fail("prompt_hash", "must be 64 lowercase hex digits")
    check.choice("rubric_version", tuple(RUBRICS))
    problem = settings_problem(obj["settings"])
    if problem is not None:
        check.fail("settings", problem)
    check.int_range("status", 100, 599, optional=True)
    check.text("reply", MAX_TEXT_BYTES, optional=True)
    check.choice("stop", STOPS, optional=True)
    check.int_range("input_tokens", 0, MAX_NUMBER, optional=True)
    check.int_range("output_tokens", 0, MAX_NUMBER, optional=True)
    check.ms("answer_ms", optional=True)
    check.ms("total_ms")
    check.int_range("retries", 0, 1000)
    check.choice("error", CALL_ERRORS, optional=True)
    check.choice("failure", _JUDGE_FAILURES, optional=True)
    check.text("message", MAX_TEXT_BYTES)
    check.text("model_reported", MAX_REPORTED_BYTES, optional=True)
    answers, reasons, error, failure = obj["answers"], obj["reasons"], obj["error"], obj["failure"]
    if answers is not None or reasons is not None:
        problem = answers_problem(obj["rubric_version"], answers)
        if problem:
            check.problems.append(problem)
        if not (isinstance(reasons, dict) and isinstance(answers, dict) and set(reasons) == set(answers)
                and all(isinstance(r, str) and 0 < len(r) <= MAX_REASON_CHARS for r in reasons.values())):
            check.fail("reasons", f"must give a reason of 1-{MAX_REASON_CHARS} characters for every answer")
    verdict = answers is not None
    if verdict and (error is not None or failure is not None or obj["reply"] is None or obj["stop"] is None):
        check.fail("answers", "a verdict needs a reply and a stop, and no error or failure")
    if error is not None and (failure is not None or obj["reply"] is not None):
        check.fail("error", "a request that failed has no reply and no judge failure")
    if not verdict and error is None and (failure is None or obj["reply"] is None or obj["stop"] is None):
        check.fail("failure", "a reply without a verdict needs the judge failure that explains it")


def _check_own_case(check: _Checker) -> None:
    search = check.obj["search"]
    if search is None:
        check.fail("search", "is required: the search the visitor added")
        return
    _check_search(check, search)
    if isinstance(search, dict) and search.get("order") not in ORDERS:
        check.fail("search.order", f"must be one of {', '.join(ORDERS)}")
    name = check.obj.get(OWN_CASE_SET_KEY)
    if name is not None and not (isinstance(name, str) and OWN_SET_NAME_RE.match(name)):
        check.fail(OWN_CASE_SET_KEY, f"must be a name of your own set: {OWN_SET_PREFIX} and 8 hex digits")


def _check_call(check: _Checker) -> None:
    obj = check.obj
    check.id("run_id", optional=True)
    check.id("case_id", optional=True)
    check.id("eval_set_version", optional=True)
    check.id("prompt_version")
    if not isinstance(obj["prompt_hash"], str) or not HASH_RE.match(obj["prompt_hash"]):
        check.fail("prompt_hash", "must be 64 lowercase hex digits")
    _check_search(check, obj["search"])
    if obj["run_id"] is None and obj["search"] is None:
        check.fail("search", "is required for a call outside a run")
    if obj["run_id"] is not None and (obj["case_id"] is None or obj["eval_set_version"] is None):
        check.fail("case_id", "a call in a run needs case_id and eval_set_version")
    problem = settings_problem(obj["settings"])
    if problem is not None:
        check.fail("settings", problem)
    check.int_range("status", 100, 599, optional=True)
    check.text("answer", MAX_ANSWER_BYTES, optional=True)
    check.choice("stop", STOPS, optional=True)
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


def _check_search(check: _Checker, search: Any) -> None:
    if search is None:
        return
    if not isinstance(search, dict) or sorted(search) != sorted(SEARCH_KEYS):
        check.fail("search", f"must be an object with exactly {', '.join(SEARCH_KEYS)}")
        return
    if not isinstance(search["order"], str) or not ID_RE.match(search["order"]):
        check.fail("search.order", "must be an insertion order name")
    if search["kind"] not in _SEARCH_KINDS:
        check.fail("search.kind", f"must be one of {', '.join(SearchKind)}")
    for axis, bound in (("lon", 180), ("lat", 90)):
        value = search[axis]
        if not is_number(value) or not -bound <= value <= bound:
            check.fail(f"search.{axis}", f"must be a number from -{bound} to {bound}")
    radius = search["radius"]
    if search["kind"] == SearchKind.RADIUS and not (is_number(radius) and 0 < radius <= 180):
        check.fail("search.radius", "a radius search needs a positive radius")
    if search["kind"] == SearchKind.NEAREST and radius is not None:
        check.fail("search.radius", "must be null for a nearest search")
