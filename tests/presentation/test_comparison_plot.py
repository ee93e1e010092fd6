"""The drawing of a comparison of two configurations: every position pyapp's, the axis wide enough for
the interval and both noise-floor bands (pyapp.presentation.comparison_plot, DR-008)."""

from __future__ import annotations

import pytest

from designed_logs import entries_with_designed_flips
from eval_helpers import OTHER_SETTINGS, full_run
from pyapp.core.formatting import fmt_point_size
from pyapp.evaluation.baseline import baseline_of
from pyapp.evaluation.configurations import group_runs
from pyapp.evaluation.rebuild import rebuild
from pyapp.evaluation.repeats import repeat_figures, verdict_table
from pyapp.presentation.baseline_diff import diff_report
from pyapp.presentation.repeat_report import configuration_compare_report
from pyapp.presentation.run_comparison import compare_report


def compared(entries: list[dict]) -> dict:
    grouped = group_runs(list(rebuild(entries)))
    return configuration_compare_report(grouped, grouped.groups[0].configuration.id,
                                        grouped.groups[1].configuration.id)


def test_the_plot_holds_the_reports_own_difference_interval_and_floors():
    report = compared(entries_with_designed_flips())
    plot = report["plot"]
    assert plot["difference"] == report["comparison"]["difference"]
    assert plot["interval"] == report["comparison"]["interval"]
    floors = [report[side]["figures"]["floor"]["floor_mean"] for side in ("x", "y")]
    assert [band["half_width"] for band in plot["bands"]] == floors
    reach = max(abs(v) for v in [*plot["interval"], plot["difference"], *floors])
    assert plot["low"] == -plot["high"] and reach <= plot["high"] < reach + 0.1 + 1e-9
    assert [tick["at"] for tick in plot["ticks"]] == [plot["low"], plot["low"] / 2, 0.0, plot["high"] / 2, plot["high"]]
    assert plot["difference_text"] == "Y − X: +10.0 points (+1.7 to +19.2)"
    # Y is better on the right: a positive difference is Y's lead.
    assert plot["sides"] == {"left": "← X better", "right": "Y better →"}
    assert report["display"]["difference"].startswith("+10.0 points")


def test_a_configuration_of_one_run_has_no_band_and_no_pairs_no_plot():
    one_each = full_run("a", set()) + full_run("b", start=100.0, settings=OTHER_SETTINGS)
    plot = compared(one_each)["plot"]
    assert [band["half_width"] for band in plot["bands"]] == [None, None]
    assert plot["high"] == 1.0 and plot["difference"] == 1.0  # every case better: the axis reaches its end
    nothing = full_run("a")[:0] + full_run("c", set(), start=0.0)[:5] + full_run("d", start=100.0,
                                                                                    settings=OTHER_SETTINGS)[5:10]
    assert compared(nothing)["plot"] is None


def test_two_runs_are_drawn_against_the_floor_of_one_run_against_another_of_their_configurations():
    entries = entries_with_designed_flips()
    built = rebuild(entries)
    grouped = group_runs(list(built))
    x, y = grouped.groups
    report = compare_report(built.run("x1"), built.run("y2"), grouped)
    plot = report["plot"]
    assert plot["difference"] == report["difference"] and plot["interval"] == report["interval"]
    floors = [repeat_figures(verdict_table(group.runs))["floor"]["floor_single"] for group in (x, y)]
    assert [band["half_width"] for band in plot["bands"]] == floors
    assert [band["label"] for band in plot["bands"]] == [f"{x.configuration.id} floor", f"{y.configuration.id} floor"]
    same = compare_report(built.run("x1"), built.run("x2"), grouped)["plot"]
    assert len(same["bands"]) == 1 and same["label"] == "Second − first"  # one configuration, one band
    assert same["sides"] == {"left": "← first run better", "right": "second run better →"}
    apart = compare_report(built.run("x1"), built.run("mixed"), grouped)["plot"]
    assert len(apart["bands"]) == 1  # a run of no configuration has no floor to draw
    assert compare_report(built.run("x1"), built.run("x2"))["plot"] is None  # nothing to draw against


def test_a_baseline_check_is_drawn_against_the_floors_of_the_baselines_runs_and_of_the_runs_now():
    built = rebuild(entries_with_designed_flips())
    x, y = group_runs(list(built)).groups
    baseline = baseline_of(list(x.runs))
    report = diff_report(baseline, list(y.runs), [])
    plot = report["plot"]
    assert plot["difference"] == report["comparison"]["difference"] and plot["label"] == "Now − baseline"
    floors = [repeat_figures(verdict_table(group.runs))["floor"]["floor_mean"] for group in (x, y)]
    assert [band["half_width"] for band in plot["bands"]] == pytest.approx(floors)
    assert plot["bands"][0]["text"] == f"The baseline: noise floor ±{fmt_point_size(floors[0])} for means of 3 runs"
