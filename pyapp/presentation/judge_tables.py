"""Each model judge's figures as the evaluation page's tables, every cell a string made here (DR-012).

Made from the ``judges`` of :func:`pyapp.evaluation.agreement.agreement_report`, the dict
``python -m pyapp agreement --json`` prints, as the people's tables are (DR-009).
"""

from __future__ import annotations

from pyapp.core.formatting import counted, fmt_count
from pyapp.evaluation.rater_figures import CONSENSUS
from pyapp.explanation.rubric import overall_verdict

QUESTION_COLUMNS = ("Question", "Agreement", "Kappa (95% interval)", "n", "Both yes", "Judge yes only",
                    "Judge no only", "Both no")
PRECISION_COLUMNS = ("Question", "Answers compared", "Half-width of the interval", "More answers needed",
                     "Status")
GRADE_COLUMNS = ("Judge's verdict", "Grounded", "Not grounded")
LENGTH_COLUMNS = ("Third by length", "Characters", "Judge says acceptable", "People say acceptable")
FAILURE_COLUMNS = ("Call", "Judging", "Failure", "What happened")


def judgement_said(entry: dict) -> str:
    """A judgement entry in a few words: the overall verdict, or the judge failure and its kind."""
    if entry["answers"] is None:
        return f"judge failure ({(entry['failure'] or entry['error']).replace('_', ' ')})"
    return "acceptable" if overall_verdict(entry["answers"]) else "not acceptable"


def judge_heading(judge: dict) -> str:
    """A judge's heading: its name and the judging its figures rest on, with that judging's verdicts and failures."""
    return (f"{judge['judge']}: {counted(judge['verdicts'], 'verdict')} and "
            f"{counted(len(judge['failures']), 'judge failure')} in {judge['judging']['judging_id']}")


def judge_label(judge: dict) -> str:
    """"not validated" and why, or nothing once the judge is validated."""
    return f"{judge['label']}: {judge['why_not']}" if judge["label"] else ""


def _cells(label: str, figure: dict) -> list[str]:
    shown = figure["display"]
    (a, b), (c, d) = figure["table"]
    return [label, shown["agreement"], shown["kappa"], str(figure["n"]), str(a), str(b), str(c), str(d)]


def _notes(figures: list[dict]) -> list[str]:
    return [figure["note"] for figure in figures if figure["note"]]


def _versus(judge: str, pair: dict) -> dict:
    other = pair["raters"][1]
    named = f"the {other}" if other == CONSENSUS else other
    labelled = [(q["text"], q) for q in pair["questions"]] + [("Overall verdict", pair["overall"])]
    return {
        "heading": f"Against {named}: {counted(pair['n'], 'answer')} with both verdicts",
        "label": f"{judge} against {named}, per question",
        "columns": list(QUESTION_COLUMNS),
        "rows": [_cells(label, figure) for label, figure in labelled],
        "notes": _notes([figure for _, figure in labelled]),
    }


def _precision(judge: dict) -> dict:
    precision = judge["precision"]
    rate_next = judge["rate_next"]
    return {
        "label": f"{judge['judge']} against the people's consensus: how precisely each question is measured",
        "columns": list(PRECISION_COLUMNS),
        "rows": [[q["text"], fmt_count(q["n"]), q["display"]["half_width"], q["display"]["more"],
                  q["display"]["status"]] for q in precision["questions"]],
        "still_needed": precision["still_needed"] or "",
        "rate_next": rate_next["note"] or "",
        "rate_button": f"Rate these {counted(len(rate_next['answers']), 'answer')}" if rate_next["note"]
        and rate_next["answers"] else "",
    }


def judge_tables(judges: list[dict]) -> list[dict]:
    """One view per judge: its heading, label and the judging its figures rest on, how precisely it is measured
    and what to rate next, failures, the tables against people and the grade, the probes."""
    views = []
    for judge in judges:
        name = judge["judge"]
        grade = judge["versus_grade"]
        (pg, pn), (fg, fn) = grade["table"]
        length = judge["length"]
        own = judge["self_preference"]
        same = judge["consistency"]
        views.append({
            "judge": name,
            "heading": judge_heading(judge),
            "label": judge_label(judge),
            "judging": judge["judging"]["judging_id"],
            "judging_note": judge["judging_note"],
            "judging_choice": f"{name}: the judging the figures rest on",
            "judgings": [[j["judging_id"], j["display"]] for j in judge["each_judging"]],
            "validation": judge["validation_note"],
            "precision": _precision(judge),
            "failures_label": f"{name}'s judge failures in {judge['judging']['judging_id']}, never counted as ratings",
            "failure_columns": list(FAILURE_COLUMNS),
            "failures": [[f["call_id"], f["judging_id"], f["failure"].replace("_", " "), f["message"]]
                         for f in judge["failures"]],
            "versus": [_versus(name, pair) for pair in (*judge["versus_people"], judge["versus_consensus"])],
            "grade": {
                "label": f"{name}'s verdicts against the mechanical grade",
                "columns": list(GRADE_COLUMNS),
                "rows": [["acceptable", str(pg), str(pn)], ["not acceptable", str(fg), str(fn)]],
                "figures": f"Agreement {grade['display']['agreement']}; kappa {grade['display']['kappa']}.",
                "notes": _notes([grade]),
            },
            "length": {
                "label": f"{name}'s yes-rate by answer length, against the people's",
                "columns": list(LENGTH_COLUMNS),
                "rows": [[t["third"], "–" if t["characters"] is None else f"{t['characters'][0]}–{t['characters'][1]}",
                          t["judge"]["display"], t["people"]["display"]] for t in length["terciles"]],
                "note": length["note"] or "",
            },
            "self_preference": "" if not own["flagged"] else (
                f"{own['note']} On its own model's answers: agreement {own['own']['display']['agreement']}, kappa "
                f"{own['own']['display']['kappa']}. On the others: agreement {own['others']['display']['agreement']}, "
                f"kappa {own['others']['display']['kappa']}."),
            "consistency": same["note"] or (
                f"Over {counted(same['judgings'], 'judging')} the overall verdict was the same every time on "
                f"{same['unchanged']['display']} answers. "
                + " ".join(f"Judging {r['judging']} against judging {same['against']}, the one the figures rest on: "
                           f"agreement {r['overall']['display']['agreement']}, "
                           f"kappa {r['overall']['display']['kappa']}." for r in same["repeats"])),
        })
    return views
