"""One case of one run, everything about it: what the evaluation page shows when a cell of the matrix
is opened (DR-008).

The answer's walkthrough as paragraphs with its step numbers linked, its claims against the truth, the
answer as the model sent it (the page shows it as text, folded), each check with its verdict and reason,
the trace steps the answer cited beside the steps the prompt sent, the case's search with a link that
opens the explorer on exactly that search, the call's tokens, latency and models, the ratings of
the answer, and every model judge's verdict on it or failure to give one (DR-012). Every text is made
here; the page only places them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from urllib.parse import urlencode

from pyapp.core.formatting import fmt_count, fmt_ms
from pyapp.core.vocabulary import CaseStatus, EntryType
from pyapp.evaluation.agreement import judge_validation, latest_ratings
from pyapp.evaluation.evalset import case_facts
from pyapp.evaluation.judge_agreement import judge_name
from pyapp.evaluation.judge_validation import NOT_VALIDATED
from pyapp.evaluation.runs import Run
from pyapp.explanation.rubric import RUBRIC
from pyapp.presentation.answer_prose import claims_table, walkthrough_paragraphs
from pyapp.presentation.case_matrix import cell_of
from pyapp.presentation.judge_tables import judgement_said


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


def case_view(run: Run, case_id: str, entries: Sequence[dict], runs: Callable[[], Sequence[Run]] = tuple) -> dict:
    """Everything about case ``case_id`` of ``run`` (module doc); ``entries`` is the log the run came from, and
    ``runs()`` every run of it, which say whether a judge of the answer is validated yet: asked only when a
    judge has judged the answer, as rebuilding every run of a long log takes seconds."""
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
    on_call = [e for e in entries
               if e.get("type") == EntryType.JUDGEMENT and e["call_id"] == result.entry_id and result.entry_id]
    validated = judge_validation(entries, runs()) if on_call else {}
    judged = [_judgement(e, validated) for e in on_call]
    checks = [] if grade is None else [check.to_json() for check in grade.checks]
    claims = None if grade is None else grade.claims
    facts = case_facts(result.case)
    # The prose and the claims are read once the answer fits the schema (a model failure has neither).
    prose = ([] if grade is None or grade.walkthrough is None else
             walkthrough_paragraphs(grade.walkthrough, set(facts.sent_by_number),
                                    lambda step: explorer_query(result.case, step)))
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
        "checks": checks,
        "prose": prose,
        "claims": claims_table(claims, facts, checks) if grade is not None and grade.checks else [],
        "cited": _cited(result.case, claims),
        "search": _search(result.case),
        "call": _call(entry),
        "ratings": rated,
        "judged": judged,
        "rubric_version": RUBRIC.version,
    }


def _judgement(entry: dict, validated: dict[str, bool]) -> dict:
    """A model judge's verdict on the call, or its failure, in words, labelled while it is not validated (DR-012)."""
    name = judge_name(entry["settings"]["model"])
    label = "" if validated.get(name) else f" [{NOT_VALIDATED}]"
    if entry["answers"] is None:
        said = f"{judgement_said(entry)}: {entry['message']}"
    else:
        said = f"{judgement_said(entry)}. " + " ".join(
            f"{q.text} {'yes' if entry['answers'][q.key] else 'no'}: {entry['reasons'][q.key]}"
            for q in RUBRIC.questions if q.key in entry["answers"])
    return {"judge": name, "judging_id": entry["judging_id"], "prompt_version": entry["prompt_version"],
            "validated": bool(validated.get(name)),
            "text": f"{name}{label}, {entry['judging_id']} ({entry['prompt_version']}): {said}"}
