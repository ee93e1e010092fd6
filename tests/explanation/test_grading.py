"""Outcome classes for one answer, and the answer schema (DR-005): pyapp.explanation.grading and .schema."""

from __future__ import annotations

import json

import pytest

from explain_samples import answer_from_prompt, long_sample, nearest_sample
from pyapp.core.vocabulary import ModelFailure, Outcome
from pyapp.explanation import grading as G
from pyapp.explanation.checks import facts_for
from pyapp.explanation.prompt import build_prompt
from pyapp.explanation.schema import load_schema, validate_answer
from pyapp.kdtree.search import search

RESULT = nearest_sample()
PROMPT = build_prompt(RESULT)
FACTS = facts_for(RESULT, PROMPT)
GOOD = answer_from_prompt(PROMPT.user)
GOOD_TEXT = json.dumps(GOOD)


# --- the schema ---------------------------------------------------------------------


def test_schema_is_strict_enough_for_strict_structured_outputs() -> None:
    """Every object closes its properties and requires all of them (OpenAI strict mode needs both)."""
    schema = load_schema()
    objects = [schema, schema["properties"]["cited_steps"]["items"]]
    for obj in objects:
        assert obj["additionalProperties"] is False
        assert sorted(obj["required"]) == sorted(obj["properties"])
    assert schema["properties"]["distance"]["type"] == ["number", "null"]


def test_a_good_answer_fits_the_schema() -> None:
    assert validate_answer(GOOD) == []


@pytest.mark.parametrize(
    ("change", "message"),
    [
        pytest.param({"nodes_visited": None}, "nodes_visited must be an integer, not null", id="null-count"),
        pytest.param({"nodes_visited": "2"}, "must be an integer, not a string", id="string-count"),
        pytest.param({"subtrees_pruned": 1.5}, "not a fractional number", id="fractional-count"),
        pytest.param({"subtrees_pruned": False}, "not a boolean", id="boolean-count"),
        pytest.param({"distance": "0.1"}, "distance must be a number or null", id="string-distance"),
        pytest.param({"result_ids": 30}, "result_ids must be an array, not a number", id="bare-id"),
        pytest.param({"result_ids": ["30"]}, "result_ids[0] must be an integer", id="string-id"),
        pytest.param({"walkthrough": ["a"]}, "walkthrough must be a string", id="list-prose"),
        pytest.param({"cited_steps": [{"step": 1, "action": "jump", "node_id": 10}]},
                     "cited_steps[0].action must be one of", id="unknown-action"),
        pytest.param({"cited_steps": [{"step": 1, "action": "visit"}]},
                     'cited_steps[0] is missing field "node_id"', id="cited-missing-node"),
        pytest.param({"cited_steps": [{"step": 1, "action": "visit", "node_id": 10, "why": "x"}]},
                     'cited_steps[0] has unexpected field "why"', id="cited-extra-field"),
        pytest.param({"notes": "", "score": 0.9}, 'unexpected fields "notes", "score"', id="extras"),
    ],
)
def test_schema_rejects(change: dict, message: str) -> None:
    errors = validate_answer(GOOD | change)
    assert any(message in e for e in errors), errors


@pytest.mark.parametrize("field", list(GOOD), ids=list(GOOD))
def test_schema_rejects_a_missing_field(field: str) -> None:
    answer = {k: v for k, v in GOOD.items() if k != field}
    assert validate_answer(answer) == [f'the answer is missing field "{field}"']


def test_schema_reports_every_problem_and_never_changes_the_answer() -> None:
    answer = GOOD | {"nodes_visited": "x", "distance": "y", "extra": 1}
    before = json.dumps(answer, sort_keys=True)
    assert len(validate_answer(answer)) == 3
    assert json.dumps(answer, sort_keys=True) == before
    assert validate_answer([GOOD]) == ["the answer must be an object, not an array"]


# --- outcome classes -------------------------------------------------------------


def test_grounded() -> None:
    grade = G.grade_answer(GOOD_TEXT, "end", FACTS)
    assert (grade.outcome, grade.failure) == (Outcome.GROUNDED, None)
    assert len(grade.checks) == 5 and all(c.passed for c in grade.checks)
    assert grade.claims == GOOD and grade.walkthrough == GOOD["walkthrough"]
    assert grade.failed_checks == ()


def test_not_grounded_lists_the_failed_checks() -> None:
    wrong = GOOD | {"nodes_visited": 5, "result_ids": [10]}
    grade = G.grade_answer(json.dumps(wrong), "end", FACTS)
    assert (grade.outcome, grade.failure) == (Outcome.NOT_GROUNDED, None)
    assert grade.failed_checks == ("result", "nodes_visited")
    assert grade.walkthrough == GOOD["walkthrough"]
    assert grade.to_json()["failed_checks"] == ["result", "nodes_visited"]


