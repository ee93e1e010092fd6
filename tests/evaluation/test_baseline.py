"""Baseline files and ``diff``: the format, its checks, the paired figures and the reject rules (DR-008)."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from scipy.stats import binomtest

from eval_helpers import OTHER_SETTINGS, full_run
from live_call import run_async
from pyapp import browser
from pyapp.auditlog.rules import parse_rule, rule_verdict
from pyapp.cli.exit_status import REJECTED
from pyapp.evaluation.baseline import (
    CASE_KEYS,
    HEADER_FIELDS,
    HEADER_KEYS,
    baseline_of,
    baseline_table,
    baseline_text,
    parse_baseline,
)
from pyapp.evaluation.baseline_checks import edits_of
from pyapp.evaluation.configurations import group_runs
from pyapp.evaluation.evalset import FIXED_SETS
from pyapp.evaluation.export import export_json
from pyapp.evaluation.rebuild import rebuild
from pyapp.evaluation.repeats import verdict_table
from pyapp.presentation.baseline_diff import diff_report, format_diff_report
from pyapp.presentation.repeat_report import configuration_compare_report

ROOT = Path(__file__).resolve().parents[2]
IDS = list(FIXED_SETS.case_ids())
# The baseline run grounds C01-C16; the new run drops C02 and C03 and gains C17-C20: 4 better, 2 worse.
BASE_GROUNDED = set(IDS[:16])
NEW_GROUNDED = (BASE_GROUNDED - {"C02", "C03"}) | set(IDS[16:])


@pytest.fixture(scope="module")
def log() -> list[dict]:
    entries = full_run("run-base", BASE_GROUNDED, failing={"C17": "model_failure"})
    entries += full_run("run-new", NEW_GROUNDED, start=100, failing={"C03": "cited_steps"})
    # Two more configurations with repeats: three runs of one, two of another, with flips.
    entries += full_run("run-x1", set(IDS[:15]), start=200, settings=OTHER_SETTINGS)
    entries += full_run("run-x2", set(IDS[:14]) | {"C16"}, start=300, settings=OTHER_SETTINGS)
    entries += full_run("run-x3", set(IDS[:15]), start=400, settings=OTHER_SETTINGS)
    return entries


def test_the_file_has_a_field_per_line_then_a_case_per_line_in_a_fixed_key_order(log):
    text = baseline_text(baseline_of([rebuild(log).run("run-base")]))
    lines = text.splitlines()
    assert lines[0] == '{"format": "kd-tree-explorer-baseline", "format_version": 3,'
    assert [line.split(":")[0].strip('"') for line in lines[1:18]] == list(HEADER_KEYS)
    assert lines[18] == '"cases": ['
    case_lines = lines[19:39]
    assert [json.loads(line.rstrip(","))["case_id"] for line in case_lines] == IDS
    assert all(list(json.loads(line.rstrip(","))) == list(CASE_KEYS) for line in case_lines)
    assert lines[39:] == ["]}"]
    head = json.loads(text)
    assert head["case_digests"] == [hashlib.sha256(line.rstrip(",").encode()).hexdigest()[:16] for line in case_lines]
    assert head["header_digests"] == [hashlib.sha256(line.rstrip(",").encode()).hexdigest()[:16]
                                      for line in lines[1:15]]
    # The whole content, canonical: sorted keys, no spaces, the digests left out.
    content = {k: v for k, v in head.items() if k not in ("header_digests", "case_digests", "content_sha256")}
    assert list(content) == ["format", "format_version", *HEADER_FIELDS, "cases"]
    assert head["content_sha256"] == hashlib.sha256(
        json.dumps(content, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    assert json.loads(case_lines[16].rstrip(",")) == {
        "case_id": "C17", "outcomes": ["model_failure"], "grounded": 0, "counted": 1, "failing_checks": [],
        "model_failures": ["truncated"]}
    assert json.loads(case_lines[4].rstrip(","))["failing_checks"] == []
    assert json.loads(case_lines[16 + 2].rstrip(","))["failing_checks"] == ["distance"]  # C19, full_run's default
    assert (head["provider"], head["model_requested"], head["runs"], head["date"]) == (
        "anthropic", "claude-test-1", ["run-base"], "2026-12-02")
    assert parse_baseline(text) == head
    assert baseline_text(parse_baseline(text)) == text


def test_the_baselines_verdict_table_is_the_runs_own(log):
    runs = [rebuild(log).run(r) for r in ("run-x1", "run-x2", "run-x3")]
    assert baseline_table(parse_baseline(baseline_text(baseline_of(runs)))) == verdict_table(runs)


def test_a_baseline_is_runs_of_one_configuration(log):
    built = rebuild(log)
    with pytest.raises(ValueError, match="the runs are of 2 configurations"):
        baseline_of([built.run("run-base"), built.run("run-x1")])
    with pytest.raises(ValueError, match="must be different runs; one is named twice"):
        baseline_of([built.run("run-x1"), built.run("run-x1")])


def edited(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize("change, message", [
    (lambda t: t[:-40], "not valid JSON"),
    (lambda t: edited(t, '"kd-tree-explorer-baseline"', '"other"'), "This is not a baseline file"),
    (lambda t: edited(t, '"format_version": 3', '"format_version": 4'), "format_version is not one this site reads"),
    (lambda t: edited(t, '"case_digests": ["', '"case_digests": ["x'), "20 digests of 16 hex digits"),
    (lambda t: edited(t, '"header_digests": ["', '"header_digests": [1, "'), "short text"),
    (lambda t: edited(t, '"header_digests": ["', '"header_digests": ["0", "'), "14 digests of 16 hex digits"),
    (lambda t: edited(t, '"content_sha256": "', '"content_sha256": "x'), "content_sha256 must be 64 hex digits"),
    (lambda t: edited(t, '"case_digests": [', '"case_digests": null, "x": ['), "fields are not"),
    (lambda t: edited(t, '"site_version": "0.1.0"', '"site_version": "\\udc00"'), "lone surrogate"),
    (lambda t: edited(t, '"explain-eval-v2"', '"explain-eval-v1"'), "Make a new baseline"),
    (lambda t: edited(t, '"grounded": 1, "counted"', '"grounded": 0, "counted"'), "its outcomes give 1 of 1"),
    (lambda t: edited(t, '["grounded"]', '["great"]'), "needs one outcome per run (1)"),
    (lambda t: edited(t, '"site_version": "0.1.0"', '"site_version": "' + "v" * 5000 + '"'), "short text"),
    (lambda t: edited(t, '"C20"', '"C21"'), "one each, in order"),
    (lambda t: edited(t, '["run-base"]', '["run-base", "run-base"]'), "names run run-base twice"),
    (lambda t: "\ufeff\ud800".encode("utf-8", "surrogatepass"), "not UTF-8"),
], ids=["cut", "not-a-baseline", "newer-format", "bad-digest", "header-digest-not-text", "header-digests-short",
        "bad-content-digest", "no-digests", "lone-surrogate",
        "other-set", "inconsistent", "unknown-outcome", "huge-value",
        "other-cases", "run-twice", "not-utf8"])
def test_a_bad_baseline_is_refused_in_words(log, change, message):
    text = baseline_text(baseline_of([rebuild(log).run("run-base")]))
    with pytest.raises(ValueError, match=re.escape(message)) as caught:
        parse_baseline(change(text))
    assert len(str(caught.value)) < 300


def test_single_runs_diff_per_case_with_newcombe_and_mcnemar(log):
    built = rebuild(log)
    baseline = parse_baseline(baseline_text(baseline_of([built.run("run-base")])))
    report = diff_report(baseline, [built.run("run-new")], [parse_rule("no-new-fail")])
    verdicts = {c["case_id"]: c["verdict"] for c in report["cases"]}
    assert [c for c, v in verdicts.items() if v == "NEW FAIL"] == ["C02", "C03"]
    assert [c for c, v in verdicts.items() if v == "NEW PASS"] == ["C17", "C18", "C19", "C20"]
    c03 = next(c for c in report["cases"] if c["case_id"] == "C03")
    assert (c03["baseline"], c03["now"], c03["failing_checks"]) == (["grounded"], ["not_grounded"], ["cited_steps"])
    figures = report["comparison"]
    assert figures["method"] == "newcombe" and figures["difference"] == pytest.approx((4 - 2) / 20)
    assert figures["sign_p"] == pytest.approx(binomtest(2, 6, 0.5).pvalue)
    assert report["rules"] == [{"rule": "no-new-fail", "rejects": True,
                                "text": "rule no-new-fail REJECTS: 2 cases went from grounded to not grounded "
                                        "(C02, C03)."}]
    assert report["rejected"] and report["changed"] == []
    assert report["display"]["difference"].startswith("+10.0 points, now minus the baseline (95% CI ")


def test_repeated_runs_diff_with_the_figures_of_compare_config(log):
    built = rebuild(log)
    x_runs = [built.run("run-base")]
    y_runs = [built.run(r) for r in ("run-x1", "run-x2", "run-x3")]
    baseline = parse_baseline(baseline_text(baseline_of(x_runs)))
    report = diff_report(baseline, y_runs, [parse_rule("difference-below:-10"), parse_rule("lower-bound-below:0")])
    compared = configuration_compare_report(group_runs(x_runs + y_runs), "run-base", "run-x1")
    assert report["comparison"] == compared["comparison"]
    # Y's shares: C01-C14 3/3, C15 2/3, C16 1/3, the rest 0; X grounds C01-C16. Mean d = (-1/3 - 2/3)/20.
    assert report["comparison"]["difference"] == pytest.approx(-1 / 20)
    assert [c["case_id"] for c in report["cases"] if c["verdict"] == "NEW FAIL"] == ["C15", "C16"]
    assert [c["now"] for c in report["cases"] if c["case_id"] == "C15"] == [
        ["grounded", "not_grounded", "grounded"]]
    first, second = report["rules"]
    assert not first["rejects"] and first["text"] == (
        "rule difference-below:-10 passes: the difference is -5.0 points, not below -10.")
    assert second["rejects"] and second["text"].startswith(
        "rule lower-bound-below:+0 REJECTS: the interval's lower bound is -")
    assert [c["field"] for c in report["changed"]][:2] == ["provider", "model_requested"]


@pytest.mark.parametrize("difference, rule, rejects", [
    (0.05, "difference-below:5", False),  # 0.05 * 100 is 5.000000000000001 in floats: still exactly +5
    (0.0499, "difference-below:5", True),
    (0.05, "difference-below:+5.1", True),
    (-0.01, "difference-below:-1", False),
], ids=["at-the-limit", "just-below", "above-the-difference", "negative-limit"])
def test_the_difference_rule_compares_points_exactly(difference, rule, rejects):
    figures = {"paired": 20, "worse": [], "difference": difference, "interval": [difference - 0.1, difference + 0.1],
               "method": "bootstrap"}
    assert rule_verdict(parse_rule(rule), figures)["rejects"] is rejects


def test_rules_reject_when_nothing_could_be_compared_and_unknown_rules_are_refused():
    empty = {"paired": 0, "worse": [], "difference": None, "interval": None, "method": "bootstrap"}
    assert all(rule_verdict(parse_rule(r), empty)["rejects"]
               for r in ("no-new-fail", "difference-below:0", "lower-bound-below:0"))
    for bad in ("fewer-fails", "difference-below", "difference-below:abc", "lower-bound-below:1e9"):
        with pytest.raises(ValueError, match="unknown rule"):
            parse_rule(bad)


def test_a_case_the_runs_did_not_answer_fails_the_gate(log):
    built = rebuild(log)
    partial = [e for e in full_run("run-partial", BASE_GROUNDED, start=500) if e["case_id"] != "C07"]
    baseline = parse_baseline(baseline_text(baseline_of([built.run("run-base")])))
    report = diff_report(baseline, [rebuild(partial).run("run-partial")], [parse_rule("no-new-fail")])
    assert [r["rejects"] for r in report["rules"]] == [False, True]
    assert "no counted answer for 1 case the baseline counted (C07)" in report["rules"][1]["text"]


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pyapp", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def test_the_command_line_writes_the_baseline_and_gates_with_its_exit_status(log, tmp_path):
    export = tmp_path / "log.json"
    export.write_text(export_json(log), encoding="utf-8")
    written = cli("baseline", str(export), "--run", "run-base", "--output", str(tmp_path / "b.json"))
    assert written.returncode == 0, written.stderr
    expected = baseline_text(baseline_of([rebuild(log).run("run-base")]))
    assert (tmp_path / "b.json").read_text(encoding="utf-8") == expected
    assert cli("baseline", str(export), "--run", "run-base").stdout == (tmp_path / "b.json").read_text()

    rejected = cli("diff", str(tmp_path / "b.json"), str(export), "--run", "run-new")
    assert rejected.returncode == REJECTED
    assert "C02  NEW FAIL" in rejected.stdout and "C17  NEW PASS" in rejected.stdout
    assert rejected.stdout.rstrip().endswith("result: REJECTED")
    passed = cli("diff", str(tmp_path / "b.json"), str(export), "--run", "run-new", "--rule", "difference-below:5")
    assert passed.returncode == 0 and "rule difference-below:+5 passes" in passed.stdout
    assert passed.stdout.rstrip().endswith("result: passed")
    as_json = json.loads(cli("diff", str(tmp_path / "b.json"), str(export), "--run", "run-new", "--json").stdout)
    assert as_json["rejected"] is True

    usage = cli("diff", str(tmp_path / "b.json"), str(export), "--run", "run-new", "--rule", "fewer")
    assert usage.returncode == 2 and "unknown rule 'fewer'" in usage.stderr
    (tmp_path / "bad.json").write_text("{}", encoding="utf-8")
    bad = cli("diff", str(tmp_path / "bad.json"), str(export), "--run", "run-new")
    assert bad.returncode == 1 and bad.stderr.startswith("error: This is not a baseline file")
    assert "Traceback" not in bad.stderr

    text = (tmp_path / "b.json").read_text(encoding="utf-8")
    line = next(x for x in text.splitlines() if '"case_id": "C02"' in x)
    (tmp_path / "b.json").write_text(
        text.replace(line, line.replace('["grounded"], "grounded": 1', '["not_grounded"], "grounded": 0')), "utf-8")
    forged = cli("diff", str(tmp_path / "b.json"), str(export), "--run", "run-new")
    assert forged.returncode == 1 and "edited after it was written: case C02's line was edited." in forged.stderr
    accepted = cli("diff", str(tmp_path / "b.json"), str(export), "--run", "run-new", "--accept-edited")
    assert accepted.returncode == REJECTED  # C03 still went from grounded to not grounded
    assert "the edit accepted: case C02's line was edited" in accepted.stdout and "C02  same" in accepted.stdout


def test_the_page_gets_the_same_file_and_the_same_diff(worker, log, tmp_path):
    worker.stored.extend(json.dumps(e) for e in log)

    def handle(name: str, **args) -> dict:
        return json.loads(run_async(browser.handle(name, json.dumps(args))))

    made = handle("baseline_file", run_ids=["run-base"])
    assert made == {"ok": True, "value": baseline_text(baseline_of([rebuild(log).run("run-base")]))}
    export = tmp_path / "log.json"
    export.write_text(export_json(log), encoding="utf-8")
    (tmp_path / "b.json").write_text(made["value"], encoding="utf-8")
    expected = json.loads(cli("diff", str(tmp_path / "b.json"), str(export), "--run", "run-new", "--json").stdout)
    assert handle("baseline_diff", baseline=made["value"], run_ids=["run-new"]) == {"ok": True, "value": expected}
    refused = handle("baseline_diff", baseline="{}", run_ids=["run-new"], rules=["no-new-fail"])
    assert refused == {"ok": False, "error": 'This is not a baseline file: it needs "format": '
                                             '"kd-tree-explorer-baseline".'}
    assert handle("baseline_file", run_ids=[]) == {"ok": False, "error": "Choose at least one run."}


def test_an_edit_by_hand_is_refused_by_name_unless_accepted(log):
    built = rebuild(log)
    text = baseline_text(baseline_of([built.run("run-base")]))
    # C03 grounded -> not grounded, and its count with it: a consistent file, so only the digests tell
    line = next(x for x in text.splitlines() if '"case_id": "C03"' in x)
    forged = text.replace(line, line.replace('["grounded"], "grounded": 1', '["not_grounded"], "grounded": 0'))
    assert forged != text
    baseline = parse_baseline(forged)
    assert [e.text for e in edits_of(baseline)] == ["case C03's line was edited"]
    with pytest.raises(ValueError, match="edited after it was written: case C03's line was edited. Write a new"):
        diff_report(baseline, [built.run("run-new")], [parse_rule("no-new-fail")])
    report = diff_report(baseline, [built.run("run-new")], [parse_rule("no-new-fail")], accept_edited=True)
    assert report["edited"] == [{"part": "case", "name": "C03", "text": "case C03's line was edited"}]
    assert report["edited_text"].endswith("the edit accepted: case C03's line was edited")
    assert report["edited_text"] in format_diff_report(report)
    assert next(c for c in report["cases"] if c["case_id"] == "C03")["baseline"] == ["not_grounded"]


def older(text: str, version: int) -> str:
    """``text`` as a file of format ``version`` wrote it: without the digests that format did not have."""
    dropped = ("header_digests", "content_sha256") + (("case_digests",) if version == 1 else ())
    return "\n".join(x for x in text.splitlines() if not x.startswith(tuple(f'"{k}"' for k in dropped))).replace(
        '"format_version": 3', f'"format_version": {version}') + "\n"


@pytest.mark.parametrize("version, unseen", [
    (1, "format 1, written before the digests, so an edit to any of its lines cannot be seen"),
    (2, "format 2, written before the digests of its header and of its whole content, so an edit to its header "
        "cannot be seen"),
], ids=["format-1", "format-2"])
def test_a_baseline_of_an_older_format_is_read_but_refused_unchecked_unless_accepted(log, version, unseen):
    built = rebuild(log)
    text = baseline_text(baseline_of([built.run("run-base")]))
    old = older(text, version)
    baseline = parse_baseline(old)
    assert baseline_text(baseline) == old and edits_of(baseline) == []
    with pytest.raises(ValueError, match=re.escape(f"The baseline is of {unseen}. Write a new baseline")):
        diff_report(baseline, [built.run("run-new")], [parse_rule("no-new-fail")])
    report = diff_report(baseline, [built.run("run-new")], [parse_rule("no-new-fail")], accept_edited=True)
    assert report["edited"] == [] and report["unchecked"] == f"the baseline is of {unseen}"
    assert report["edited_text"] == f"the baseline is of {unseen}; it was accepted as it is"
    assert report["cases"] == diff_report(parse_baseline(text), [built.run("run-new")],
                                          [parse_rule("no-new-fail")])["cases"]


def test_a_format_2_baseline_still_names_the_cases_its_digests_show_edited(log):
    built = rebuild(log)
    old = older(baseline_text(baseline_of([built.run("run-base")])), 2)
    line = next(x for x in old.splitlines() if '"case_id": "C03"' in x)
    baseline = parse_baseline(old.replace(line, line.replace('"failing_checks": []', '"failing_checks": ["x"]')))
    with pytest.raises(ValueError, match="its header cannot be seen; and case C03's line was edited. Write"):
        diff_report(baseline, [built.run("run-new")], [parse_rule("no-new-fail")])
