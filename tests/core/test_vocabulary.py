"""One vocabulary (pyapp.core.vocabulary): the stored strings, their JSON form, and the two kinds of whole number."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from pyapp.auditlog.entries import call_entry, cancel_entry
from pyapp.auditlog.validation import validate_entry
from pyapp.cli.main import main
from pyapp.core.jsontypes import is_int, is_json_integer
from pyapp.core.vocabulary import (
    ANSWERED,
    Action,
    CaseStatus,
    EntryType,
    ErrorClass,
    JudgeFailure,
    ModelFailure,
    Outcome,
    SearchKind,
    Stop,
)
from pyapp.evaluation import evalset
from pyapp.kdtree import search
from pyapp.providers.client import CallOutcome
from pyapp.providers.settings import Settings
from pyapp.providers.wire import Reply

# The strings the trace (DR-004) and the audit log (DR-006) store. Logs and exports written
# before hold these exact strings, so a value may never change.
STORED = {
    SearchKind: ["nearest", "radius"],
    Action: ["visit", "distance", "best", "report", "near", "far_visit", "far_prune"],
    Stop: ["end", "max_tokens", "refusal", "other"],
    ErrorClass: ["auth", "quota", "rate_limit", "overloaded", "server", "bad_request", "bad_response", "network"],
    Outcome: ["grounded", "not_grounded", "model_failure", "infrastructure_failure", "cancelled"],
    ModelFailure: ["truncated", "refusal", "invalid_json", "schema_mismatch"],
    CaseStatus: ["graded", "stale_input", "infrastructure_failure", "cancelled", "never_asked"],
    EntryType: ["call", "decision", "cancel", "rating", "plan", "own_case", "judgement"],
    JudgeFailure: ["truncated", "refusal", "invalid_json", "schema_mismatch"],
}


@pytest.mark.parametrize("words", list(STORED), ids=[words.__name__ for words in STORED])
def test_each_word_keeps_the_string_logs_already_hold(words):
    assert [member.value for member in words] == STORED[words]
    assert json.dumps(list(words)) == json.dumps(STORED[words])


def test_answered_outcomes_are_the_graded_ones():
    assert ANSWERED == (Outcome.GROUNDED, Outcome.NOT_GROUNDED, Outcome.MODEL_FAILURE)


def test_an_entry_built_from_members_is_stored_as_plain_strings_and_read_back_equal():
    class Prompt:
        version, hash = "explain-prompt-1", "0" * 64

    outcome = CallOutcome(200, Reply("{}", Stop.END, 1, 1, "end_turn"), None, "", 5.0, 6.0, 0, False)
    entry = call_entry(entry_id="c1", time=datetime(2026, 1, 2, tzinfo=UTC), run_id="run-1", case_id="C01",
                       eval_set_version=evalset.EVAL_SET_VERSION, prompt=Prompt(),
                       settings=Settings("anthropic", "claude-x", 4000, 0.0), outcome=outcome,
                       grade_outcome=Outcome.MODEL_FAILURE, failure="invalid_json")
    stored = json.loads(json.dumps(entry))
    assert (stored["type"], stored["outcome"], stored["stop"]) == ("call", "model_failure", "end")
    assert all(type(value) is str for value in (stored["type"], stored["outcome"], stored["stop"]))
    assert stored == entry and validate_entry(stored) == []
    assert json.loads(json.dumps(cancel_entry("x1", "2026-01-02T00:00:00.000Z", "run-1", "C01")))["type"] == "cancel"


def test_a_graded_outcome_without_a_reply_is_refused_in_plain_words():
    outcome = CallOutcome(None, None, ErrorClass.NETWORK, "down", None, 1.0, 0, False)
    with pytest.raises(ValueError) as refused:
        call_entry(entry_id="c1", time="2026-01-02T00:00:00.000Z", run_id=None, case_id=None, eval_set_version=None,
                   prompt=type("P", (), {"version": "v", "hash": "0" * 64})(),
                   settings=Settings("anthropic", "claude-x", 4000, 0.0), outcome=outcome,
                   grade_outcome=Outcome.GROUNDED, failure=None,
                   search={"order": "file", "kind": "nearest", "lon": 24.9, "lat": 60.1, "radius": None})
    assert str(refused.value) == "a call without a reply is 'infrastructure_failure', not 'grounded'"


def test_search_kinds_and_case_kinds_have_names_of_their_own():
    assert not hasattr(search, "KINDS") and not hasattr(evalset, "KINDS")
    assert {kind.search_kind for kind in evalset.CASE_KINDS} == set(SearchKind)
    assert evalset.CASE_KIND_NAMES == ("near-business", "anywhere", "radius-small", "radius-large")


def test_an_unknown_search_kind_on_the_command_line_lists_the_plain_names(capsys):
    with pytest.raises(SystemExit):
        main(["trace", "--order", "file", "--kind", "closest", "--lon", "24.9", "--lat", "60.1"])
    assert "(choose from 'nearest', 'radius')" in capsys.readouterr().err


@pytest.mark.parametrize(("value", "stored_int", "json_integer"), [
    (3, True, True),
    (3.0, False, True),
    (3.5, False, False),
    (True, False, False),
    ("3", False, False),
    (None, False, False),
], ids=["int", "integral-float", "fraction", "boolean", "text", "null"])
def test_two_kinds_of_whole_number(value, stored_int, json_integer):
    assert is_int(value) is stored_int
    assert is_json_integer(value) is json_integer
