"""The larger set explain-eval-x80 end to end on CPython: runs, reports, configurations, the runner (DR-009)."""

from __future__ import annotations

import json
import re

import pytest

from eval_helpers import call, full_run
from fake_transport import KEY, SETTINGS, answer
from live_call import run_async
from pyapp.asking.runner import run_eval
from pyapp.cli.main import main
from pyapp.evaluation.configurations import group_runs
from pyapp.evaluation.evalset import EVAL_SET_VERSION, FIXED_SETS, LARGE_SET_VERSION, evalset_summary, evalset_table
from pyapp.evaluation.export import export_json
from pyapp.evaluation.rebuild import rebuild
from pyapp.evaluation.runs import cases_to_ask
from pyapp.evaluation.stats import wilson
from pyapp.presentation.guidance import set_guidance, wilson_half_width
from pyapp.presentation.report import run_report, runs_overview
from pyapp.presentation.run_comparison import compare_report

X80 = LARGE_SET_VERSION
IDS_80 = [f"C{i:02d}" for i in range(1, 81)]


def test_a_run_of_the_larger_set_counts_all_eighty_cases():
    grounded = frozenset(IDS_80) - {"C07", "C45", "C80"}
    run = rebuild(full_run("run-x", grounded, version=X80)).run("run-x")
    assert run.eval_set_version == X80 and [c.case_id for c in run.cases] == IDS_80
    report = run_report(run)
    assert (report["eval_set_version"], report["graded"], report["grounded"]) == (X80, 80, 77)
    assert report["grounded_interval"] == list(wilson(77, 80))
    assert [k["cases"] for k in report["per_kind"]] == [20, 20, 20, 20]
    assert run.complete and cases_to_ask(run) == []


def test_a_call_of_the_other_set_in_a_run_is_stale_and_never_counted():
    entries = full_run("run-x", version=X80)[:30]
    # asked under explain-eval-v2, which has no C31 (so no prompt of its own either)
    entries.append(call("run-x", "C31", time=40.0, prompt_hash="a" * 64, prompt_version="explain-prompt-1",
                        answer="{}"))
    entries.append(call("run-x", "C05", time=41.0, entry_id="v2-call"))
    run = rebuild(entries).run("run-x")
    assert [(n.case_id, n.reason) for n in run.stale] == [
        ("C31", "asked under eval set explain-eval-v2, but this run is of explain-eval-x80"),
        ("C05", "asked under eval set explain-eval-v2, but this run is of explain-eval-x80")]
    assert len(run.graded) == 30 and cases_to_ask(run) == IDS_80[30:]


def test_a_run_of_the_first_set_is_unchanged():
    run = rebuild(full_run("run-v2")).run("run-v2")
    assert run.eval_set_version == EVAL_SET_VERSION and len(run.cases) == 20


def test_runs_of_different_sets_are_never_compared_or_grouped():
    built = rebuild(full_run("run-v2") + full_run("run-x", version=X80, start=100.0))
    with pytest.raises(ValueError, match="runs of different sets are never compared"):
        compare_report(built.run("run-v2"), built.run("run-x"))
    grouped = group_runs(list(built))
    assert [(g.configuration.eval_set_version, [r.run_id for r in g.runs]) for g in grouped.groups] == [
        (EVAL_SET_VERSION, ["run-v2"]), (X80, ["run-x"])]
    assert [row["eval_set_version"] for row in runs_overview(list(built))] == [EVAL_SET_VERSION, X80]


def test_two_runs_of_the_larger_set_are_compared_on_eighty_pairs():
    built = rebuild(full_run("run-x", version=X80) + full_run("run-y", frozenset(IDS_80[6:]), version=X80,
                                                              start=100.0))
    report = compare_report(built.run("run-x"), built.run("run-y"))
    assert (report["paired"], report["better"], report["worse"]) == (80, 0, 6)
    assert report["eval_set_version"] == X80 and report["guidance"]["pairs"] == 80


