"""The report numbers: checked against pyapp.evaluation.stats and scipy on hand-made runs (DR-006)."""

from __future__ import annotations

import json

import pytest
from scipy.stats import binomtest

from eval_helpers import call, full_run
from pyapp.core.formatting import fmt_fixed, fmt_ms, fmt_p, fmt_percent, fmt_points, fmt_whole
from pyapp.evaluation.evalset import FIXED_SETS
from pyapp.evaluation.grader import Grader
from pyapp.evaluation.rebuild import rebuild
from pyapp.evaluation.stats import bootstrap_median_ci, mcnemar_exact, newcombe_paired, wilson
from pyapp.explanation.grading import grade_answer
from pyapp.presentation.guidance import small_sample_guidance
from pyapp.presentation.report import format_run_report, run_report, runs_message, runs_overview
from pyapp.presentation.run_comparison import compare_report, format_compare_report

IDS = list(FIXED_SETS.case_ids())


def first(n: int) -> set[str]:
    return set(IDS[:n])


def run_of(entries):
    return rebuild(entries)[0]


def pair(grounded_a: set[str], grounded_b: set[str]):
    built = rebuild(full_run("A", grounded_a) + full_run("B", grounded_b, start=100))
    return built.run("A"), built.run("B")


def test_headline_is_wilson_on_graded_answers_with_model_failures_in_the_denominator():
    entries = full_run("r", first(14), failing={IDS[15]: "model_failure", IDS[16]: "model_failure"})
    report = run_report(run_of(entries))
    assert (report["grounded"], report["graded"]) == (14, 20)
    assert report["model_failures"] == 2 and report["not_grounded"] == 4
    assert report["grounded_share"] == 14 / 20
    assert report["grounded_interval"] == list(wilson(14, 20))
    scipy_ci = binomtest(14, 20).proportion_ci(0.95, method="wilson")
    assert report["grounded_interval"] == pytest.approx([scipy_ci.low, scipy_ci.high], abs=1e-12)
    assert report["display"]["grounded"] == "14/20 (70.0%, 95% CI 48.1% to 85.5%)"


def test_infrastructure_failures_and_stale_inputs_are_in_no_denominator():
    entries = full_run("r", first(12))[:15]  # C01-C15 answered, 12 of them grounded
    entries += [call("r", c, outcome="infrastructure_failure", error="overloaded", status=529, time=40 + i,
                     answer_ms=5000.0) for i, c in enumerate(IDS[15:18])]
    entries += [call("r", c, prompt_hash="f" * 64, time=50 + i, answer_ms=9000.0)
                for i, c in enumerate(IDS[18:])]
    report = run_report(run_of(entries))
    assert (report["grounded"], report["graded"]) == (12, 15)
    assert report["grounded_interval"] == list(wilson(12, 15))
    assert [n["case_id"] for n in report["infrastructure_failures"]] == IDS[15:18]
    assert [n["case_id"] for n in report["stale"]] == IDS[18:]
    assert report["to_ask"] == IDS[15:]
    # their latencies are not in the median either
    assert report["latency"]["n"] == 15 and max(report["latencies"]) < 5000


def test_median_latency_is_the_seeded_bootstrap_of_counted_answers():
    latencies = [float(500 + 37 * i % 900) for i in range(20)]
    entries = full_run("r", latencies=latencies)
    entries.append(call("r", "C01", answer_ms=99999.0, time=100))  # a repeat: not counted
    report = run_report(run_of(entries))
    median, low, high = bootstrap_median_ci(latencies, 2000, 20003)
    assert report["latency"] == {"n": 20, "median": median, "low": low, "high": high, "resamples": 2000,
                                 "seed": 20003}
    assert report["latencies"] == sorted(latencies)
    assert report["display"]["latency"] == f"median {fmt_ms(median)} (95% CI {fmt_ms(low)} to {fmt_ms(high)})"


def test_per_kind_counts_only():
    report = run_report(run_of(full_run("r", first(13))))
    kinds = report["per_kind"]
    assert [k["grounded"] for k in kinds] == [5, 5, 3, 0]
    assert [k["not_grounded"] for k in kinds] == [0, 0, 2, 5]
    assert all(set(k) == {"kind", "label", "cases", "grounded", "not_grounded", "model_failure", "not_graded"}
               for k in kinds)


