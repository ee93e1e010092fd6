"""When a model judge's verdicts lose the "not validated" label, and which ratings are likely to get it there
soonest (DR-012).

A judge is validated when, against the people's consensus on one judging, every rubric question's kappa is
defined and its 95% interval's half-width (z·SE, before the cut to [-1, 1]) is at most :data:`HALF_WIDTH`, on
at least :data:`pyapp.evaluation.kappa.FEW_ANSWERS` answers, below which the interval's approximation means
little (DR-009). Otherwise each question says why not: too few answers, agreement that cannot be measured (one
of the two gave every answer the same rating), or an interval still too wide.

How many more answers each question needs is counted at today's agreement: the same shares of the 2×2 table,
more answers (:func:`pyapp.evaluation.kappa.answers_for_half_width`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from pyapp.core.formatting import counted, fmt_count, fmt_fixed
from pyapp.evaluation.kappa import FEW_ANSWERS, answers_for_half_width, cohen_kappa
from pyapp.evaluation.rater_figures import Answers, CountedAnswer

# The widest a question's interval may be, either side of kappa: one of the usual bands (0.4–0.6 moderate,
# 0.6–0.8 substantial), so that a validated judge's band is known.
HALF_WIDTH = 0.2
NOT_VALIDATED = "not validated"
PRECISE, TOO_FEW, NOT_MEASURABLE, TOO_WIDE = "precise", "too few answers", "not measurable", "too wide"


def _plus_minus(width: float) -> str:
    return f"±{fmt_fixed(width, 2)}"


def _alike(table: list[list[int]]) -> str:
    """Who gave every answer the same rating, for a table whose kappa cannot be measured."""
    (a, b), (c, d) = table
    judge = "yes" if c + d == 0 else "no" if a + b == 0 else None
    people = "yes" if b + d == 0 else "no" if a + c == 0 else None
    if judge and judge == people:
        return f'no answer rated "{"no" if judge == "yes" else "yes"}"'
    return " and ".join(f'{who} rated every answer "{said}"'
                        for who, said in (("the judge", judge), ("the people's consensus", people)) if said)


def question_precision(question: dict) -> dict:
    """How precisely one question's kappa against the people's consensus is known, and what is still needed."""
    k = cohen_kappa(question["table"])
    if k.n == 0:
        status = TOO_FEW
    elif k.half_width is None:
        status = NOT_MEASURABLE
    elif k.n < FEW_ANSWERS:
        status = TOO_FEW
    else:
        status = TOO_WIDE if k.half_width > HALF_WIDTH else PRECISE
    alike = _alike(question["table"]) if status == NOT_MEASURABLE else None
    needed = None if k.n == 0 else answers_for_half_width(k, HALF_WIDTH)
    more = None if needed is None else max(0, max(needed, FEW_ANSWERS) - k.n)
    said = {PRECISE: f"within {_plus_minus(HALF_WIDTH)}", TOO_FEW: TOO_FEW, TOO_WIDE: "too wide",
            NOT_MEASURABLE: f"cannot be measured: {alike}"}[status]
    return {
        "key": question["key"], "text": question["text"], "n": k.n, "half_width": k.half_width, "status": status,
        "alike": alike, "needed": needed, "more": more,
        "display": {"half_width": "none" if k.half_width is None else _plus_minus(k.half_width),
                    "more": "cannot be counted" if more is None else fmt_count(more), "status": said},
    }


def _questions(alike: str, rows: Sequence[dict], of: int) -> str:
    """The questions ``rows`` in words: the one quoted, all of them, or how many (the table names them)."""
    if len(rows) == 1:
        return f'"{rows[0]["text"]}"'
    if len(rows) == of:
        return "any question" if alike.startswith("no answer") else "every question"
    return counted(len(rows), "question")


def _why_not(rows: list[dict]) -> str | None:
    """The reasons a judge is not validated, a clause each (module doc), or None when it is."""
    reasons = []
    few = [r["n"] for r in rows if r["n"] < FEW_ANSWERS]
    if few:
        reasons.append(f"too few answers ({min(few)} compared with the people's consensus, at least {FEW_ANSWERS} "
                       "needed)")
    unmeasured = [r for r in rows if r["alike"]]
    for alike in dict.fromkeys(r["alike"] for r in unmeasured):
        same = [r for r in unmeasured if r["alike"] == alike]
        reasons.append(f"{alike} on {_questions(alike, same, len(rows))}, so agreement cannot be measured")
    wide = [r for r in rows if r["status"] == TOO_WIDE]
    if wide:
        widest = max(wide, key=lambda r: r["half_width"])
        where = f'"{widest["text"]}"'
        if len(wide) > 1:
            where = f"{counted(len(wide), 'question')}, widest on {where}"
        reasons.append(f"the interval is still too wide ({widest['display']['half_width']} on {where}; "
                       f"{_plus_minus(HALF_WIDTH)} wanted)")
    return "; ".join(reasons) or None


def _still_needed(rows: list[dict], unrated: int) -> str | None:
    """How many more answers compared with the people's consensus would validate the judge at today's agreement."""
    if all(r["status"] == PRECISE for r in rows):
        return None
    counts = [r["more"] for r in rows if r["more"] is not None]
    if all(r["n"] == 0 for r in rows):
        return "No answer judged in this judging has been compared with the people's consensus yet."
    if not counts:
        return "How many more answers are needed cannot be counted until agreement can be measured."
    which = "every question's interval" if len(counts) == len(rows) else counted(len(counts), "question")
    sentence = (f"At today's agreement, {counted(max(counts), 'more answer')} compared with the people's consensus "
                f"would bring {which} within {_plus_minus(HALF_WIDTH)}")
    if len(counts) < len(rows):
        sentence += "; the others cannot be counted until their agreement can be measured"
    if 0 < unrated < max(counts):  # with none, the answers to rate next say so
        sentence += (f". Only {counted(unrated, 'answer')} judged in this judging "
                     f"{'has' if unrated == 1 else 'have'} no person's rating yet, so more answers must be judged too")
    return sentence + "."


def validation(versus_consensus: dict, judging_id: str, unrated: int) -> dict:
    """Whether a judge is validated on judging ``judging_id`` (module doc), per question and as a whole, with
    the sentences that say why not and how many more answers it needs; ``unrated`` is how many answers that
    judging judged that no person has rated."""
    rows = [question_precision(q) for q in versus_consensus["questions"]]
    why_not = _why_not(rows)
    if why_not is None:
        note = (f"Validated on {judging_id}: against the people's consensus, every question's kappa has a 95% "
                f"interval within {_plus_minus(HALF_WIDTH)}. Its verdicts are a signal beside the grounded rate, "
                "never part of it.")
    else:
        note = (f"Not validated on {judging_id}: {why_not}. Its verdicts carry the label until every question's "
                f"kappa against the people's consensus has a 95% interval within {_plus_minus(HALF_WIDTH)}, on at "
                f"least {FEW_ANSWERS} answers.")
    return {"half_width": HALF_WIDTH, "least_answers": FEW_ANSWERS, "questions": rows,
            "validated": why_not is None, "label": None if why_not is None else NOT_VALIDATED, "why_not": why_not,
            "note": note, "still_needed": _still_needed(rows, unrated)}


def rate_next(answers: Sequence[CountedAnswer], verdicts: Answers, rated: Collection[str],
              questions: Sequence[dict]) -> list[CountedAnswer]:
    """The answers to rate next, likely to validate a judge soonest: those it judged (``verdicts``) that no person has
    rated, the ones it said "no" to on more of the questions not yet within the wanted width first, then in run
    and case order. "No" is usually the rarer rating, and an interval narrows most with answers in the rarer
    category; the order is all the rater gets, never the judge's verdict."""
    short = [q["key"] for q in questions if q["status"] != PRECISE]
    waiting = [c for c in answers if c.call_id in verdicts and c.call_id not in rated]
    return sorted(waiting, key=lambda c: -sum(not verdicts[c.call_id][key] for key in short))