def test_the_runner_asks_every_case_of_the_chosen_set_and_a_continued_run_keeps_its_set():
    entries: list[dict] = []
    asked: list[str] = []

    async def append(new):
        entries.extend(new)

    async def read_run(run_id):
        return rebuild(entries).run(run_id)

    async def transport(request):
        asked.append(request)
        return answer(request)

    async def sleep(_):
        return None

    def run(fresh, set_version, cancelled=lambda: False):
        return run_async(run_eval("run-x", fresh, SETTINGS, KEY, read_run=read_run, append=append,
                                  emit=lambda _: None, cancelled=cancelled, transport=transport, sleep=sleep,
                                  clock=lambda: 0.0, set_version=set_version))

    run(True, X80, cancelled=lambda: len(asked) >= 50)
    assert {e["eval_set_version"] for e in entries if e["type"] == "call"} == {X80}
    result = run(False, EVAL_SET_VERSION)  # the run's own set wins
    assert result["stopped"] is None and len(asked) == 80
    built = rebuild(entries).run("run-x")
    assert built.complete and len(built.graded) == 80
    assert [c.outcome for c in built.graded] == ["grounded"] * 80


def test_the_runner_refuses_an_unknown_set():
    async def nothing(run_id):
        raise AssertionError("a fresh run reads no run")

    with pytest.raises(ValueError, match="no evaluation set 'x'"):
        run_async(run_eval("run-z", True, SETTINGS, KEY, read_run=nothing, append=None, emit=None,
                           cancelled=lambda: False, set_version="x"))


def test_evalset_lists_either_set(capsys):
    assert main(["evalset", "--set", X80]) == 0
    out = capsys.readouterr().out
    assert re.findall(r"^(C\d\d) ", out, re.M) == IDS_80
    assert out.startswith(f"{X80}, seed 2026: 80 cases")
    assert main(["evalset", "--set", X80, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data == json.loads(json.dumps({"summary": evalset_summary(version=X80), "cases": evalset_table(X80)}))
    assert main(["evalset"]) == 0 and re.findall(r"^(C\d\d) ", capsys.readouterr().out, re.M) == IDS_80[:20]


def test_the_report_command_reads_runs_of_both_sets(tmp_path, capsys):
    path = tmp_path / "export.json"
    path.write_text(export_json(full_run("run-v2") + full_run("run-x", version=X80, start=100.0)), "utf-8")
    assert main(["report", str(path), "--configurations", "--json"]) == 0
    groups = json.loads(capsys.readouterr().out)
    assert json.dumps(groups).count(X80) >= 1
    assert main(["compare", str(path), "--run", "run-v2", "--run", "run-x"]) == 1
    assert "runs of different sets are never compared" in capsys.readouterr().err
    assert main(["compare", str(path), "--config", "run-v2", "--config", "run-x"]) == 1
    assert "configurations of different sets are never compared" in capsys.readouterr().err


def test_guidance_gives_each_sets_wilson_half_widths_and_smallest_detectable_difference():
    small, large = set_guidance()
    assert (small["eval_set_version"], small["cases"], large["eval_set_version"], large["cases"]) == (
        EVAL_SET_VERSION, 20, X80, 80)
    for row in (small, large):
        n = row["cases"]
        for width in row["half_widths"]:
            low, high = wilson(round(width["rate"] * n), n)
            assert width["half_width"] == pytest.approx((high - low) / 2)
    # The reason for the larger set: below ten points at an 80% rate, which twenty cases are far from.
    assert wilson_half_width(0.8, 80) < 0.10 < wilson_half_width(0.8, 20)
    assert (small["smallest_one_way"], small["smallest_one_way_points"]) == (6, 0.3)
    assert (large["smallest_one_way"], large["smallest_one_way_points"]) == (6, 0.075)
    assert large["text"] == (f"{X80}, 80 cases: the Wilson 95% interval is ±10.7 points at 50%, ±8.7 points at 80%, "
                             "±6.7 points at 90%; the smallest difference two runs can show is 7.5 points "
                             "(6 cases one way, none the other).")
    assert len(FIXED_SETS.case_ids(X80)) == 80


def test_an_export_of_one_run_of_the_larger_set_names_its_set():
    entries = full_run("run-v2") + full_run("run-x", version=X80, start=100.0)
    assert json.loads(export_json(entries, "run-x"))["eval_set_version"] == X80
    assert json.loads(export_json(entries, "run-v2"))["eval_set_version"] == EVAL_SET_VERSION
