"""Drift: each call records the model the provider reports and OpenAI's system fingerprint (DR-008)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from designed_logs import with_reported
from eval_helpers import OTHER_SETTINGS, full_run
from pyapp.auditlog.entries import call_entry, new_entry_id
from pyapp.auditlog.format import CALL_DRIFT_KEYS, MAX_REPORTED_BYTES
from pyapp.auditlog.validation import validate_entry
from pyapp.evaluation.configurations import group_runs
from pyapp.evaluation.evalset import EVAL_SET_VERSION, FIXED_SETS, case_prompt
from pyapp.evaluation.rebuild import rebuild
from pyapp.presentation.repeat_report import (
    configuration_compare_report,
    configurations_report,
    format_configuration_compare_report,
    format_configurations_report,
)
from pyapp.providers.api import parse_response
from pyapp.providers.client import CallOutcome
from pyapp.providers.settings import Settings
from pyapp.providers.wire import Reply

OPENAI_BODY = {
    "model": "gpt-test-1-2026-11-01", "system_fingerprint": "fp_abc123",
    "choices": [{"message": {"role": "assistant", "content": "{}"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 10, "completion_tokens": 2},
}
ANTHROPIC_BODY = {"type": "message", "model": "claude-test-1-20261101", "stop_reason": "tool_use",
                  "content": [{"type": "tool_use", "name": "x", "input": {}}],
                  "usage": {"input_tokens": 10, "output_tokens": 2}}


def test_replies_carry_the_reported_model_and_fingerprint():
    openai = parse_response("openai", 200, {}, json.dumps(OPENAI_BODY))
    assert (openai.model, openai.system_fingerprint) == ("gpt-test-1-2026-11-01", "fp_abc123")
    anthropic = parse_response("anthropic", 200, {}, json.dumps(ANTHROPIC_BODY))
    assert (anthropic.model, anthropic.system_fingerprint) == ("claude-test-1-20261101", None)
    bare = parse_response("openai-compatible", 200, {}, json.dumps({**OPENAI_BODY, "model": 7,
                                                                    "system_fingerprint": ""}))
    assert (bare.model, bare.system_fingerprint) == (None, None)


def entry_with(model: str | None, fingerprint: str | None) -> dict:
    prompt = case_prompt(FIXED_SETS.case("C01"))
    reply = Reply("{}", "end", 1, 1, "stop", model, fingerprint)
    return call_entry(
        entry_id=new_entry_id(), time=datetime(2026, 12, 3, tzinfo=UTC), run_id="run-1", case_id="C01",
        eval_set_version=EVAL_SET_VERSION, prompt=prompt, settings=Settings("openai", "gpt-test-1", 4000),
        outcome=CallOutcome(200, reply, None, "", 5.0, 6.0, 0, False), grade_outcome="model_failure",
        failure=None)


def test_call_entries_record_both_and_older_entries_without_them_stay_valid():
    entry = entry_with("gpt-test-1-2026-11-01", "fp_abc123")
    assert (entry["model_reported"], entry["system_fingerprint"]) == ("gpt-test-1-2026-11-01", "fp_abc123")
    older = {k: v for k, v in entry.items() if k not in CALL_DRIFT_KEYS}
    assert validate_entry(older) == []
    assert entry_with("m" * 5000, None)["model_reported"] == "m" * MAX_REPORTED_BYTES


@pytest.mark.parametrize("value, problem", [
    (12, "model_reported: must be text"),
    ("x" * 201, "model_reported: is longer than 200 bytes"),
    ("\ud800", "model_reported: holds characters that are not valid Unicode (a lone surrogate)"),
], ids=["number", "too-long", "surrogate"])
def test_validate_entry_checks_the_reported_model(value, problem):
    entry = {**entry_with("gpt", None), "model_reported": value}
    assert validate_entry(entry) == [problem]


def test_a_configuration_answered_by_two_reported_models_is_flagged_and_comparisons_say_so():
    entries = (with_reported(full_run("run-a1"), "claude-test-1-v1")
               + with_reported(full_run("run-a2", start=100), "claude-test-1-v1")[:10]
               + with_reported(full_run("run-a2", start=100), "claude-test-1-v2")[10:]  # changed mid-run
               + with_reported(full_run("run-b1", start=200, settings=OTHER_SETTINGS), "gpt-x", "fp_1")
               + with_reported(full_run("run-b2", start=300, settings=OTHER_SETTINGS), "gpt-x", "fp_1"))
    runs = list(rebuild(entries))
    report = configurations_report(runs)
    a, b = report["configurations"]
    assert a["drift"] == {"models_reported": ["claude-test-1-v1", "claude-test-1-v2"], "fingerprints": [],
                          "flagged": True,
                          "text": "answered by 2 different reported models (claude-test-1-v1, claude-test-1-v2)"}
    assert b["drift"]["flagged"] is False and b["drift"]["fingerprints"] == ["fp_1"]
    text = format_configurations_report(report)
    assert "DRIFT: answered by 2 different reported models" in text
    assert "model reported: gpt-x; system fingerprint: fp_1" in text
    compared = configuration_compare_report(group_runs(runs), "run-a1", "run-b1")
    assert compared["drift_text"] == [
        "Drift: X's runs were answered by 2 different reported models (claude-test-1-v1, claude-test-1-v2), "
        "so its spread and this difference may mix model changes with noise."]
    assert compared["drift_text"][0] in format_configuration_compare_report(compared)


def test_fingerprints_changing_between_runs_are_flagged_and_logs_without_them_are_not():
    entries = (with_reported(full_run("run-b1", settings=OTHER_SETTINGS), "gpt-x", "fp_1")
               + with_reported(full_run("run-b2", start=100, settings=OTHER_SETTINGS), "gpt-x", "fp_2"))
    (group,) = configurations_report(list(rebuild(entries)))["configurations"]
    assert group["drift"]["flagged"] and group["drift"]["text"] == "2 different system fingerprints (fp_1, fp_2)"
    (old,) = configurations_report(list(rebuild(full_run("r1") + full_run("r2", start=50))))["configurations"]
    assert old["drift"] == {"models_reported": [], "fingerprints": [], "flagged": False, "text": ""}


def test_the_page_receives_the_drift_flag(worker):
    from live_call import run_async
    from pyapp import browser

    entries = (with_reported(full_run("run-b1", settings=OTHER_SETTINGS), "gpt-x", "fp_1")
               + with_reported(full_run("run-b2", start=100, settings=OTHER_SETTINGS), "gpt-y", "fp_1"))
    worker.stored.extend(json.dumps(e) for e in entries)
    answer = json.loads(run_async(browser.handle("configurations", "{}")))
    (group,) = answer["value"]["configurations"]
    assert group["drift"]["flagged"] and group["drift"]["models_reported"] == ["gpt-x", "gpt-y"]
