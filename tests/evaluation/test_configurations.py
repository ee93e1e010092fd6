"""Runs grouped by configuration, and ``report --configurations`` / ``compare --config`` (DR-008)."""

from __future__ import annotations

import json

import pytest

from designed_logs import IDS, entries_with_designed_flips
from eval_helpers import OTHER_SETTINGS, SETTINGS, full_run
from pyapp.cli.main import main
from pyapp.evaluation.configurations import base_url_host, configuration_of, group_runs
from pyapp.evaluation.export import export_json
from pyapp.evaluation.rebuild import rebuild
from pyapp.presentation.repeat_report import (
    configuration_compare_report,
    configurations_report,
    format_configuration_compare_report,
    format_configurations_report,
)
from pyapp.presentation.run_comparison import compare_report

LOCAL = {"provider": "openai-compatible", "model": "local-1", "max_tokens": 4000, "temperature": 0.0,
         "base_url": "http://127.0.0.1:8080/v1"}


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    entries = entries_with_designed_flips()
    path = tmp_path_factory.mktemp("log") / "log.json"
    path.write_text(export_json(entries), encoding="utf-8")
    return path, rebuild(entries)


def test_runs_group_by_configuration_and_mixed_runs_stay_apart(log):
    _, built = log
    grouped = group_runs(list(built))
    assert [[r.run_id for r in g.runs] for g in grouped.groups] == [["x1", "x2", "x3"], ["y1", "y2"]]
    assert grouped.apart == (("mixed", "its calls used different settings"),)
    assert grouped.find("x2") is grouped.groups[0]
    assert grouped.find(grouped.groups[1].configuration.id) is grouped.groups[1]
    with pytest.raises(ValueError, match="belongs to no configuration"):
        grouped.find("mixed")
    with pytest.raises(ValueError, match="no configuration or run 'zz'"):
        grouped.find("zz")


def test_every_setting_of_the_key_separates_configurations():
    base = rebuild(full_run("a", settings=SETTINGS)).run("a")
    same = rebuild(full_run("b", settings={**SETTINGS, "temperature": 0})).run("b")
    assert configuration_of(base) == configuration_of(same)  # 0 and 0.0 are one setting
    for change in ({"temperature": 0.5}, {"max_tokens": 3000}, {"model": "claude-test-2"}, {"temperature": None}):
        other = rebuild(full_run("c", settings={**SETTINGS, **change})).run("c")
        assert configuration_of(other) != configuration_of(base), change
    here = rebuild(full_run("d", settings=LOCAL)).run("d")
    there = rebuild(full_run("e", settings={**LOCAL, "base_url": "http://127.0.0.1:9090/v1"})).run("e")
    assert configuration_of(here).base_url_host == "127.0.0.1:8080"
    assert configuration_of(here) != configuration_of(there)


@pytest.mark.parametrize(("url", "host"), [
    (None, None), ("http://LOCALHOST:8080/v1", "localhost:8080"), ("https://llm.example.org/v1", "llm.example.org"),
])
def test_base_url_host(url, host):
    assert base_url_host(url) == host


def test_configurations_report_figures_for_the_designed_flips(log):
    _, built = log
    x, y = configurations_report(list(built))["configurations"]
    assert x["figures"]["flipping"] == ["C16", "C17"] and y["figures"]["flipping"] == ["C18", "C19"]
    assert x["display"]["pass_k"].startswith("15/20 (75.0%)")
    # X: two cases grounded in 2 of 3 or 1 of 3 runs, s² = 1/3 each; sd = √(4/3)/20.
    assert x["figures"]["floor"]["sd_single"] == pytest.approx((4 / 3) ** 0.5 / 20, abs=1e-15)
    assert "±11.3 points (sd 5.8 points); means of 3 runs: ±6.5 points" in x["display"]["floor"]


