"""The drawing of a comparison of two configurations: every position pyapp's, the axis wide enough for
the interval and both noise-floor bands (pyapp.presentation.comparison_plot, DR-008)."""

from __future__ import annotations

from designed_logs import entries_with_designed_flips
from eval_helpers import OTHER_SETTINGS, full_run
from pyapp.evaluation.configurations import group_runs
from pyapp.evaluation.rebuild import rebuild
from pyapp.presentation.repeat_report import configuration_compare_report


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
    assert report["display"]["difference"].startswith("+10.0 points")


def test_a_configuration_of_one_run_has_no_band_and_no_pairs_no_plot():
    one_each = full_run("a", set()) + full_run("b", start=100.0, settings=OTHER_SETTINGS)
    plot = compared(one_each)["plot"]
    assert [band["half_width"] for band in plot["bands"]] == [None, None]
    assert plot["high"] == 1.0 and plot["difference"] == 1.0  # every case better: the axis reaches its end
    nothing = full_run("a")[:0] + full_run("c", set(), start=0.0)[:5] + full_run("d", start=100.0,
                                                                                    settings=OTHER_SETTINGS)[5:10]
    assert compared(nothing)["plot"] is None
