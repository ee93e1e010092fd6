"""The fixed content of the Python pages, computed by the functions the worker calls.

The build embeds these in the pages, so the evaluation set, its guidance figures and the
explorer's default map and search show before Python starts; once it has, the page asks
the worker for the same values (DR-002).
"""

from __future__ import annotations

from pyapp.core.formatting import fmt_count, fmt_fixed
from pyapp.evaluation.evalset import (
    EVAL_SET_VERSION,
    FIXED_SETS,
    SET_VERSIONS,
    CaseSets,
    evalset_summary,
    evalset_table,
    is_own_set,
)
from pyapp.evaluation.own_cases import set_label
from pyapp.presentation.explorer import search_view, tree_view
from pyapp.presentation.guidance import set_guidance, small_sample_guidance

# The search the explorer shows first; the page's form starts with these values.
DEFAULT_SEARCH = {"order": "median-first", "kind": "nearest", "lon": 24.9445, "lat": 60.1705, "radius": None}


def explorer_default() -> dict:
    """The explorer's first state: the default tree's map and the default search."""
    return {"args": DEFAULT_SEARCH, "tree": tree_view(DEFAULT_SEARCH["order"]), "search": search_view(**DEFAULT_SEARCH)}


def evalset_page(set_version: str = EVAL_SET_VERSION, sets: CaseSets = FIXED_SETS) -> dict:
    """A set as the page shows it: the summary sentence, the guidance figures, one row a case, and what
    each set can show (DR-009). The sentences about twenty cases keep the first set's figures.
    ``sets`` says what the names mean to the visitor's log."""
    table = evalset_table(sets.check(set_version), sets)
    summary = evalset_summary(table, set_version)
    guidance = small_sample_guidance()
    rows = [{"case_id": c["case_id"],
             "cells": [c["case_id"], c["kind_label"], c["order"], f"{c['lon']}, {c['lat']}",
                       f"{c['steps']} (first {c['steps_sent']} sent)" if c["over_limit"] else str(c["steps"]),
                       c["why_it_matters"]]}
            for c in table]
    drawn = (f"{set_label(set_version)}: {summary['cases']} searches you added in the explorer, in the order "
             "you added them. " if is_own_set(set_version)
             else f"Version {summary['eval_set_version']}, seed {summary['seed']}: {summary['cases']} cases. ")
    sentence = (f"{drawn}"
                f"{summary['over_limit']} of the {summary['cases']} traces are longer than the {summary['max_steps']} "
                "steps a prompt sends; for those the prompt says where it was cut and states the final facts.")
    display = guidance["display"]
    return {"summary": sentence, "rows": rows,
            "sets": [{key: row[key] for key in ("eval_set_version", "cases", "text")}
                     for row in set_guidance(SET_VERSIONS)],
            "figures": {"set-size": f"{summary['cases']} cases", "prompt-chars": fmt_count(summary["prompt_chars"]),
                        "wilson-20": display["all_grounded_wilson_low"],
                        "detectable": display["smallest_one_way"],
                        "detectable-points": display["smallest_one_way_points"]}}


def judge_page() -> dict:
    """What the page says about the model judge before Python starts: its instructions, their version, and how
    precisely it must be measured before its verdicts lose the "not validated" label (DR-012)."""
    from pyapp.evaluation.judge_validation import HALF_WIDTH
    from pyapp.evaluation.kappa import FEW_ANSWERS
    from pyapp.explanation.judge import JUDGE_PROMPT_VERSION, system_text

    return {"version": JUDGE_PROMPT_VERSION, "instructions": system_text(),
            "half_width": f"±{fmt_fixed(HALF_WIDTH, 2)}", "least_answers": FEW_ANSWERS}
