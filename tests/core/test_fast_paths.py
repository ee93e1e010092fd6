"""The log path's fast paths give exactly what the full checks give (DR-006).

Stored entries and graded answers are parsed by ``pyapp.core.strict_json`` with Python's own
integer parser unless a digit run needs the bound, lists of plain integers are bounded at
their ends, the schema validator is spared the ids of such a list, and the checks' verdicts on claims already
checked are kept. Each is compared here with the slow path it stands in for, on generated JSON.
"""

from __future__ import annotations

import json

import fastjsonschema
from hypothesis import event, given, settings
from hypothesis import strategies as st

from fast_paths import without_fast_path
from pyapp.core import jsontypes, strict_json
from pyapp.explanation import checks
from pyapp.explanation import schema as schema_check

INTS = st.one_of(st.integers(-(2**60), 2**60), st.sampled_from([2**53 - 1, 2**53, -(2**53), 10**400]))
SCALARS = st.one_of(st.none(), st.booleans(), INTS, st.floats(allow_nan=False), st.text(max_size=5),
                    st.sampled_from(["\ud800", "x\udfff"]))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=5), st.lists(INTS, max_size=8),
    st.dictionaries(st.sampled_from(["a", "b", "result_ids", "\ud801"]), inner, max_size=4)), max_leaves=20)


def reference_loads(text: str) -> object:
    """``strict_json.loads`` as it was: every integer through the bounded hook, keys taken one by one."""
    def unique(pairs):
        out = {}
        for key, value in pairs:
            if key in out:
                raise ValueError(f'the key "{key[:40]}" appears twice in one object')
            out[key] = value
        return out

    return json.loads(text, parse_constant=strict_json._reject_constant, parse_int=strict_json._bounded_int,
                      object_pairs_hook=unique)


def outcome(function, *args) -> object:
    try:
        return "value", function(*args)
    except ValueError as exc:
        return "refused", str(exc)


@settings(max_examples=150, deadline=None)
@given(VALUES, st.booleans())
def test_strict_parse_equals_the_bounded_hooks(value, repeat_a_key):
    text = json.dumps(value)
    if repeat_a_key and text.startswith("{"):
        text = '{"a": 1, "a": 2, ' + text[1:] if text != "{}" else '{"a": 1, "a": 2}'
    assert outcome(strict_json.loads, text) == outcome(reference_loads, text)


def test_a_long_digit_run_inside_a_text_is_read_and_inside_a_number_refused():
    assert strict_json.loads(json.dumps({"a": "7" * 5000})) == {"a": "7" * 5000}
    refused = ("refused", "a number has too many digits to read")
    assert outcome(strict_json.loads, '{"a": ' + "7" * 5000 + "}") == refused
    assert outcome(strict_json.loads, '{"a": 1, "a": ' + "7" * 5000 + "}") == outcome(
        reference_loads, '{"a": 1, "a": ' + "7" * 5000 + "}")


def test_a_long_number_is_refused_in_words_where_pythons_own_limit_is_lifted():
    import sys

    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        assert outcome(strict_json.loads, '[' + "7" * 5000 + "]") == ("refused", "a number has too many digits to read")
        assert strict_json.loads("[" + "7" * 4300 + "]") == [int("7" * 4300)]
    finally:
        sys.set_int_max_str_digits(limit)


@settings(max_examples=150, deadline=None)
@given(VALUES)
def test_the_quick_hostile_pass_agrees_with_the_full_walk(value):
    value = json.loads(json.dumps(value))  # as parsed from a stored text: lists, dicts, str, int, float
    assert jsontypes._holds_hostile(value) == bool(_full_walk(value))


def _full_walk(value) -> list:
    """``hostile_values`` without its quick pass (a fixture cannot patch inside a hypothesis test)."""
    quick = jsontypes._holds_hostile
    jsontypes._holds_hostile = lambda _: True
    try:
        return jsontypes.hostile_values(value, limit=100)
    finally:
        jsontypes._holds_hostile = quick


@settings(max_examples=150, deadline=None)
@given(st.fixed_dictionaries({}, optional={
    "walkthrough": st.text(max_size=3), "result_ids": st.lists(st.one_of(INTS, st.booleans(), st.floats(0, 3),
                                                                          st.text(max_size=1)), max_size=6),
    "distance": st.one_of(st.none(), st.floats(0, 1)), "nodes_visited": INTS, "subtrees_pruned": INTS,
    "cited_steps": st.lists(st.fixed_dictionaries({"step": INTS, "action": st.just("visit"), "node_id": INTS}),
                            max_size=2)}))
def test_leaving_plain_ids_out_of_the_validator_changes_no_message(answer):
    try:
        schema_check._validator()(answer)
        expected = []
    except fastjsonschema.JsonSchemaValuesException as exc:
        expected = sorted({schema_check._readable(err) for err in exc.errors})
    except fastjsonschema.JsonSchemaValueException as exc:
        expected = [schema_check._readable(exc)]
    found = schema_check.validate_answer(answer)
    if jsontypes.hostile_values(answer):
        assert found and all("out of range" in m or "not valid Unicode" in m for m in found)
    else:
        assert found == expected


