"""The prose rubric and the audit entry that records a rating (DR-009)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eval_helpers import call, full_run, rating
from pyapp.auditlog.entries import rating_entry
from pyapp.auditlog.format import RATING_KEYS
from pyapp.auditlog.validation import validate_entry
from pyapp.evaluation.export import ImportFileError, export_json, merge, parse_import
from pyapp.evaluation.rating import rating_queue
from pyapp.evaluation.rebuild import rebuild
from pyapp.explanation.rubric import RUBRIC, RUBRICS, VERDICT_RULE, answers_problem, explanation_text, overall_verdict

WHEN = "2026-12-02T16:40:05.123Z"
ALL_YES = dict.fromkeys(RUBRIC.keys, True)


def test_the_rubric_is_a_few_versioned_yes_no_questions():
    assert RUBRIC.version == "prose-rubric-v1" and RUBRICS == {RUBRIC.version: RUBRIC}
    assert RUBRIC.keys == ("pruning", "answer", "no_invention", "followable")
    assert all(q.text.endswith("?") and q.hint for q in RUBRIC.questions)
    assert RUBRIC.to_json()["verdict_rule"] == VERDICT_RULE


@pytest.mark.parametrize("no", [None, *RUBRIC.keys], ids=["all-yes", *RUBRIC.keys])
def test_the_verdict_is_acceptable_only_when_every_answer_is_yes(no):
    answers = {**ALL_YES, **({} if no is None else {no: False})}
    assert overall_verdict(answers) is (no is None)


def test_a_rating_entry_has_exactly_its_fields():
    entry = rating_entry("g1", WHEN, "c1", "Ann Lee", RUBRIC.version, ALL_YES, "clear")
    assert entry == {"format": 1, "id": "g1", "type": "rating", "time": WHEN, "call_id": "c1",
                     "rater": "Ann Lee", "rubric_version": "prose-rubric-v1", "answers": ALL_YES, "note": "clear"}
    assert validate_entry(json.loads(json.dumps(entry))) == []


@pytest.mark.parametrize(("field", "value", "fragment"), [
    ("rater", "", "rater: must be a name"),
    ("rater", " Ann", "rater: must be a name"),
    ("rater", "Ann ", "rater: must be a name"),
    ("rater", "Ann\nLee", "rater: must be a name"),
    ("rater", "A\u2028B", "rater: must be a name"),
    ("rater", "x" * 41, "rater: must be a name"),
    ("rater", 7, "rater: must be a name"),
    ("rubric_version", "prose-rubric-v9", "rubric_version: must be one of prose-rubric-v1"),
    ("rubric_version", None, "rubric_version: must be one of"),
    ("answers", {"pruning": True}, "answers: must answer exactly pruning, answer, no_invention, followable"),
    ("answers", {**ALL_YES, "extra": True}, "answers: must answer exactly"),
    ("answers", {**ALL_YES, "answer": 1}, "answers: every answer must be true (yes) or false (no)"),
    ("answers", {**ALL_YES, "answer": None}, "answers: every answer must be true"),
    ("answers", [True, True, True, True], "answers: must answer exactly"),
    ("note", None, "note: must be text"),
    ("note", "n" * 10_001, "note: is longer than 10,000 bytes"),
    ("call_id", "<b>", "call_id: must be"),
], ids=["empty-rater", "leading-space", "trailing-space", "line-break", "line-separator", "long-rater",
        "number-rater", "unknown-version", "no-version", "too-few-answers", "extra-answer", "number-answer",
        "null-answer", "list-answers", "null-note", "long-note", "bad-call-id"])
def test_rating_validation_names_the_problem(field, value, fragment):
    entry = rating("c1", "Ann")
    problems = validate_entry({**entry, field: value})
    assert any(fragment in p for p in problems), problems
    with pytest.raises(ValueError, match=fragment.split(":")[0]):
        kwargs = {"entry_id": "g1", "time": WHEN, "call_id": "c1", "rater": "Ann",
                  "rubric_version": RUBRIC.version, "answers": ALL_YES, "note": ""}
        rating_entry(**{**kwargs, field: value})


def test_a_rating_with_a_hostile_answer_key_is_refused_in_words():
    entry = rating("c1", "Ann")
    assert validate_entry({**entry, "answers": {1: True, 2.5: False}}) == [
        "answers: must answer exactly pruning, answer, no_invention, followable"]
    assert validate_entry({**entry, "answers": {"\ud800": True}}) == [
        "answers: has a key that is not valid Unicode (a lone surrogate)"]
    assert validate_entry({**entry, "rater": "Ann \udc00"})[0].startswith("rater:")


@settings(max_examples=300, deadline=None)
@given(field=st.sampled_from(RATING_KEYS + ("answers.pruning",)),
       value=st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=50),
                          lambda inner: st.lists(inner, max_size=4)
                          | st.dictionaries(st.text(max_size=10), inner, max_size=4), max_leaves=10))
def test_rating_validation_never_raises_on_a_hostile_field(field, value):
    entry = json.loads(json.dumps(rating("c1", "Ann")))
    if field == "answers.pruning":
        entry["answers"]["pruning"] = value
    else:
        entry[field] = value
    problems = validate_entry(entry)
    assert isinstance(problems, list) and all(isinstance(p, str) and len(p) < 300 for p in problems)


@given(version=st.none() | st.integers() | st.text(max_size=20), answers=st.none() | st.lists(st.booleans())
       | st.dictionaries(st.text(max_size=12) | st.integers(), st.none() | st.booleans() | st.integers()))
def test_answers_problem_never_raises(version, answers):
    assert answers_problem(version, answers) is None or isinstance(answers_problem(version, answers), str)


def test_ratings_travel_with_their_run_in_an_export_and_come_back():
    entries = full_run("run-a") + full_run("run-b", start=100.0)
    ratings = [rating(entries[0]["id"], "Ann", time=50.0), rating(entries[20]["id"], "Bo", False, time=150.0)]
    log = entries + ratings
    only_a = parse_import(export_json(log, "run-a"))
    assert ratings[0] in only_a and ratings[1] not in only_a
    everything = parse_import(export_json(log))
    assert [e for e in everything if e["type"] == "rating"] == ratings
    assert merge(entries, everything) == ratings


def test_ratings_change_no_run():
    entries = full_run("run-a")
    runs = rebuild(entries + [rating(entries[0]["id"], "Ann", False)])
    assert runs.skipped == 0 and [r.outcome for r in runs.run("run-a").graded] == ["grounded"] * 20


def test_an_import_with_a_rating_of_a_missing_call_is_refused():
    text = export_json(full_run("run-a"))
    doc = json.loads(text)
    doc["entries"].append(rating("nosuchcall", "Ann"))
    with pytest.raises(ImportFileError, match="entry 21 .* is a rating on a call that is not in the file"):
        parse_import(json.dumps(doc))


def test_the_explorer_export_keeps_ratings_of_explorer_calls():
    search = {"order": "file", "kind": "nearest", "lon": 24.9, "lat": 60.1, "radius": None}
    explorer_call = call(None, "C01", search=search)
    kept = rating(explorer_call["id"], "Ann")
    assert parse_import(export_json([explorer_call, kept], explorer=True)) == [explorer_call, kept]


# ---------------------------------------------------------------------- what a rater sees (pyapp.evaluation.rating)


def test_the_rating_queue_is_blind_to_grades_and_to_other_raters():
    entries = full_run("run-a", frozenset({"C01", "C03"}))  # every other case is not grounded
    first = entries[0]["id"]
    log = entries + [rating(first, "Bo", False, time=40.0), rating(first, "Ann", False, time=41.0),
                     rating(first, "Ann", True, time=42.0)]
    items = rating_queue(rebuild(log).run("run-a"), log, "Ann")
    assert [i["case_id"] for i in items] == [f"C{n:02d}" for n in range(1, 21)]
    assert set(items[0]) == {"run_id", "call_id", "case_id", "title", "search", "why_it_matters", "found",
                             "explanation", "your_answers"}
    assert items[0]["your_answers"] == ALL_YES and all(i["your_answers"] is None for i in items[1:])
    shown = json.dumps(items)
    assert "grounded" not in shown and "Bo" not in shown and '"distance"' not in shown
    assert items[0]["explanation"] == json.loads(entries[0]["answer"])["walkthrough"]
    assert rating_queue(rebuild(log).run("run-a"), log, "Bo")[0]["your_answers"] == dict.fromkeys(RUBRIC.keys, False)


@pytest.mark.parametrize(("answer", "shown"), [
    ('{"walkthrough": "Step 1 visits the root."}', "Step 1 visits the root."),
    ('```json\n{"walkthrough": "Fenced."}\n```', "Fenced."),
    ('{"walkthrough": "The sea', '{"walkthrough": "The sea'),
    ('{"walkthrough": 5}', '{"walkthrough": 5}'),
    ('{"walkthrough": "  "}', '{"walkthrough": "  "}'),
    ("[" * 5000, "[" * 5000),
    ("<b>bold</b>", "<b>bold</b>"),
], ids=["prose", "fenced", "cut-off", "not-text", "blank", "deep", "markup-is-text"])
def test_the_explanation_shown_is_the_walkthrough_or_the_answer_as_it_came(answer, shown):
    assert explanation_text(answer) == shown
