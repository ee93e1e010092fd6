"""The agreement figures as the evaluation page's tables, every cell a string made here (DR-009).

The page only places these strings; they are made from :func:`pyapp.evaluation.agreement.agreement_report`,
the dict ``python -m pyapp agreement --json`` prints, so the page's tables and the command
line rest on the same figures.
"""

from __future__ import annotations

from pyapp.core.formatting import counted
from pyapp.presentation.judge_tables import judge_tables

QUESTION_COLUMNS = ("Question", "Agreement", "Kappa (95% interval)", "n")
VERSUS_COLUMNS = ("Rubric verdict", "Grounded", "Not grounded")
DISAGREEMENT_COLUMNS = ("Run", "Case", "Call", "Rubric verdict", "Mechanical grade")


def _row(label: str, figure: dict) -> list[str]:
    shown = figure["display"]
    return [label, shown["agreement"], shown["kappa"], str(figure["n"])]


def _notes(labelled: list[tuple[str, dict]]) -> list[str]:
    return [figure["note"] for _, figure in labelled if figure["note"]]


def agreement_tables(report: dict) -> dict:
    """The page's view of ``report``: a sentence on who rated, one table per pair, three per rater."""
    raters = report["raters"]
    who = (f"{counted(report['ratings'], 'rating')} of counted answers by {counted(len(raters), 'rater')}"
           + (f" ({', '.join(raters)})" if raters else "")
           + f"; {report['left_out']} left out (not on a counted answer of a run).")
    pairs = []
    for pair in report["pairs"]:
        a, b = pair["raters"]
        labelled = [(q["text"], q) for q in pair["questions"]] + [("Overall verdict", pair["overall"])]
        pairs.append({
            "heading": f"{a} and {b}: {counted(pair['n'], 'answer')} rated by both",
            "label": f"Agreement of {a} and {b} per question",
            "columns": list(QUESTION_COLUMNS),
            "rows": [_row(label, figure) for label, figure in labelled],
            "notes": _notes(labelled),
        })
    versus = []
    for figure in report["versus_grade"]:
        rater = figure["rater"]
        (pg, pn), (fg, fn) = figure["table"]
        shown = figure["display"]
        versus.append({
            "heading": f"{rater}: rubric verdict against the mechanical grade, {counted(figure['n'], 'answer')}",
            "label": f"{rater}'s verdicts against the mechanical grade",
            "columns": list(VERSUS_COLUMNS),
            "rows": [["acceptable", str(pg), str(pn)], ["not acceptable", str(fg), str(fn)]],
            "figures": f"Agreement {shown['agreement']}; kappa {shown['kappa']}.",
            "notes": _notes([(rater, figure)]),
            "disagreements_label": f"Answers where {rater}'s verdict and the mechanical grade differ",
            "disagreement_columns": list(DISAGREEMENT_COLUMNS),
            "disagreements": [[d["run_id"], d["case_id"], d["call_id"], d["verdict"],
                               d["outcome"].replace("_", " ")] for d in figure["disagreements"]],
            "none_differ": "" if figure["disagreements"] else "The verdict and the grade agree on every answer.",
        })
    return {"who": who, "note": report["note"] or "", "pairs": pairs, "versus": versus,
            "judges": judge_tables(report["judges"])}
