"""Honest small-sample guidance (DR-006, DR-009): what 20 or 80 cases can and cannot show, before a visitor pays
for a run."""

from __future__ import annotations

import math
from collections.abc import Sequence

from pyapp.core.formatting import (
    fmt_p,
    fmt_percent,
    fmt_points,
)
from pyapp.evaluation.evalset import FIXED_SETS, SET_VERSIONS, CaseSets
from pyapp.evaluation.own_cases import set_label
from pyapp.evaluation.stats import (
    ALPHA,
    CONFIDENCE,
    mcnemar_exact,
    smallest_detectable_discordant,
    wilson,
)

CASES_IN_SET = 20


# The grounded rates at which the guidance gives each set's Wilson half-width.
GUIDANCE_RATES = (0.5, 0.8, 0.9)


def small_sample_guidance(pairs: int = CASES_IN_SET) -> dict:
    """What ``pairs`` cases can show at best, for the page before any run is paid for."""
    k = smallest_detectable_discordant(pairs, ALPHA)
    best_low = wilson(pairs, pairs, CONFIDENCE)[0] if pairs else 0.0
    guidance = {
        "pairs": pairs,
        "all_grounded_wilson_low": best_low,
        "smallest_one_way": k,
        "smallest_one_way_points": None if k is None else k / pairs,
        "smallest_one_way_p": None if k is None else mcnemar_exact(k, 0),
        "one_fewer_p": None if k is None or k < 2 else mcnemar_exact(k - 1, 0),
    }
    if k is None:
        text = (f"With {pairs} paired cases no split of disagreements can reach p < {ALPHA:.2g}, "
                "so a comparison can only describe the runs, not tell them apart.")
    else:
        text = (f"Even {pairs} grounded answers out of {pairs} leave a 95% Wilson lower bound of "
                f"{fmt_percent(best_low)}. Two runs on the {pairs} cases can be told apart (exact McNemar "
                f"p < {ALPHA:.2g}) only if they disagree on at least {k} cases all in one direction "
                f"({k} against 0 gives p = {fmt_p(mcnemar_exact(k, 0))}), a difference of "
                f"{fmt_points(k / pairs).lstrip('+')} points; smaller differences, however real, "
                "will not show.")
    guidance["text"] = text
    guidance["display"] = {
        "all_grounded_wilson_low": fmt_percent(best_low),
        "smallest_one_way": "none" if k is None else str(k),
        "smallest_one_way_points": "n/a" if k is None else fmt_points(k / pairs).lstrip("+"),
    }
    return guidance


def wilson_half_width(rate: float, n: int) -> float:
    """Half the width of the 95% Wilson interval of ``n`` answers, ``rate`` of them grounded (rounded to a count)."""
    low, high = wilson(math.floor(rate * n + 0.5), n, CONFIDENCE)
    return (high - low) / 2.0


def set_guidance(versions: Sequence[str] = SET_VERSIONS, sets: CaseSets = FIXED_SETS) -> list[dict]:
    """What each set of ``versions`` (names ``sets`` knows) can show at best, before any run is paid for (DR-009).

    Per set: its size, the Wilson half-width at each of :data:`GUIDANCE_RATES`, and
    the smallest paired difference two runs on it can show (:func:`small_sample_guidance`).
    """
    rows = []
    for version in versions:
        n = len(sets.cases(version))
        widths = [{"rate": rate, "half_width": wilson_half_width(rate, n),
                   "text": f"±{fmt_points(wilson_half_width(rate, n)).lstrip('+')} points at {rate * 100:g}%"}
                  for rate in GUIDANCE_RATES]
        paired = small_sample_guidance(n)
        k = paired["smallest_one_way"]
        detectable = ("no difference can reach p < 0.05" if k is None else
                      f"{paired['display']['smallest_one_way_points']} points ({k} cases one way, none the other)")
        rows.append({
            "eval_set_version": version,
            "cases": n,
            "half_widths": widths,
            "smallest_one_way": k,
            "smallest_one_way_points": paired["smallest_one_way_points"],
            "text": (f"{set_label(version)}, {n} cases: the Wilson 95% interval is "
                     f"{', '.join(w['text'] for w in widths)}; "
                     f"the smallest difference two runs can show is {detectable}."),
        })
    return rows
