"""A comparison drawn: the paired difference with its interval, against the noise-floor band of each
configuration compared (DR-008). The page draws what these functions return and writes no number of
its own.

Every position is a difference of grounded shares (−1 to +1); the axis is symmetric around zero and
wide enough for the interval and every band, in steps of ten points. Two configurations are drawn
against the floors for means of their runs; two single runs against the floor for one run against
another of the configuration each belongs to.
"""

from __future__ import annotations

import math

from pyapp.core.formatting import fmt_point_size, fmt_points
from pyapp.evaluation.configurations import Grouped
from pyapp.evaluation.repeats import repeat_figures, verdict_table

AXIS_STEP = 0.1


def _band(label: str, floor: float | None, text: str, unknown: str) -> dict:
    if floor is None:
        return {"label": label, "half_width": None, "text": unknown}
    return {"label": label, "half_width": floor, "text": text.format(floor=fmt_point_size(floor))}


def _plot(difference: float, interval: list[float], bands: list[dict], label: str, caption: str,
          sides: tuple[str, str]) -> dict:
    """``sides`` name the side each half of the axis favours (a difference is the right side minus the left)."""
    low, high = interval
    widths = [band["half_width"] for band in bands if band["half_width"] is not None]
    reach = max([abs(low), abs(high), abs(difference), *widths])
    edge = min(1.0, max(AXIS_STEP, math.ceil(reach / AXIS_STEP - 1e-9) * AXIS_STEP))
    return {
        "low": -edge,
        "high": edge,
        "ticks": [{"at": at, "text": fmt_points(at) if at else "0"} for at in (-edge, -edge / 2, 0.0, edge / 2, edge)],
        "label": label,
        "difference": difference,
        "interval": [low, high],
        "difference_text": f"{label}: {fmt_points(difference)} points ({fmt_points(low)} to {fmt_points(high)})",
        "bands": bands,
        "caption": f"{caption} Left of zero {sides[0]} is better, right of zero {sides[1]}.",
        "sides": {"left": f"← {sides[0]} better", "right": f"{sides[1]} better →"},
    }


def _mean_floor_band(label: str, name: str, figures: dict) -> dict:
    """The band of ``figures`` (:func:`pyapp.evaluation.repeats.repeat_figures`): the floor for means of its runs."""
    floor = (figures["floor"] or {}).get("floor_mean")
    return _band(label, floor, f"{name}: noise floor ±{{floor}} for means of {figures['k']} runs",
                 f"{name}: noise floor unknown (one run, or no case in every run)")


def comparison_plot(report: dict) -> dict | None:
    """The drawing of :func:`pyapp.presentation.repeat_report.configuration_compare_report`'s ``report``
    (None when no case could be paired, so there is no difference to draw)."""
    figures = report["comparison"]
    if figures["difference"] is None:
        return None
    bands = [_mean_floor_band("X floor", "X", report["x"]["figures"]),
             _mean_floor_band("Y floor", "Y", report["y"]["figures"])]
    return _plot(figures["difference"], figures["interval"], bands, "Y − X",
                 "Y minus X in percentage points with its 95% interval (top row), against each configuration's "
                 "noise floor around zero: a difference inside a band is within what repeating that "
                 "configuration gives by chance.", ("X", "Y"))


def baseline_plot(figures: dict, baseline: dict, now: dict) -> dict | None:
    """The drawing of a baseline check: ``figures`` as :func:`pyapp.evaluation.repeats.compare_tables` gives
    them, against the floors of the baseline's runs (``baseline``) and of the runs now (``now``), each as
    :func:`pyapp.evaluation.repeats.repeat_figures` gives them (None with nothing paired)."""
    if figures["difference"] is None:
        return None
    bands = [_mean_floor_band("Baseline floor", "The baseline", baseline), _mean_floor_band("Now floor", "Now", now)]
    return _plot(figures["difference"], figures["interval"], bands, "Now − baseline",
                 "The runs now minus the baseline in percentage points with its 95% interval (top row), against "
                 "the noise floor of each side's runs around zero.", ("baseline", "now"))


def runs_plot(report: dict, grouped: Grouped) -> dict | None:
    """The drawing of :func:`pyapp.presentation.run_comparison.compare_report`'s ``report``, with the floor
    for one run against another of each run's configuration in ``grouped`` (None with nothing paired)."""
    if report["difference"] is None:
        return None
    groups = []
    for run_id in (report["first"], report["second"]):
        group = next((g for g in grouped.groups if any(run.run_id == run_id for run in g.runs)), None)
        if group is not None and group not in groups:
            groups.append(group)
    bands = []
    for group in groups:
        name = group.configuration.id
        floor = None
        if len(group.runs) >= 2:
            floor = (repeat_figures(verdict_table(group.runs))["floor"] or {}).get("floor_single")
        bands.append(_band(f"{name} floor", floor,
                           f"{name}: one run against another differs by up to ±{{floor}} by chance",
                           f"{name}: noise floor unknown (repeat that configuration to measure one)"))
    return _plot(report["difference"], report["interval"], bands, "Second − first",
                 "The second run minus the first in percentage points with its 95% interval (top row), against "
                 "the noise floor of one run against another in each run's configuration.", ("first run", "second run"))