def test_case_rows_carry_every_check_and_tokens():
    entries = full_run("r", first(19), failing={"C20": "model_failure"})
    report = run_report(run_of(entries))
    rows = {r["case_id"]: r for r in report["cases"]}
    assert [c["name"] for c in rows["C01"]["checks"]] == [
        "result", "distance", "nodes_visited", "subtrees_pruned", "cited_steps"]
    assert all(c["passed"] for c in rows["C01"]["checks"])
    assert rows["C20"]["checks"] == [] and rows["C20"]["failure"] == "truncated"
    assert report["tokens"] == {"input": 100000, "output": 12000, "calls": 20}


def test_empty_run_has_no_share_and_no_latency():
    entries = [call("r", "C01", outcome="infrastructure_failure", error="auth", status=401)]
    report = run_report(run_of(entries))
    assert report["graded"] == 0 and report["grounded_share"] is None and report["grounded_interval"] is None
    assert report["latency"] is None and report["display"]["grounded"] == "0/0"
    json.dumps(report)


@pytest.mark.parametrize("a_set, b_set, table, expected", [
    (first(18), first(18), (18, 0, 0, 2), (0.0, -0.157, 0.157)),
    (first(17), first(18), (17, 0, 1, 2), (0.05, -0.117, 0.230)),
], ids=["same-18-of-20", "one-disagreement"])
def test_compare_reproduces_the_corrected_reference_figures(a_set, b_set, table, expected):
    # The difference is the second run's share minus the first's: Newcombe's (b - c) / n with the runs' roles swapped.
    report = compare_report(*pair(a_set, b_set))
    a, b, c, d = table
    assert tuple(report["table"].values()) == table
    assert report["difference"] == pytest.approx(expected[0], abs=1e-12)
    assert report["interval"] == pytest.approx(list(expected[1:]), abs=5e-4)
    assert report["interval"] == list(newcombe_paired(a, c, b, d)[1:])
    assert report["mcnemar_p"] == mcnemar_exact(b, c)


def test_compare_rows_and_verdicts():
    a_set = first(10) | {"C15"}
    b_set = first(8) | {"C12", "C15"}
    report = compare_report(*pair(a_set, b_set))
    verdicts = {r["case_id"]: r["verdict"] for r in report["cases"]}
    assert verdicts["C09"] == verdicts["C10"] == "worse"  # the first grounded them, the second did not
    assert verdicts["C12"] == "better"
    assert verdicts["C15"] == verdicts["C20"] == "same"
    assert (report["better"], report["worse"], report["same"]) == (1, 2, 17)
    assert report["table"] == {"a": 9, "b": 2, "c": 1, "d": 8}


def test_unpaired_cases_are_left_out():
    built = rebuild(full_run("A") + full_run("B", start=100)[:18])
    report = compare_report(built.run("A"), built.run("B"))
    assert report["paired"] == 18 and report["not_paired"] == ["C19", "C20"]


def test_six_one_way_disagreements_reach_significance():
    report = compare_report(*pair(first(20), first(14)))
    assert report["mcnemar_p"] == 0.03125 and report["note"] is None
    assert "unlikely if the two were equally good" in report["summary"]
    assert report["display"]["mcnemar"] == "exact McNemar p = 0.03125 (0 against 6)"
    assert report["difference"] == pytest.approx(-0.3) and report["interval"][1] < 0


def test_interval_and_test_disagreement_is_explained():
    # a=12, b=5, c=0, d=3: the interval leaves out zero while p = 0.0625
    report = compare_report(*pair(first(17), first(12)))
    assert report["table"] == {"a": 12, "b": 5, "c": 0, "d": 3}
    assert report["interval"][1] < 0 and report["mcnemar_p"] == 0.0625  # the second run grounded fewer
    assert report["note"] and "leaves out zero" in report["note"]
    assert "leaves out zero" in report["summary"] and "either run" not in report["summary"]


def test_agreeing_runs_say_what_they_cannot_show():
    report = compare_report(*pair(first(18), first(18)))
    assert "agree on all 20" in report["summary"] and "15.7 points" in report["summary"]


def test_guidance_before_any_run():
    g = small_sample_guidance()
    assert g["smallest_one_way"] == 6 and g["smallest_one_way_points"] == 0.3
    assert g["smallest_one_way_p"] == 0.03125 and g["one_fewer_p"] == 0.0625
    assert round(g["all_grounded_wilson_low"], 4) == 0.8389
    assert "83.9%" in g["text"] and "30.0 points" in g["text"]


