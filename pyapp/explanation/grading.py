"""Grading one model answer into an outcome class (DR-005).

The order of the rules matters and is part of the contract:

1. the provider says the answer hit the token limit -> model failure, truncated
   (even if the text happens to parse: the model did not finish);
2. the provider says the model refused -> model failure, refusal;
3. the text is not one JSON value (after removing at most one code fence that
   wraps the whole text) -> model failure, invalid JSON;
4. the value does not fit the answer schema, or holds a number out of range or
   text that is not valid Unicode -> model failure, schema mismatch;
5. otherwise the five checks run: grounded if all pass, else not grounded.

The text graded is the text the log keeps (:func:`pyapp.auditlog.entries.stored_answer`:
cut to 1 MB, lone surrogates replaced), at call time and on every rebuild, so a
grade never changes between the two (DR-006). Grading never raises.

Infrastructure failures (key, quota, network, rate limits) never reach this
module: the client decides them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from pyapp.core import strict_json
from pyapp.core.vocabulary import ModelFailure, Outcome, Stop
from pyapp.explanation.checks import CheckResult, Facts, run_checks
from pyapp.explanation.schema import plain_claims, validate_answer

# One fence around the whole answer, with an optional "json" tag; nothing else.
_FENCE = re.compile(r"\A```(?:json|JSON)?[ \t]*\n(?P<body>.*)\n```\Z", re.DOTALL)


@dataclass(frozen=True)
class Grade:
    """The outcome of one answer.

    ``failure`` names the model failure (None otherwise); ``checks`` is empty for
    model failures; ``claims`` is the parsed answer once it is valid JSON;
    ``walkthrough`` is the prose once the answer fits the schema; ``detail`` says
    in a sentence why a model failure happened.
    """

    outcome: str
    failure: str | None
    checks: tuple[CheckResult, ...]
    claims: dict | None
    walkthrough: str | None
    detail: str = ""

    @property
    def failed_checks(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.checks if not c.passed)

    def to_json(self) -> dict:
        return {
            "outcome": self.outcome,
            "failure": self.failure,
            "detail": self.detail,
            "checks": [c.to_json() for c in self.checks],
            "failed_checks": list(self.failed_checks),
        }


def grade_answer(text: str, stop: str, facts: Facts) -> Grade:
    """Grade the answer ``text`` that stopped for ``stop`` against ``facts`` (rules in the module doc)."""
    if stop == Stop.MAX_TOKENS:
        return _failure(ModelFailure.TRUNCATED, "the answer stopped at the token limit before it was finished")
    if stop == Stop.REFUSAL:
        return _failure(ModelFailure.REFUSAL, "the model declined to answer")
    try:
        claims = parse_answer(text)
    except ValueError as exc:
        return _failure(ModelFailure.INVALID_JSON, f"the answer is not valid JSON: {exc}")
    key = plain_claims(claims)
    errors = [] if key else validate_answer(claims)
    if errors:
        parsed = claims if isinstance(claims, dict) else None
        return _failure(ModelFailure.SCHEMA_MISMATCH, "the answer does not fit the schema: " + "; ".join(errors),
                        parsed)
    results = run_checks(claims, facts, key)
    outcome = Outcome.GROUNDED if all(r.passed for r in results) else Outcome.NOT_GROUNDED
    return Grade(outcome, None, results, claims, claims["walkthrough"])


def parse_answer(text: str) -> object:
    """The JSON value of an answer; raises ValueError with a short reason.

    Strict JSON (no NaN or Infinity, no repeated keys); surrounding whitespace and
    one code fence wrapping the whole text are allowed.
    """
    body = text.strip()
    match = _FENCE.match(body)
    if match:
        body = match.group("body").strip()
    if not body:
        raise ValueError("the answer is empty")
    try:
        return strict_json.loads(body)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{exc.msg} at line {exc.lineno}, column {exc.colno}") from None


def _failure(failure: ModelFailure, detail: str, claims: dict | None = None) -> Grade:
    return Grade(Outcome.MODEL_FAILURE, failure, (), claims, None, detail)
