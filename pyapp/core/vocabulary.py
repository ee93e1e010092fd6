"""The words the trace, the audit log and the page share, each defined once.

Every class is a ``StrEnum``: a member is its own string (``SearchKind.NEAREST ==
"nearest"``) and ``json.dumps`` writes it as that string, so the trace format
(DR-004) and the stored log format (DR-006) hold plain strings as before.
Values read back from JSON are plain strings and compare equal to the members.
"""

from __future__ import annotations

from enum import StrEnum


class SearchKind(StrEnum):
    """What a search looks for (``pyapp.kdtree.search``)."""

    NEAREST = "nearest"
    RADIUS = "radius"


class Action(StrEnum):
    """What a trace step does (``pyapp.kdtree.trace`` lists the fields each one sets)."""

    VISIT = "visit"
    DISTANCE = "distance"
    BEST = "best"
    REPORT = "report"
    NEAR = "near"
    FAR_VISIT = "far_visit"
    FAR_PRUNE = "far_prune"


class Stop(StrEnum):
    """Why a provider's reply ended; grading turns ``max_tokens`` and ``refusal`` into model failures."""

    END = "end"
    MAX_TOKENS = "max_tokens"
    REFUSAL = "refusal"
    OTHER = "other"


class ErrorClass(StrEnum):
    """Why a request failed for good (``pyapp.providers.errors``, ``pyapp.providers.client``)."""

    AUTH = "auth"
    QUOTA = "quota"
    RATE_LIMIT = "rate_limit"
    OVERLOADED = "overloaded"
    SERVER = "server"
    BAD_REQUEST = "bad_request"
    BAD_RESPONSE = "bad_response"
    NETWORK = "network"


class Outcome(StrEnum):
    """The outcome class of one call (DR-005); ``CANCELLED`` is also a call's error when the visitor cancelled."""

    GROUNDED = "grounded"
    NOT_GROUNDED = "not_grounded"
    MODEL_FAILURE = "model_failure"
    INFRA_FAILURE = "infrastructure_failure"
    CANCELLED = "cancelled"


# The outcomes of a call that produced an answer, which grading decides.
ANSWERED = (Outcome.GROUNDED, Outcome.NOT_GROUNDED, Outcome.MODEL_FAILURE)


class ModelFailure(StrEnum):
    """Why an answer is a model failure (``pyapp.explanation.grading`` applies the rules in this order:
    the token limit, a refusal, JSON that does not parse, then the answer schema).
    """

    TRUNCATED = "truncated"
    REFUSAL = "refusal"
    INVALID_JSON = "invalid_json"
    SCHEMA_MISMATCH = "schema_mismatch"


class JudgeFailure(StrEnum):
    """Why a judge's reply is not a verdict (``pyapp.explanation.judge``): a judge failure, never a rating."""

    TRUNCATED = "truncated"
    REFUSAL = "refusal"
    INVALID_JSON = "invalid_json"
    SCHEMA_MISMATCH = "schema_mismatch"


class CaseStatus(StrEnum):
    """Where a case of a run stands, as the log shows it (``pyapp.evaluation.runs``)."""

    GRADED = "graded"
    STALE = "stale_input"
    INFRA_FAILURE = "infrastructure_failure"
    CANCELLED = "cancelled"
    NEVER_ASKED = "never_asked"


class EntryType(StrEnum):
    """The kinds of audit log entry (``pyapp.auditlog.entries``)."""

    CALL = "call"
    DECISION = "decision"
    CANCEL = "cancel"
    RATING = "rating"
    PLAN = "plan"
    OWN_CASE = "own_case"
    JUDGEMENT = "judgement"
