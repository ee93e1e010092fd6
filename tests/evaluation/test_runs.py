"""Runs rebuilt from the audit log: grouping, one answer per case, stale input, failures apart (DR-006)."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eval_helpers import OTHER_SETTINGS, answer_for, call, cancel, decision, full_run
from pyapp.core.strict_json import nesting_exceeds as json_nesting_exceeds
from pyapp.core.vocabulary import CaseStatus
from pyapp.evaluation.evalset import FIXED_SETS
from pyapp.evaluation.grader import Grader
from pyapp.evaluation.rebuild import rebuild
from pyapp.evaluation.runs import cases_to_ask
from pyapp.explanation.grading import grade_answer

OLD_HASH = "0" * 64


def only(entries):
    built = rebuild(entries)
    assert len(built) == 1
    return built[0]


def test_calls_are_grouped_by_run_and_explorer_calls_ignored():
    explorer = call(None, "C01", time=-5,
                    search={"order": "file", "kind": "nearest", "lon": 24.94, "lat": 60.17, "radius": None})
    entries = [explorer] + full_run("run-b", start=100) + full_run("run-a", start=10)
    built = rebuild(entries)
    assert [r.run_id for r in built] == ["run-a", "run-b"]  # oldest first
    assert built[0].started == "2026-12-02T10:00:10.000Z"
    assert built[0].last == "2026-12-02T10:00:29.000Z"
    assert all(r.calls == 20 and r.complete for r in built)
    assert all(c.status == CaseStatus.GRADED and c.outcome == "grounded" for c in built[0].cases)


def test_entry_order_in_the_log_does_not_matter():
    entries = full_run("r", grounded={"C01"}) + [call("r", "C02", time=30)]
    shuffled = entries[:]
    random.Random(3).shuffle(shuffled)
    assert rebuild(shuffled) == rebuild(entries)


def test_first_answer_counts_and_a_later_good_one_is_ignored():
    bad = call("r", "C03", outcome="not_grounded", answer=answer_for("C03", "distance"), time=1)
    good = call("r", "C03", time=2)
    run = only([good, bad][::-1])
    result = run.case_result("C03")
    assert result.entry_id == bad["id"] and result.outcome == "not_grounded"
    assert [n.entry_id for n in run.repeats] == [good["id"]]
    assert result.calls == 2


def test_a_retried_case_counts_once():
    failed = call("r", "C05", outcome="infrastructure_failure", error="rate_limit", status=429, time=1,
                  answer_ms=None, message="Rate limited after 4 attempts.")
    answered = call("r", "C05", time=2)
    again = call("r", "C05", time=3)
    run = only([failed, answered, again])
    graded = run.graded
    assert len(graded) == 1 and graded[0].entry_id == answered["id"]
    assert [n.entry_id for n in run.infrastructure_failures] == [failed["id"]]
    assert "rate_limit (HTTP 429): Rate limited" in run.infrastructure_failures[0].reason
    assert run.calls == 3


def test_model_failures_are_graded_answers():
    truncated = call("r", "C01", outcome="model_failure", answer='{"walkthrough": "Step 1 vis',
                     stop="max_tokens")
    result = only([truncated]).case_result("C01")
    assert result.status == CaseStatus.GRADED and result.outcome == "model_failure"
    assert result.grade.failure == "truncated"


def test_answers_are_graded_again_not_trusted():
    wrong = call("r", "C08", outcome="grounded", answer=answer_for("C08", "nodes_visited"))
    run = only([wrong])
    assert run.case_result("C08").outcome == "not_grounded"
    assert run.case_result("C08").logged_outcome == "grounded"
    assert run.regraded_differently == (wrong["id"],)
    assert run.case_result("C08").grade.failed_checks == ("nodes_visited",)


@pytest.mark.parametrize("change, fragment", [
    ({"prompt_hash": OLD_HASH}, "prompt text differs"),
    ({"prompt_hash": OLD_HASH, "prompt_version": "explain-prompt-0"}, "prompt explain-prompt-0"),
    ({"eval_set_version": "explain-eval-v1"}, "eval set explain-eval-v1"),
], ids=["hash", "prompt-version", "set-version"])
def test_a_call_for_another_prompt_is_stale(change, fragment):
    entry = call("r", "C04", **change)
    run = only([entry])
    result = run.case_result("C04")
    assert result.status == CaseStatus.STALE and result.grade is None and fragment in result.detail
    assert [n.entry_id for n in run.stale] == [entry["id"]]
    assert run.graded == ()
    assert cases_to_ask(run) == list(FIXED_SETS.case_ids())


def test_stale_then_current_answer_counts_the_current_one():
    old = call("r", "C04", prompt_hash=OLD_HASH, time=1)
    new = call("r", "C04", outcome="not_grounded", answer=answer_for("C04", "result"), time=2)
    result = only([old, new]).case_result("C04")
    assert result.status == CaseStatus.GRADED and result.entry_id == new["id"]


def test_editing_a_logged_hash_makes_a_graded_case_stale():
    entries = full_run("r")
    assert cases_to_ask(only(entries)) == []
    entries[6] = {**entries[6], "prompt_hash": OLD_HASH}
    run = only(entries)
    assert run.case_result("C07").status == CaseStatus.STALE
    assert cases_to_ask(run) == ["C07"]


def test_unknown_case_is_stale():
    entry = call("r", "C01")
    entry["case_id"] = "C21"
    run = only([entry])
    assert run.stale[0].reason == "C21 is not a case of explain-eval-v2"
    assert all(c.status == CaseStatus.NEVER_ASKED for c in run.cases)


def test_failures_and_cancellations_are_kept_apart():
    entries = [
        call("r", "C01", time=1),
        call("r", "C02", outcome="infrastructure_failure", error="network", status=None, answer_ms=None,
             time=2),
        call("r", "C03", outcome="cancelled", answer_ms=None, time=3),
        cancel("r", "C04", time=4),
        call("r", "C05", outcome="infrastructure_failure", error="auth", status=401, time=5),
        cancel("r", "C05", time=6),
    ]
    run = only(entries)
    status = {c.case_id: c.status for c in run.cases}
    assert status["C01"] == CaseStatus.GRADED
    assert status["C02"] == CaseStatus.INFRA_FAILURE
    assert status["C03"] == CaseStatus.CANCELLED and status["C04"] == CaseStatus.CANCELLED
    assert status["C05"] == CaseStatus.CANCELLED  # the latest event of an unanswered case
    assert status["C06"] == CaseStatus.NEVER_ASKED
    assert len(run.infrastructure_failures) == 2 and len(run.cancelled) == 3
    assert cases_to_ask(run) == [c for c in FIXED_SETS.case_ids() if c != "C01"]


def test_one_cancel_of_a_running_call_is_one_note():
    stopped = call("r", "C03", outcome="cancelled", answer_ms=None, time=3)
    run = only([call("r", "C01", time=1), stopped, cancel("r", "C03", time=3, call_id=stopped["id"])])
    assert [(n.case_id, n.reason) for n in run.cancelled] == [("C03", "cancelled while the call was running")]
    assert run.case_result("C03").status == CaseStatus.CANCELLED



def test_cancel_after_an_answer_keeps_the_answer():
    answered = call("r", "C09", time=1)
    run = only([answered, cancel("r", "C09", time=2, call_id=answered["id"])])
    assert run.case_result("C09").status == CaseStatus.GRADED
    assert cases_to_ask(run) == [c for c in FIXED_SETS.case_ids() if c != "C09"]


def test_settings_tokens_and_latencies():
    entries = full_run("r", latencies=[float(100 + i) for i in range(20)])
    entries.append(call("r", "C01", settings=OTHER_SETTINGS, time=50, tokens=(7, 3)))
    entries.append(call("r", "C02", outcome="infrastructure_failure", answer_ms=None, time=51))
    run = only(entries)
    assert run.mixed_settings
    assert [s["provider"] for s in run.settings_seen] == ["anthropic", "openai"]
    assert run.settings["provider"] == "anthropic"
    assert run.input_tokens == 20 * 5000 + 7 and run.output_tokens == 20 * 600 + 3
    assert run.answer_latencies == [float(100 + i) for i in range(20)]
    assert not only(full_run("s")).mixed_settings


def test_latest_decision_is_attached_to_the_counted_answer():
    answered = call("r", "C01", time=1)
    entries = [answered, decision(answered["id"], False, "vague", time=2),
               decision(answered["id"], True, "ok", time=3)]
    result = only(entries).case_result("C01")
    assert result.decision.helpful is True and result.decision.note == "ok"


def test_corrupt_entries_are_skipped_and_counted():
    good = full_run("r")
    broken = dict(good[3])
    broken["answer_ms"] = "fast"
    missing = {k: v for k, v in good[4].items() if k != "outcome"}
    entries = ["junk", None, broken, missing, *good, dict(good[0])]
    built = rebuild(entries)
    assert built.skipped == 5  # two non-entries, two broken, one repeated id
    assert len(built.problems) == 5 and "answer_ms" in built.problems[2]
    assert "appears earlier" in built.problems[4]
    run = built.runs[0]
    assert run.complete and run.calls == 20


def test_unknown_run_is_a_clear_error():
    with pytest.raises(ValueError, match="no run 'x'.*runs: r"):
        rebuild(full_run("r")).run("x")


def test_deeply_nested_answer_is_an_invalid_json_failure_not_a_crash():
    entry = call("r", "C01", outcome="model_failure", answer="[" * 50_000 + "]" * 50_000)
    result = only([entry]).case_result("C01")
    assert result.outcome == "model_failure" and result.grade.failure == "invalid_json"
    assert "more than 200 levels deep" in result.grade.detail


def test_answers_are_graded_when_read_and_identical_ones_once():
    graded = []

    def counting(text, stop, facts):
        graded.append(text)
        return grade_answer(text, stop, facts)

    grader = Grader(counting)
    log = [e for i in range(5) for e in full_run(f"run-{i}", start=100 * i)]
    built = rebuild(log, grader=grader)
    assert len(built) == 5 and all(r.complete for r in built)
    assert graded == []  # which cases count is known without grading
    assert [c.outcome for c in built[0].cases] == ["grounded"] * 20
    assert len(graded) == 20
    assert all(c.outcome == "grounded" for r in built for c in r.cases)
    assert len(graded) == 20
    again = rebuild(log, grader=grader)  # the page keeps one grader: a second rebuild grades nothing anew
    assert all(c.outcome == "grounded" for r in again for c in r.cases)
    assert len(graded) == 20


def test_each_rebuild_without_a_grader_grades_with_a_fresh_one():
    log = full_run("run-fresh")
    first, second = rebuild(log)[0].cases[0], rebuild(log)[0].cases[0]
    assert first.grader is not None and first.grader is not second.grader


@pytest.mark.parametrize("text, limit, expected", [
    ("[[[]]]", 3, False),
    ("[[[[]]]]", 3, True),
    ('["[[[[[[", {"a": "{{{{"}]', 2, False),
    ('["\\"[[[[[", [[]]]', 2, True),
    ('"\\\\"' + "[" * 10, 5, True),
    ("[" * 10, 9, True),
    ("[" * 10, 10, False),
    ('{"a": [1, {"b": [2]}]}', 4, False),
], ids=["within", "over", "strings-ignored", "escaped-quote", "escaped-backslash", "unclosed", "at-limit",
        "mixed"])
def test_json_nesting(text, limit, expected):
    assert json_nesting_exceeds(text, limit) is expected


@settings(max_examples=150, deadline=None)
@given(st.recursive(st.none() | st.integers() | st.text(alphabet='[]{}"\\ab', max_size=6),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                                  max_size=3),
                    max_leaves=20))
def test_json_nesting_matches_the_real_depth(value):
    def depth(v):
        if isinstance(v, list):
            return 1 + max(map(depth, v), default=0)
        if isinstance(v, dict):
            return 1 + max(map(depth, v.values()), default=0)
        return 0

    text = json.dumps(value)
    d = depth(value)
    assert not json_nesting_exceeds(text, d)
    if d > 0:
        assert json_nesting_exceeds(text, d - 1)


# One event per step: (case index, what happened).
WHAT = ["grounded", "not_grounded", "model_failure", "infra", "cancelled", "stale", "cancel-entry"]
EVENTS = st.lists(st.tuples(st.integers(0, 4), st.sampled_from(WHAT)), max_size=25)


@settings(max_examples=60, deadline=None)
@given(EVENTS)
def test_one_counted_answer_per_case_is_the_first_current_answer(events):
    entries = []
    first_current: dict[str, str] = {}
    for t, (index, what) in enumerate(events):
        case_id = f"C{index + 1:02d}"
        if what == "cancel-entry":
            entries.append(cancel("r", case_id, time=t))
            continue
        if what == "infra":
            entries.append(call("r", case_id, outcome="infrastructure_failure", time=t))
        elif what == "cancelled":
            entries.append(call("r", case_id, outcome="cancelled", time=t))
        elif what == "stale":
            entries.append(call("r", case_id, prompt_hash=OLD_HASH, time=t))
        else:
            answer = answer_for(case_id, "distance") if what == "not_grounded" else None
            if what == "model_failure":
                answer = "not json"
            entry = call("r", case_id, outcome=what, answer=answer, time=t)
            entries.append(entry)
            first_current.setdefault(case_id, entry["id"])
    if not entries:
        return
    run = only(entries)
    counted = {c.case_id: c.entry_id for c in run.cases if c.status == CaseStatus.GRADED}
    assert counted == first_current
    assert cases_to_ask(run) == [c for c in FIXED_SETS.case_ids() if c not in first_current]
