"""A comparison drawn: the paired difference with its interval, against the noise-floor band of each
configuration compared (DR-008). The page draws what :func:`comparison_plot` returns and writes no
number of its own.

Every position is a difference of grounded shares (−1 to +1); the axis is symmetric around zero and
wide enough for the interval and both bands, in steps of ten points.
"""

from __future__ import annotations

import math

from pyapp.core.formatting import fmt_point_size, fmt_points

AXIS_STEP = 0.1


def _band(name: str, side: dict) -> dict:
    floor = (side["figures"]["floor"] or {}).get("floor_mean")
    if floor is None:
        return {"name": name, "half_width": None,
                "text": f"{name}: noise floor unknown (one run, or no case in every run)"}
    return {"name": name, "half_width": floor,
            "text": f"{name}: noise floor ±{fmt_point_size(floor)} for means of {side['k']} runs"}


def comparison_plot(report: dict) -> dict | None:
    """The drawing of :func:`pyapp.presentation.repeat_report.configuration_compare_report`'s ``report``
    (None when no case could be paired, so there is no difference to draw)."""
    figures = report["comparison"]
    if figures["difference"] is None:
        return None
    low, high = figures["interval"]
    bands = [_band("X", report["x"]), _band("Y", report["y"])]
    reach = max([abs(low), abs(high), abs(figures["difference"])]
                + [band["half_width"] for band in bands if band["half_width"] is not None])
    edge = min(1.0, max(AXIS_STEP, math.ceil(reach / AXIS_STEP - 1e-9) * AXIS_STEP))
    ticks = [edge * k / 2 for k in (-2, -1, 0, 1, 2)]
    return {
        "low": -edge,
        "high": edge,
        "ticks": [{"at": at, "text": fmt_points(at) if at else "0"} for at in ticks],
        "difference": figures["difference"],
        "interval": [low, high],
        "difference_text": f"Y − X: {fmt_points(figures['difference'])} points "
                           f"({fmt_points(low)} to {fmt_points(high)})",
        "bands": bands,
        "caption": ("Y minus X in percentage points with its 95% interval (top row), against each "
                    "configuration's noise floor around zero: a difference inside a band is within what "
                    "repeating that configuration gives by chance."),
    }
