"""What a rater sees while rating answers against the rubric (DR-009).

Rating is blind: an item holds the search, what the search really found, and the
model's explanation, but never the mechanical grade, never another rater's rating and never a
judge's verdict; only the rater's own earlier answers come back, so a rater can resume.
"""

from __future__ import annotations

from collections.abc import Sequence

from pyapp.core.formatting import counted
from pyapp.evaluation.agreement import judge_rate_next, latest_ratings
from pyapp.evaluation.evalset import case_search
from pyapp.evaluation.runs import CaseResult, Run
from pyapp.explanation.rubric import explanation_text


def _item(run: Run, result: CaseResult, own: dict, title: str) -> dict:
    c = result.case
    found = case_search(c)
    radius = "" if c.radius is None else f", radius {c.radius:g}°"
    return {
        "run_id": run.run_id,
        "call_id": result.entry_id,
        "case_id": c.case_id,
        "title": title,
        "search": f"{c.search_kind} search on the {c.order} tree from ({c.lon:.7f}, {c.lat:.7f}){radius}",
        "why_it_matters": c.why_it_matters,
        "found": ", ".join(str(i) for i in found.result_ids) or "no point",
        "explanation": explanation_text(result.answer or ""),
        "your_answers": own.get(result.entry_id),
    }


def _own(entries: Sequence[dict], rater: str) -> dict:
    return {call_id: answers for (who, call_id), answers in latest_ratings(entries).items() if who == rater}


def rating_queue(run: Run, entries: Sequence[dict], rater: str) -> list[dict]:
    """One item per counted answer of ``run``, in case order, for ``rater`` to rate blind (module doc)."""
    own = _own(entries, rater)
    return [_item(run, result, own, result.case_id) for result in run.graded]


def judge_queue(runs: Sequence[Run], entries: Sequence[dict], rater: str, judge: str,
                judging: str | None = None) -> dict:
    """The answers to rate next, likely to validate ``judge`` soonest, on ``judging`` (its default when None), in
    the order ``python -m pyapp agreement`` names them, as items to rate blind, and the sentence that starts the
    rating; ``runs`` are the log's. The judge's verdicts are not in the items: their order is all that depends on
    them."""
    results = {r.entry_id: (run, r) for run in runs for r in run.graded}
    order = judge_rate_next(entries, runs, judge, judging)
    own = _own(entries, rater)
    items = [_item(*results[c.call_id], own, f"{c.case_id} of {c.run_id}") for c in order]
    if not items:
        return {"items": [], "status": f"No answer {judge} judged is waiting for a person's rating."}
    return {"items": items,
            "status": f"Rating {counted(len(items), 'answer')} {judge} judged that no person has rated, as {rater}; "
                      "the order is the one likely to narrow its intervals soonest."}