@pytest.mark.parametrize(
    ("text", "stop", "failure"),
    [
        pytest.param(GOOD_TEXT[:40], "max_tokens", ModelFailure.TRUNCATED, id="cut-mid-json"),
        pytest.param(GOOD_TEXT, "max_tokens", ModelFailure.TRUNCATED, id="at-limit-even-if-complete"),
        pytest.param("", "refusal", ModelFailure.REFUSAL, id="refusal"),
        pytest.param(GOOD_TEXT, "refusal", ModelFailure.REFUSAL, id="refusal-with-json"),
        pytest.param("", "end", ModelFailure.INVALID_JSON, id="empty"),
        pytest.param("Here is the walkthrough: " + GOOD_TEXT, "end", ModelFailure.INVALID_JSON, id="prose-before"),
        pytest.param(GOOD_TEXT + "\nHope this helps!", "end", ModelFailure.INVALID_JSON, id="prose-after"),
        pytest.param(GOOD_TEXT[:-1], "end", ModelFailure.INVALID_JSON, id="unclosed"),
        pytest.param(GOOD_TEXT.replace('"nodes_visited": 2', '"nodes_visited": NaN'), "end", ModelFailure.INVALID_JSON,
                     id="nan"),
        pytest.param(GOOD_TEXT[:-1] + ', "nodes_visited": 2}', "end", ModelFailure.INVALID_JSON, id="repeated-key"),
        pytest.param("Sure!\n```json\n" + GOOD_TEXT + "\n```", "end", ModelFailure.INVALID_JSON, id="prose-and-fence"),
        pytest.param("```\n" + GOOD_TEXT + "\n```\n```\n{}\n```", "end", ModelFailure.INVALID_JSON, id="two-fences"),
        pytest.param("[" * 100_000, "end", ModelFailure.INVALID_JSON, id="deep-nesting"),
        pytest.param(json.dumps([GOOD]), "end", ModelFailure.SCHEMA_MISMATCH, id="array"),
        pytest.param(json.dumps(GOOD | {"extra": 1}), "end", ModelFailure.SCHEMA_MISMATCH, id="extra-field"),
        pytest.param(json.dumps({k: v for k, v in GOOD.items() if k != "distance"}), "end",
                     ModelFailure.SCHEMA_MISMATCH, id="missing-field"),
        pytest.param(json.dumps(GOOD | {"nodes_visited": "2"}), "other", ModelFailure.SCHEMA_MISMATCH, id="wrong-type"),
    ],
)
def test_model_failures(text: str, stop: str, failure: str) -> None:
    grade = G.grade_answer(text, stop, FACTS)
    assert (grade.outcome, grade.failure) == (Outcome.MODEL_FAILURE, failure)
    assert grade.checks == () and grade.walkthrough is None
    assert grade.detail


def test_schema_mismatch_keeps_the_parsed_object_and_names_the_problem() -> None:
    grade = G.grade_answer(json.dumps(GOOD | {"extra": 1}), "end", FACTS)
    assert grade.claims == GOOD | {"extra": 1}
    assert 'unexpected field "extra"' in grade.detail


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("\n  " + GOOD_TEXT + "\n", id="whitespace"),
        pytest.param("```json\n" + GOOD_TEXT + "\n```", id="json-fence"),
        pytest.param("```\n" + json.dumps(GOOD, indent=2) + "\n```\n", id="bare-fence"),
    ],
)
def test_tolerated_wrappings(text: str) -> None:
    assert G.grade_answer(text, "end", FACTS).outcome == Outcome.GROUNDED


def test_stop_other_is_graded_on_its_text() -> None:
    assert G.grade_answer(GOOD_TEXT, "other", FACTS).outcome == Outcome.GROUNDED


def test_an_html_payload_is_just_text() -> None:
    answer = GOOD | {"walkthrough": "<img src=x onerror=alert(1)> step 7 finds it"}
    grade = G.grade_answer(json.dumps(answer), "end", FACTS)
    assert grade.outcome == Outcome.GROUNDED
    assert grade.walkthrough == answer["walkthrough"]  # kept verbatim; the page shows it as text


@pytest.mark.parametrize(
    ("order", "kind", "radius"),
    [("lon-sorted", "radius", 0.003), ("median-first", "nearest", None), ("shuffled", "radius", 0.0005)],
)
def test_real_searches_grade_a_faithful_answer_grounded(order: str, kind: str, radius: float | None) -> None:
    result = search(order, kind, 24.9447, 60.1702, radius)
    prompt = build_prompt(result)
    text = json.dumps(answer_from_prompt(prompt.user))
    assert G.grade_answer(text, "end", facts_for(result, prompt)).outcome == Outcome.GROUNDED


def test_cut_synthetic_trace_grades_grounded_from_the_marker() -> None:
    result = long_sample(321, "nearest")
    prompt = build_prompt(result)
    assert prompt.cut
    text = json.dumps(answer_from_prompt(prompt.user))
    assert G.grade_answer(text, "end", facts_for(result, prompt)).outcome == Outcome.GROUNDED


def test_deeply_nested_answer_is_invalid_json_without_being_parsed():
    """Under Pyodide, parsing ~10,000 nested brackets kills the worker; the depth is checked first."""
    from pyapp.explanation.grading import grade_answer

    grade = grade_answer("[" * 10_000 + "]" * 10_000, "end", None)
    assert (grade.outcome, grade.failure) == ("model_failure", ModelFailure.INVALID_JSON)
    assert "more than 200 levels deep" in grade.detail
