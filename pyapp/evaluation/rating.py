"""What a rater sees while rating a run against the rubric (DR-009).

Rating is blind: an item holds the search, what the search really found, and the
model's explanation, but never the mechanical grade and never another rater's
rating; only the rater's own earlier answers come back, so a rater can resume.
"""

from __future__ import annotations

from collections.abc import Sequence

from pyapp.evaluation.agreement import latest_ratings
from pyapp.evaluation.evalset import case_search
from pyapp.evaluation.runs import Run
from pyapp.explanation.rubric import explanation_text


def rating_queue(run: Run, entries: Sequence[dict], rater: str) -> list[dict]:
    """One item per counted answer of ``run``, in case order, for ``rater`` to rate blind (module doc)."""
    own = {call_id: answers for (who, call_id), answers in latest_ratings(entries).items() if who == rater}
    items = []
    for result in run.graded:
        c = result.case
        found = case_search(c)
        radius = "" if c.radius is None else f", radius {c.radius:g}°"
        items.append({
            "call_id": result.entry_id,
            "case_id": c.case_id,
            "search": f"{c.search_kind} search on the {c.order} tree from ({c.lon:.7f}, {c.lat:.7f}){radius}",
            "why_it_matters": c.why_it_matters,
            "found": ", ".join(str(i) for i in found.result_ids) or "no point",
            "explanation": explanation_text(result.answer or ""),
            "your_answers": own.get(result.entry_id),
        })
    return items
