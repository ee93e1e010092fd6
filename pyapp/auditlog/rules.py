"""The rules that reject a configuration Y against X from their paired comparison (DR-008).

A rule is chosen before the data is seen, from a small set, so that what counts as
"worse" cannot be picked after looking:

``no-new-fail``            reject Y if any case's grounded share went down (one run a side: a case
                           went from grounded to not grounded);
``difference-below:D``     reject Y if the mean difference, Y minus X, is below +D points;
``lower-bound-below:D``    reject Y if the 95% interval's lower bound is below +D points.

The figures are those of :func:`pyapp.evaluation.repeats.compare_tables`. A figure that cannot
be computed (no case compared) rejects: a gate that cannot see passes nothing.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from pyapp.core.formatting import counted, fmt_points

NO_NEW_FAIL = "no-new-fail"
DIFFERENCE_BELOW = "difference-below"
LOWER_BOUND_BELOW = "lower-bound-below"
RULE_KINDS = (NO_NEW_FAIL, DIFFERENCE_BELOW, LOWER_BOUND_BELOW)
_WITH_POINTS = re.compile(r"^(difference-below|lower-bound-below):([+-]?\d{1,3}(?:\.\d{1,3})?)\Z")
# Points are compared after rounding away float noise: 0.05 * 100 is 5.000000000000001.
_PLACES = 9


@dataclass(frozen=True)
class Rule:
    kind: str
    points: float | None = None

    @property
    def text(self) -> str:
        return self.kind if self.points is None else f"{self.kind}:{self.points:+g}"


def parse_rule(text: str) -> Rule:
    """``no-new-fail``, ``difference-below:D`` or ``lower-bound-below:D`` (D in points, e.g. ``+2``)."""
    if text == NO_NEW_FAIL:
        return Rule(NO_NEW_FAIL)
    found = _WITH_POINTS.match(text) if isinstance(text, str) else None
    if found is None:
        shown = text[:40] if isinstance(text, str) else "that"
        raise ValueError(f"unknown rule {shown!r}: use {NO_NEW_FAIL}, {DIFFERENCE_BELOW}:D or "
                         f"{LOWER_BOUND_BELOW}:D with D in points, e.g. {LOWER_BOUND_BELOW}:0")
    return Rule(found.group(1), float(found.group(2)))


def _in_points(share: float) -> float:
    return round(share * 100, _PLACES)


def rule_verdict(rule: Rule, figures: dict) -> dict:
    """Whether ``rule`` rejects Y on ``figures``, with the sentence that says why."""
    if rule.kind == NO_NEW_FAIL:
        worse = figures["worse"]
        if figures["paired"] == 0:
            return _verdict(rule, True, "no case could be compared")
        if worse:
            how = ("went from grounded to not grounded" if figures["method"] == "newcombe"
                   else "had a lower grounded share")
            return _verdict(rule, True, f"{counted(len(worse), 'case')} {how} "
                                        f"({', '.join(worse)})")
        return _verdict(rule, False, "no case went from grounded to not grounded")
    limit = rule.points
    if rule.kind == DIFFERENCE_BELOW:
        value, name = figures["difference"], "the difference"
    else:
        value, name = None if figures["interval"] is None else figures["interval"][0], "the interval's lower bound"
    if value is None or not math.isfinite(value):
        return _verdict(rule, True, f"{name} cannot be computed: no case could be compared")
    below = _in_points(value) < limit
    relation = "below" if below else "not below"
    return _verdict(rule, below, f"{name} is {fmt_points(value)} points, {relation} {limit:+g}")


def _verdict(rule: Rule, rejects: bool, why: str) -> dict:
    word = "REJECTS" if rejects else "passes"
    return {"rule": rule.text, "rejects": rejects, "text": f"rule {rule.text} {word}: {why}."}
