"""A call entry passed on sight (pyapp.auditlog.plain_call) is one the full validation finds valid, and the calls a
log is made of are passed so (DR-006): plain calls, changed in up to two places, are checked both ways."""

from __future__ import annotations

import json

from hypothesis import event, given, settings
from hypothesis import strategies as st

from fast_paths import without_fast_path
from pyapp.auditlog import validation
from pyapp.auditlog.format import CALL_DRIFT_KEYS, CALL_KEYS
from pyapp.auditlog.plain_call import plainly_valid_call
from synthetic_logs import synthetic_log

# As stored: plain JSON values (an entry built by pyapp may hold a str enum).
CALLS = [entry for entry in json.loads(json.dumps(synthetic_log(120))) if entry["type"] == "call"]
for number, entry in enumerate(CALLS[::3]):  # some as older logs have them, without the keys added later
    if number % 2:
        for key in CALL_DRIFT_KEYS:
            entry.pop(key, None)
    else:
        entry.update(model_reported="claude-bench-2", system_fingerprint="fp_é" if number % 3 else None)

# Values at the edges of what a call's fields take, drawn more often than the others.
EDGE_VALUES = [
    None, True, 0, -1, 599, 600, 1000, 1001, 2**53, 10**400, 0.5, 1e13, float("inf"), float("nan"),
    "", "\ud800", "x\udfff", "é" * 60, "é" * 150, "x" * 201, "→" * 2600, "→" * 3400, "end", "max_tokens",
    "cancelled", "overloaded", "grounded", "model_failure", "infrastructure_failure", "run-1", "run\n1", "A" * 65,
    "a" * 64,
    "2026-02-30T10:00:00.000Z", "2026-12-02T10:00:00.000Z", [1], {"a": 1}]
EDGES = st.sampled_from(EDGE_VALUES)
ODD_VALUES = st.one_of(EDGES, EDGES, EDGES, st.integers(-3, 700), st.floats(), st.text(max_size=4))
EVERY_PLACE = [*CALL_KEYS, *CALL_DRIFT_KEYS, "extra",
               *(("settings", key) for key in ("model", "temperature", "max_tokens", "base_url", "extra"))]
PLACES = st.sampled_from(EVERY_PLACE)


def full_validation(entry: object) -> list[str]:
    """``validate_entry`` without the check on sight."""
    return without_fast_path(validation, "plainly_valid_call", validation.validate_entry, entry)


OUTCOMES = sorted({entry["outcome"] for entry in CALLS})


@settings(max_examples=1000, deadline=None)
@given(st.sampled_from(OUTCOMES), st.integers(0, 10**6),
       st.lists(st.tuples(PLACES, st.one_of(st.just("drop"), ODD_VALUES)), max_size=2))
def test_a_call_passed_on_sight_is_one_the_full_validation_passes(outcome, number, changes):
    of_outcome = [entry for entry in CALLS if entry["outcome"] == outcome]
    entry = json.loads(json.dumps(of_outcome[number % len(of_outcome)]))
    changed(entry, changes)
    passed, valid = both_ways(entry)
    event(f"passed on sight: {passed}, valid: {valid}")


def test_a_call_changed_in_any_one_place_to_any_edge_value_is_passed_on_sight_only_if_valid():
    found = set()
    for outcome in OUTCOMES:
        base = next(entry for entry in CALLS if entry["outcome"] == outcome)
        for place in EVERY_PLACE:
            for value in ["drop", *EDGE_VALUES]:
                entry = json.loads(json.dumps(base))
                changed(entry, [(place, value)])
                found.add(both_ways(entry))
    assert found == {(True, True), (False, True), (False, False)}


def changed(entry: dict, changes: list) -> None:
    """``entry`` changed in each place of ``changes``: a key of its own or of its settings set, dropped or added."""
    for place, value in changes:
        target, key = (entry, place) if isinstance(place, str) else (entry.get("settings"), place[1])
        if not isinstance(target, dict):
            continue
        if value == "drop":
            target.pop(key, None)
        else:
            target[key] = value


def both_ways(entry: dict) -> tuple[bool, bool]:
    """Whether ``entry`` is passed on sight and whether it is valid, once the two are found to agree."""
    full = full_validation(entry)
    assert validation.validate_entry(entry) == full
    passed = plainly_valid_call(entry)
    if passed:
        assert full == [], (entry, full)
    return passed, not full


def test_the_calls_of_a_log_are_passed_on_sight():
    in_runs = [entry for entry in CALLS if entry["run_id"] is not None]
    assert len(in_runs) > 100 and all(full_validation(entry) == [] for entry in in_runs)
    assert all(plainly_valid_call(entry) for entry in in_runs)
    assert {entry["outcome"] for entry in in_runs} >= {"grounded", "not_grounded", "model_failure",
                                                      "infrastructure_failure"}