SMALL = st.integers(-3, 60)
ODD_VALUES = st.one_of(st.none(), st.booleans(), INTS, st.floats(), st.text(max_size=3),
                       st.sampled_from(["\ud800", "x\udfff", "é", "jump", "far_prune", 2.0]),
                       st.lists(INTS, max_size=3),
                       st.dictionaries(st.sampled_from(["step", "action"]), SMALL, max_size=2))
PLAIN_ANSWERS = st.fixed_dictionaries({
    "walkthrough": st.text(max_size=4), "result_ids": st.lists(SMALL, max_size=4),
    "distance": st.one_of(st.none(), st.floats(-1, 1), SMALL), "nodes_visited": SMALL, "subtrees_pruned": SMALL,
    "cited_steps": st.lists(st.fixed_dictionaries({
        "step": SMALL, "action": st.sampled_from(["visit", "far_prune"]), "node_id": SMALL}), max_size=3)})
# Where a change goes: a key of the answer, or a key of its first cited step.
PLACES = st.one_of(st.sampled_from(["walkthrough", "result_ids", "distance", "nodes_visited", "subtrees_pruned",
                                   "cited_steps", "extra"]),
                   st.tuples(st.just("cited_steps"), st.sampled_from(["step", "action", "node_id", "extra"])))


CHANGES = st.lists(st.tuples(PLACES, st.one_of(st.just("drop"), ODD_VALUES)), max_size=2)


def _change(answer: dict, changes: list) -> None:
    """``answer`` changed in each place of ``changes``: a value set, a key dropped or added."""
    for place, value in changes:
        target, key = answer, place
        if not isinstance(place, str):
            steps = answer.get("cited_steps")
            target, key = (steps[0] if isinstance(steps, list) and steps and isinstance(steps[0], dict) else {},
                           place[1])
        if value == "drop":
            target.pop(key, None)
        else:
            target[key] = value


@settings(max_examples=300, deadline=None)
@given(PLAIN_ANSWERS, CHANGES)
def test_an_answer_passed_on_sight_is_one_the_full_validation_passes(answer, changes):
    _change(answer, changes)
    full = _full_validation(answer)
    assert schema_check.validate_answer(answer) == full
    claims = schema_check.plain_claims(answer)
    event(f"passed on sight: {claims is not None}")
    if claims is not None:
        assert full == []
        assert claims == checks._claims_key(answer)  # the checks' key, as they would make it


# One search's facts, met by every example below, so that claims equal in Python but not in JSON (1, 1.0, true)
# meet the verdicts kept for each other.
FACTS = checks.Facts(kind="nearest", result_ids=(3,), distance=0.5, nodes_visited=4, subtrees_pruned=1,
                     steps_total=5, sent_steps=(checks.SentStep(1, "visit", 3), checks.SentStep(2, "far_prune", 4)))


@settings(max_examples=400, deadline=None)
@given(PLAIN_ANSWERS, CHANGES)
def test_the_verdicts_kept_for_claims_are_the_ones_the_checks_give(answer, changes):
    _change(answer, changes)
    kept = len(FACTS.verdicts)
    verdicts = tuple(check(answer, FACTS) for check in checks.CHECKS.values())
    assert checks.run_checks(answer, FACTS) == verdicts
    assert checks.run_checks(answer, FACTS, schema_check.plain_claims(answer)) == verdicts  # as grading asks
    event(f"verdicts kept before: {kept == len(FACTS.verdicts)}")


def test_claims_equal_in_python_but_not_in_json_have_verdicts_of_their_own():
    claims = {"walkthrough": "", "result_ids": [3], "nodes_visited": 4, "subtrees_pruned": 1,
              "cited_steps": [{"step": 1, "action": "visit", "node_id": 3}]}
    for distance in (2, 2.0, 0.5, 1, 1.0, True, None):
        verdicts = checks.run_checks({**claims, "distance": distance}, FACTS)
        assert verdicts == tuple(check({**claims, "distance": distance}, FACTS) for check in checks.CHECKS.values())


def test_the_plain_answer_of_each_case_is_passed_on_sight():
    from tests.support.synthetic_logs import synthetic_log

    answers = [outcome(json.loads, entry["answer"]) for entry in synthetic_log(200)
               if entry["type"] == "call" and entry["answer"]]
    answers = [value for kind, value in answers if kind == "value"]
    plain = [answer for answer in answers if schema_check.plain_claims(answer)]
    assert len(plain) > len(answers) / 2
    assert all(_full_validation(answer) == [] for answer in plain)


def _full_validation(answer) -> list[str]:
    """``validate_answer`` without the check on sight."""
    return without_fast_path(schema_check, "plain_claims", schema_check.validate_answer, answer)