def test_report_configurations_json_and_text_equal_the_library(log, capsys):
    path, built = log
    expected = configurations_report(list(built))
    assert main(["report", str(path), "--configurations", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(expected))
    assert main(["report", str(path), "--configurations"]) == 0
    assert capsys.readouterr().out == format_configurations_report(expected) + "\n"
    assert main(["report", str(path)]) == 0
    assert capsys.readouterr().out.endswith("runs by configuration:\n" + format_configurations_report(expected) + "\n")


def test_compare_configurations_on_the_command_line(log, capsys):
    path, built = log
    expected = configuration_compare_report(group_runs(list(built)), "x1", "y2")
    assert main(["compare", str(path), "--config", "x1", "--config", "y2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(expected))
    assert main(["compare", str(path), "--config", "x1", "--config", "y2"]) == 0
    text = capsys.readouterr().out
    assert text == format_configuration_compare_report(expected) + "\n"
    c = expected["comparison"]
    assert c["better"] == ["C16", "C17", "C18", "C19"] and c["worse"] == []
    assert "exact sign test p = 0.125 (4 better against 0 worse)" in text
    # +10.0 points against floors of ±6.5 (X, 3 runs) and ±9.8 (Y, 2 runs): outside both.
    assert expected["inside_floor"] == {"x": False, "y": False}
    assert "The difference is outside X's noise floor for means of 3 runs (±6.5 points)." in text
    # Four cases moved, all one way: the bootstrap interval leaves out zero, the exact test does not agree.
    low, high = c["interval"]
    assert low > 0 and c["sign_p"] > 0.05
    assert expected["note"] and "p = 0.125" in expected["note"] and expected["note"] in text


def test_single_run_configurations_keep_the_run_comparison(capsys, tmp_path):
    entries = full_run("a", set(IDS[:18])) + full_run("b", set(IDS[:15]), start=100, settings=OTHER_SETTINGS)
    built = rebuild(entries)
    report = configuration_compare_report(group_runs(list(built)), "a", "b")
    runs = compare_report(built.run("a"), built.run("b"))
    assert report["runs"] == runs
    # One direction everywhere: Y minus X is the run comparison's second minus first.
    assert report["comparison"]["difference"] == runs["difference"] == pytest.approx(-0.15)
    assert report["comparison"]["interval"] == pytest.approx(runs["interval"], abs=1e-15)
    text = format_configuration_compare_report(report)
    low, high = runs["interval"]
    assert f"{low * 100:+.1f} to {high * 100:+.1f} points" in text
    assert f"{-high * 100:+.1f} to {-low * 100:+.1f}" not in text  # never the same interval with both signs
    assert report["comparison"]["sign_p"] == runs["mcnemar_p"]
    assert report["inside_floor"] == {"x": None, "y": None}
    assert "X has one run, so its noise floor is unknown" in format_configuration_compare_report(report)


@pytest.mark.parametrize(("args", "fragment"), [
    (["--config", "x1"], "needs --config exactly twice"),
    (["--config", "x1", "--config", "y1", "--run", "x1"], "not both"),
])
def test_compare_config_usage_errors(log, capsys, args, fragment):
    path, _ = log
    with pytest.raises(SystemExit) as stop:
        main(["compare", str(path), *args])
    assert stop.value.code == 2 and fragment in capsys.readouterr().err


@pytest.mark.parametrize(("names", "fragment"), [
    (["x1", "x3"], "same configuration"), (["x1", "mixed"], "belongs to no configuration"),
])
def test_compare_config_bad_names_are_one_clear_line(log, capsys, names, fragment):
    path, _ = log
    assert main(["compare", str(path), "--config", names[0], "--config", names[1]]) == 1
    err = capsys.readouterr().err
    assert fragment in err and "Traceback" not in err


@pytest.mark.parametrize(("interval", "p", "says"), [
    ((0.01, 0.2), 0.125, "leaves out zero"), ((-0.01, 0.2), 0.01, "still includes zero"),
    ((0.01, 0.2), 0.01, None), ((-0.1, 0.2), 0.5, None),
], ids=["interval-only", "test-only", "both-differ", "neither"])
def test_disagreement_note_only_when_interval_and_test_disagree(interval, p, says):
    from pyapp.presentation.repeat_report import _disagreement_note

    figures = {"method": "bootstrap", "interval": list(interval), "sign_p": p, "better": ["C01"], "worse": []}
    note = _disagreement_note(figures)
    assert (note is None) if says is None else (says in note)
