"""Pre-registered plans: the entry, its timing against the runs, its verdict, and the command line (DR-008)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designed_logs import JSON, entries_with_designed_flips
from eval_helpers import OTHER_SETTINGS, SETTINGS, START, at, full_run
from pyapp.auditlog.entries import plan_entry
from pyapp.auditlog.format import PLAN_KEYS
from pyapp.auditlog.rules import parse_rule, rule_verdict
from pyapp.auditlog.validation import validate_entry
from pyapp.cli.main import main
from pyapp.evaluation.configurations import configuration_for, configuration_of, group_runs
from pyapp.evaluation.export import export_json, parse_import
from pyapp.evaluation.plans import plans_in
from pyapp.evaluation.rebuild import rebuild
from pyapp.presentation.repeat_report import configuration_compare_report

X = configuration_for(SETTINGS).id
Y = configuration_for(OTHER_SETTINGS).id
BEFORE = at(-3600)
AFTER = at(86_400)


def test_a_configuration_is_known_from_settings_before_any_run():
    run = rebuild(full_run("a", settings=SETTINGS)).run("a")
    assert configuration_for(SETTINGS) == configuration_of(run)
    assert X != Y


def test_plan_entry_is_valid_and_keeps_the_rule_in_one_spelling():
    entry = plan_entry("p1", BEFORE, X, Y, "lower-bound-below:+0", "  a note  ")
    assert validate_entry(entry) == []
    assert (entry["type"], entry["metric"], entry["rule"], entry["note"]) == ("plan", "grounded_share",
                                                                               "lower-bound-below:+0", "a note")


@pytest.mark.parametrize(("x", "y", "rule", "fragment"), [
    (X, Y, "always-pass", "unknown rule"),
    (X, Y, "difference-below:lots", "unknown rule"),
    (X, X, "no-new-fail", "another configuration"),
    ("claude", Y, "no-new-fail", "configuration id"),
    (X, Y.upper(), "no-new-fail", "configuration id"),
])
def test_a_bad_plan_is_refused_with_the_reason(x, y, rule, fragment):
    with pytest.raises(ValueError, match=fragment):
        plan_entry("p1", BEFORE, x, y, rule)


PLAN = plan_entry("p1", BEFORE, X, Y, "no-new-fail")


@settings(max_examples=200, deadline=None)
@given(field=st.sampled_from(PLAN_KEYS), value=JSON)
def test_validation_never_raises_on_a_mutated_plan(field, value):
    entry = {**PLAN, field: value}
    problems = validate_entry(entry)
    assert isinstance(problems, list) and all(isinstance(p, str) for p in problems)
    if field in ("x", "y", "rule", "metric") and value != PLAN[field]:
        assert problems, f"{field}={value!r} passed"


def test_plans_travel_with_an_export_of_every_run_and_leave_the_runs_alone():
    entries = entries_with_designed_flips() + [PLAN]
    assert plans_in(parse_import(export_json(entries))) == [PLAN]
    assert plans_in(parse_import(export_json(entries, "x1"))) == []
    assert [r.run_id for r in rebuild(entries)] == [r.run_id for r in rebuild(entries_with_designed_flips())]


@pytest.mark.parametrize("rule", ["no-new-fail", "difference-below:+20", "lower-bound-below:-30"])
def test_plan_status_says_when_it_was_registered_and_applies_its_rule(rule):
    entries = entries_with_designed_flips()
    grouped = group_runs(list(rebuild(entries)))
    early, late = plan_entry("early", BEFORE, X, Y, rule), plan_entry("late", AFTER, X, Y, rule)
    backwards = plan_entry("backwards", BEFORE, Y, X, rule)
    report = configuration_compare_report(grouped, X, Y, [early, late, backwards])
    assert [p["id"] for p in report["plans"]] == ["early", "late"], "a plan for Y against X is another plan"
    first_of_y = min(run.started for run in grouped.find(Y).runs)
    assert first_of_y == (START + timedelta(seconds=300)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    shown_early, shown_late = report["plans"]
    assert shown_early["registered_before"] and not shown_late["registered_before"]
    assert shown_early["timing"].endswith("before the first call of Y's 2 runs (2026-12-02 10:05:00 UTC).")
    assert "AFTER the first call of Y's runs" in shown_late["timing"]

    expected = rule_verdict(parse_rule(rule), report["comparison"])
    assert shown_early["verdict"] == shown_late["verdict"] == expected


def test_a_plan_between_the_baselines_runs_and_the_new_ones_is_registered_before():
    grouped = group_runs(list(rebuild(entries_with_designed_flips())))
    between = plan_entry("between", at(250), X, Y, "no-new-fail")  # after X's three runs, before Y's first
    (status,) = configuration_compare_report(grouped, X, Y, [between])["plans"]
    assert status["registered_before"]
    assert status["timing"].endswith("3 runs of X were already in the log, as a baseline's are.")


def test_the_designed_runs_get_the_verdicts_a_person_would_give():
    grouped = group_runs(list(rebuild(entries_with_designed_flips())))
    figures = configuration_compare_report(grouped, X, Y)["comparison"]
    # Y (two runs) grounds C16-C18 where X (three runs) flips on C16 and C17: better, never worse.
    assert figures["worse"] == []
    assert not rule_verdict(parse_rule("no-new-fail"), figures)["rejects"]
    assert rule_verdict(parse_rule("difference-below:+20"), figures)["rejects"]


def test_compare_on_the_command_line_shows_the_plans(tmp_path, capsys):
    path = tmp_path / "log.json"
    late = plan_entry("late", AFTER, X, Y, "difference-below:+20", "hoped for twenty points")
    path.write_text(export_json(entries_with_designed_flips() + [PLAN, late]), encoding="utf-8")
    assert main(["compare", str(path), "--config", X, "--config", Y, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(p["id"], p["registered_before"], p["verdict"]["rejects"]) for p in report["plans"]] == [
        ("p1", True, False), ("late", False, True)]
    assert main(["compare", str(path), "--config", X, "--config", Y]) == 0
    text = capsys.readouterr().out
    for plan in report["plans"]:
        assert f"plan {plan['id']}: {plan['metric_text']} {plan['timing']} {plan['verdict']['text']}" in text
