"""One case of one run, everything about it: what the evaluation page shows when a cell of the matrix
is opened (DR-008).

The answer as the model sent it (the page shows it as text), each check with its verdict and reason,
the trace steps the answer cited beside the steps the prompt sent, the case's search with a link that
opens the explorer on exactly that search, the call's tokens, latency and models, and the ratings of
the answer. Every text is made here; the page only places them.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlencode

from pyapp.core.formatting import fmt_count, fmt_ms
from pyapp.core.vocabulary import CaseStatus
from pyapp.evaluation.agreement import latest_ratings
from pyapp.evaluation.evalset import case_facts
from pyapp.evaluation.runs import Run
from pyapp.explanation.rubric import RUBRIC
from pyapp.presentation.case_matrix import cell_of


def explorer_query(case, step: int | None = None) -> str:
    """The explorer's query string for ``case``'s search (its deep link, DR-010), at ``step`` if given."""
    kind = str(case.search_kind)
    query = {"order": case.order, "kind": kind, "lon": repr(case.lon), "lat": repr(case.lat)}
    if case.radius is not None:
        query["radius"] = repr(case.radius)
    if step is not None:
        query["step"] = str(step)
    return urlencode(query)


def _search(case) -> dict:
    radius = "" if case.radius is None else f" within {case.radius:g}°"
    return {
        "order": case.order,
        "kind": str(case.search_kind),
        "lon": case.lon,
        "lat": case.lat,
        "radius": case.radius,
        "why_it_matters": case.why_it_matters,
        "text": f"{case.search_kind} search{radius} from ({case.lon:.7f}, {case.lat:.7f}) on the {case.order} tree",
        "explorer": explorer_query(case),
    }


def _cited(case, claims: dict | None) -> list[dict]:
    """Each step the answer cited, beside the step of that number the prompt sent (None if it sent none)."""
    cited = claims.get("cited_steps") if isinstance(claims, dict) else None
    if not isinstance(cited, list):
        return []
    sent = case_facts(case).sent_by_number
    rows = []
    for item in cited:
        if not isinstance(item, dict):
            continue
        number = item.get("step")
        found = sent.get(number) if isinstance(number, int) and not isinstance(number, bool) else None
        rows.append({
            "step": number if isinstance(number, int) and not isinstance(number, bool) else None,
            "cited": f"{item.get('action')} node {item.get('node_id')}",
            "sent": None if found is None else f"{found.action} node {found.node_id}",
            "matches": found is not None and [found.action, found.node_id] == [item.get("action"), item.get("node_id")],
            "explorer": explorer_query(case, found.step) if found is not None else None,
        })
    return rows


def _call(entry: dict | None) -> dict | None:
    if entry is None:
        return None
    settings = entry.get("settings") or {}
    tokens = (f"{fmt_count(entry['input_tokens'])} in, {fmt_count(entry['output_tokens'])} out"
              if entry.get("input_tokens") is not None and entry.get("output_tokens") is not None else "not reported")
    return {
        "entry_id": entry["id"],
        "time": entry["time"],
        "model": f"{settings.get('provider')} {settings.get('model')}",
        "model_reported": entry.get("model_reported") or "not reported",
        "tokens": tokens,
        "answer_ms": fmt_ms(entry.get("answer_ms")),
        "total_ms": fmt_ms(entry.get("total_ms")),
        "stop": entry.get("raw_stop_reason") or entry.get("stop") or "none",
    }


def case_view(run: Run, case_id: str, entries: Sequence[dict]) -> dict:
    """Everything about case ``case_id`` of ``run`` (module doc); ``entries`` is the log the run came from."""
    index = next((i for i, result in enumerate(run.cases) if result.case_id == case_id), None)
    if index is None:
        raise ValueError(f"run {run.run_id} has no case {case_id!r}")
    result = run.cases[index]
    grade = result.grade
    entry = next((e for e in entries if e.get("id") == result.entry_id), None) if result.entry_id else None
    ratings = latest_ratings(entries)
    rated = [{"rater": rater, "answers": [{"question": q.text, "answer": "yes" if answers[q.key] else "no"}
                                          for q in RUBRIC.questions]}
             for (rater, call_id), answers in sorted(ratings.items()) if call_id == result.entry_id]
    status = cell_of(result)
    ids = [r.case_id for r in run.cases]
    return {
        "run_id": run.run_id,
        "case_id": case_id,
        "previous_case": ids[index - 1] if index > 0 else None,
        "next_case": ids[index + 1] if index + 1 < len(ids) else None,
        "status": status,
        "outcome_text": status.replace("_", " "),
        "counted": result.status == CaseStatus.GRADED,
        "detail": grade.detail if grade is not None and grade.detail else result.detail,
        # A case that did not count shows the answer of the call behind its status, if that call had one.
        "answer": result.answer if result.answer is not None else (entry or {}).get("answer"),
        "checks": [] if grade is None else [check.to_json() for check in grade.checks],
        "cited": _cited(result.case, None if grade is None else grade.claims),
        "search": _search(result.case),
        "call": _call(entry),
        "ratings": rated,
        "rubric_version": RUBRIC.version,
    }