def test_formatting_is_shared_and_stable():
    assert fmt_percent(0.8388748) == "83.9%"
    assert fmt_points(0.05) == "+5.0" and fmt_points(-0.157) == "-15.7" and fmt_points(-1e-17) == "+0.0"
    assert fmt_p(0.0625) == "0.0625" and fmt_p(1.0) == "1"
    assert fmt_ms(1234.5) == "1,235 ms" and fmt_ms(None) == "n/a"


@pytest.mark.parametrize(("text", "expected"), [
    (fmt_percent(1 / 16), "6.3%"),  # 6.25: Python's format() gives "6.2%" (half to even on the binary value)
    (fmt_percent(0.145), "14.5%"),  # 0.145 * 100 is 14.499999999999998 in binary
    (fmt_percent(0.00125), "0.1%"),
    (fmt_points(-1 / 16), "-6.3"),  # half away from zero on both sides
    (fmt_points(1 / 16), "+6.3"),
    (fmt_points(-0.0004), "+0.0"),  # never "-0.0"
    (fmt_ms(0.5), "1 ms"),
    (fmt_ms(2.5), "3 ms"),  # format(2.5, ".0f") is "2"
    (fmt_ms(131.49999999999818), "131 ms"),
    (fmt_whole(1234567.5), "1,234,568"),
    (fmt_p(0.00012345), "0.0001235"),  # the fifth significant digit is a tie: up
    (fmt_p(2 * 0.5 ** 20), "1.907e-06"),
    (fmt_p(0.99995), "1"),
    (fmt_fixed(131.49999999999818, 1), "131.5"),
], ids=["one-of-16", "binary-below-tie", "small-share", "points-negative-tie", "points-positive-tie",
        "points-no-negative-zero", "ms-half", "ms-two-and-a-half", "ms-float-noise", "whole-separators",
        "p-tie", "p-tiny", "p-rounds-to-one", "fixed-float-noise"])
def test_one_rounding_rule_half_up_from_the_printed_decimal(text, expected):
    assert text == expected


def test_text_output_uses_the_display_strings():
    a, b = pair(first(18), first(17))
    run_text = format_run_report(run_report(a))
    assert run_report(a)["display"]["grounded"] in run_text
    compare = compare_report(a, b)
    text = format_compare_report(compare)
    assert compare["display"]["difference"] in text and compare["summary"] in text
    assert compare["display"]["difference"] == "-5.0 points, second minus first (95% CI -23.0 to +11.7)"
    assert "(-23.0 to +11.7 points)" in compare["summary"]  # one interval, one sign, everywhere


def test_overview_matches_the_full_reports():
    built = rebuild(full_run("A", first(18)) + full_run("B", first(4), start=100)[:12])
    rows = runs_overview(built)
    assert [r["run_id"] for r in rows] == ["A", "B"]
    for row, run in zip(rows, built, strict=True):
        full = run_report(run)
        for key in ("graded", "grounded", "grounded_share", "grounded_interval"):
            assert row[key] == full[key]
        for key in ("grounded", "grounded_count", "grounded_interval", "median_latency", "tokens_in_out"):
            assert row["display"][key] == full["display"][key]
        assert row["to_ask"] == len(full["to_ask"])
    assert rows[1]["to_ask"] == 8 and not rows[1]["complete"]


def test_overview_rows_past_the_rated_ones_grade_nothing_and_say_the_same_of_the_run():
    graded = []

    def grade(answer, stop, facts):
        graded.append(answer)
        return grade_answer(answer, stop, facts)

    built = rebuild(full_run("A", first(18)) + full_run("B", first(4), start=100)[:12], grader=Grader(grade))
    rows = runs_overview(built, rated=1)
    assert len(graded) == 20  # run A's answers alone
    full = runs_overview(built)
    assert rows[0] == full[0]
    unrated = {key: None for key in ("grounded", "grounded_share", "grounded_interval")}
    assert rows[1] == {**full[1], **unrated, "display": {**full[1]["display"], **{
        key: None for key in ("grounded", "grounded_count", "grounded_interval")}}}


@pytest.mark.parametrize(("counts", "sentence"), [
    ((1, 20, 0), "1 run rebuilt from 20 logged calls."),
    ((0, 1, 0), "0 runs rebuilt from 1 logged call."),
    ((500, 10000, 1), "500 runs rebuilt from 10,000 logged calls; "
                      "1 unreadable audit entry was skipped (left in place)."),
    ((3, 60, 1234), "3 runs rebuilt from 60 logged calls; "
                    "1,234 unreadable audit entries were skipped (left in place)."),
])
def test_the_runs_list_sentence_counts_in_words_and_separates_thousands(counts, sentence):
    assert runs_message(*counts) == sentence
