"""A baseline checked against new runs: per case NEW PASS, NEW FAIL or same, the paired figures and
each reject rule's verdict, as ``python -m pyapp diff`` prints them and the evaluation page shows them (DR-008)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from pyapp.auditlog.rules import Rule, rule_verdict
from pyapp.core.formatting import counted
from pyapp.core.vocabulary import ANSWERED
from pyapp.evaluation.baseline import baseline_of, baseline_table
from pyapp.evaluation.baseline_checks import Edit, edits_of, unchecked_text
from pyapp.evaluation.repeats import compare_tables, repeat_figures, verdict_table
from pyapp.evaluation.runs import Run
from pyapp.presentation.comparison_plot import baseline_plot
from pyapp.presentation.repeat_report import comparison_display


def _label(outcomes: Sequence[str]) -> str:
    return ", ".join(str(o) for o in outcomes)


def diff_report(baseline: dict, runs: Sequence[Run], rules: Sequence[Rule], accept_edited: bool = False) -> dict:
    """``runs`` (repeats of one configuration) against ``baseline``: per case, paired figures, rule verdicts.

    Besides the rules, the gate rejects when a case counted in the baseline has no counted
    answer in ``runs``: an incomplete run is no evidence that nothing got worse. A baseline whose
    digests show an edit is refused, naming each field and case edited, and so is one of an older
    format whose digests cannot show one, unless ``accept_edited``.
    """
    edits = edits_of(baseline)
    unchecked = unchecked_text(baseline)
    if (edits or unchecked) and not accept_edited:
        raise ValueError(refusal_text(edits, unchecked))
    now = baseline_of(runs)
    figures = compare_tables(baseline_table(baseline), verdict_table(runs))
    verdicts = {row["case_id"]: row["verdict"] for row in figures["cases"]}
    label = {"better": "NEW PASS", "worse": "NEW FAIL", "same": "same"}
    cases = []
    for old, new in zip(baseline["cases"], now["cases"], strict=True):
        verdict = verdicts.get(old["case_id"])
        cases.append({"case_id": old["case_id"], "baseline": old["outcomes"], "now": new["outcomes"],
                      "baseline_text": _label(old["outcomes"]), "now_text": _label(new["outcomes"]),
                      "verdict": "not compared" if verdict is None else label[verdict],
                      "failing_checks": new["failing_checks"], "model_failures": new["model_failures"]})
    changed = [{"field": key, "baseline": baseline[key], "now": now[key],
                "text": f"changed since the baseline: {key} {json.dumps(baseline[key])} -> {json.dumps(now[key])}"}
               for key in ("prompt_version", "prompt_set_hash", "provider", "model_requested", "models_reported",
                           "system_fingerprints", "base_url_host", "temperature", "max_tokens")
               if baseline[key] != now[key]]
    results = [rule_verdict(rule, figures) for rule in rules]
    missing = [c["case_id"] for c in cases if c["verdict"] == "not compared"
               and any(o in ANSWERED for o in c["baseline"])]
    if missing:
        results.append({"rule": "complete", "rejects": True,
                        "text": f"the runs have no counted answer for {len(missing)} case"
                                f"{'s' if len(missing) > 1 else ''} the baseline counted ({', '.join(missing)}), "
                                "so the gate cannot pass."})
    rejected = any(r["rejects"] for r in results)
    return {"baseline_runs": baseline["runs"], "runs": now["runs"], "edited": [e.to_dict() for e in edits],
            "unchecked": unchecked, "edited_text": accepted_text(edits, unchecked),
            "changed": changed, "cases": cases,
            "comparison": figures, "display": comparison_display(figures, "the baseline", "now"), "rules": results,
            "plot": baseline_plot(figures, repeat_figures(baseline_table(baseline)),
                                  repeat_figures(verdict_table(runs))),
            "rejected": rejected, "result_text": "result: REJECTED" if rejected else "result: passed"}


def refusal_text(edits: Sequence[Edit], unchecked: str | None) -> str:
    """Why ``diff`` will not go on with a baseline without ``--accept-edited``: what was edited, or cannot be seen."""
    named = "; ".join(e.text for e in edits)
    if unchecked is None:
        return (f"The baseline was edited after it was written: {named}. Write a new baseline with python -m pyapp "
                "baseline, or check this one against its log with python -m pyapp baseline --verify BASELINE LOG; "
                "if the edit is meant, accept it (diff --accept-edited, or \"Accept an edited baseline\" on the "
                "page).")
    return (f"{unchecked[0].upper()}{unchecked[1:]}{f'; and {named}' if named else ''}. Write a new baseline with "
            "python -m pyapp baseline (python -m pyapp baseline --verify BASELINE LOG checks this one against its "
            "log), or go on with it unchecked (diff --accept-edited, or \"Accept an edited baseline\" on the page).")


def accepted_text(edits: Sequence[Edit], unchecked: str | None) -> str | None:
    """What the report says of a baseline accepted with its edits, or unchecked; None for one as written."""
    named = "; ".join(e.text for e in edits)
    if unchecked is not None:
        return f"{unchecked}{f'; and {named}' if named else ''}; it was accepted as it is"
    if edits:
        return f"the baseline was edited after it was written, and the edit accepted: {named}"
    return None


def format_diff_report(report: dict) -> str:
    """The command line's text for :func:`diff_report`'s dict."""
    lines = [f"baseline: {counted(len(report['baseline_runs']), 'run')} ({', '.join(report['baseline_runs'])}); "
             f"now: {counted(len(report['runs']), 'run')} ({', '.join(report['runs'])})"]
    if report["edited_text"]:
        lines.append(report["edited_text"])
    lines.extend(change["text"] for change in report["changed"])
    for c in report["cases"]:
        why = [*c["failing_checks"], *c["model_failures"]]
        lines.append(f"{c['case_id']}  {c['verdict']:<12}  {c['baseline_text']} -> {c['now_text']}"
                     + (f"  (now failing: {', '.join(why)})" if why and c["verdict"] != "same" else ""))
    shown = report["display"]
    lines.append(f"difference: {shown['difference']}")
    if shown["test"]:
        lines.append(shown["test"])
    lines.append(f"per case: {shown['per_case']}")
    lines.extend(r["text"] for r in report["rules"])
    lines.append(report["result_text"])
    return "\n".join(lines)
