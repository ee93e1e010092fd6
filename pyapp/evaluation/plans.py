"""Pre-registered comparisons: which configurations, which metric, which rule, written down first (DR-008).

A plan is an audit entry naming configuration X (the one to beat), configuration Y,
the primary metric (the grounded share; every other figure is secondary) and a reject
rule from :mod:`pyapp.auditlog.rules`. The log's times say whether it was registered
before the first call of Y's runs, the data it judges; X is the configuration to beat,
and its runs may well be older, as a baseline's are. A plan written after the data is shown
with its verdict and marked as such, never hidden: the point is that the visitor
cannot quietly pick the rule that the results happen to pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pyapp.auditlog.rules import parse_rule, rule_verdict
from pyapp.core.formatting import counted
from pyapp.core.vocabulary import EntryType
from pyapp.evaluation.runs import Run

METRIC_TEXT = ("Primary metric: the grounded share (the difference above); pass^k, flip rates and floors "
               "are secondary.")


def plans_in(entries: Iterable[dict]) -> list[dict]:
    """The plan entries of a log, oldest first."""
    return sorted((e for e in entries if e["type"] == EntryType.PLAN), key=lambda e: (e["time"], e["id"]))


def when_text(time: str) -> str:
    """``2026-12-02T10:00:00.000Z`` as ``2026-12-02 10:00:00 UTC``."""
    return f"{time[:10]} {time[11:19]} UTC"


def plan_status(plan: dict, x_runs: Sequence[Run], y_runs: Sequence[Run], figures: dict) -> dict:
    """When ``plan`` was registered against the first call of Y's runs, and its rule's verdict on ``figures``."""
    first = min(run.started for run in y_runs)
    before = plan["time"] < first
    older = sum(1 for run in x_runs if run.started < plan["time"])
    if before:
        timing = (f"Registered {when_text(plan['time'])}, before the first call of Y's {counted(len(y_runs), 'run')} "
                  f"({when_text(first)}).")
        if older:
            timing += (f" {counted(older, 'run')} of X {'was' if older == 1 else 'were'} already in the log, "
                       "as a baseline's are.")
    else:
        timing = (f"Registered {when_text(plan['time'])}, AFTER the first call of Y's runs ({when_text(first)}): "
                  "the rule was chosen with results in hand, so its verdict tests nothing.")
    return {
        "id": plan["id"],
        "time": plan["time"],
        "rule": plan["rule"],
        "metric": plan["metric"],
        "metric_text": METRIC_TEXT,
        "note": plan["note"],
        "registered_before": before,
        "first_call": first,
        "timing": timing,
        "verdict": rule_verdict(parse_rule(plan["rule"]), figures),
    }
