"""How far raters agree on the rubric, and how far a rater agrees with the mechanical grade (DR-009).

Every figure is Cohen's kappa with its interval (:mod:`pyapp.evaluation.kappa`) on a 2×2 table
of yes/no answers. A model judge's verdicts are compared with the people's in
:mod:`pyapp.evaluation.judge_agreement` and reported here beside them (DR-012).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from pyapp.core.vocabulary import EntryType
from pyapp.evaluation.judge_agreement import judge_reports, rate_next_for, validated_judges
from pyapp.evaluation.rater_figures import CountedAnswer, counted_answers, pair_figures, versus_grade, with_verdict
from pyapp.evaluation.rebuild import rebuild
from pyapp.evaluation.runs import Run
from pyapp.explanation.rubric import RUBRIC


def latest_ratings(entries: Sequence[dict]) -> dict[tuple[str, str], dict[str, bool]]:
    """(rater, call id) -> that rater's latest answers to today's rubric on that call.

    Latest by time, a tie going to the later entry in the log, as for decisions.
    ``entries`` must be valid audit entries.
    """
    latest: dict[tuple[str, str], tuple[str, dict[str, bool]]] = {}
    for entry in entries:
        if entry["type"] != EntryType.RATING or entry["rubric_version"] != RUBRIC.version:
            continue
        key = (entry["rater"], entry["call_id"])
        previous = latest.get(key)
        if previous is None or entry["time"] >= previous[0]:
            latest[key] = (entry["time"], entry["answers"])
    return {key: answers for key, (_, answers) in latest.items()}


def _by_rater(ratings: dict[tuple[str, str], dict[str, bool]], counted: set[str]) -> dict[str, dict]:
    """Rater -> call id -> their answers with the overall verdict, on counted answers only."""
    by_rater: dict[str, dict[str, dict[str, bool]]] = {}
    for (rater, call_id), given in sorted(ratings.items()):
        if call_id in counted:
            by_rater.setdefault(rater, {})[call_id] = with_verdict(given)
    return by_rater


def judge_validation(entries: Sequence[dict], runs: Sequence[Run]) -> dict[str, bool]:
    """Judge name -> whether its verdicts have lost the "not validated" label (DR-012); the runs are the log's."""
    answers = counted_answers(runs)
    return validated_judges(entries, answers, _by_rater(latest_ratings(entries), {c.call_id for c in answers}))


def judge_rate_next(entries: Sequence[dict], runs: Sequence[Run], judge: str,
                    judging: str | None = None) -> list[CountedAnswer]:
    """The answers to rate next, likely to validate ``judge`` soonest, on ``judging`` (its default when None), as
    ``agreement_report`` names them (DR-012); the runs are the log's."""
    answers = counted_answers(runs)
    return rate_next_for(entries, answers, _by_rater(latest_ratings(entries), {c.call_id for c in answers}), judge,
                         judging)


def agreement_report(entries: Sequence[dict], runs: Sequence[Run] | None = None,
                     judgings: Collection[str] = ()) -> dict:
    """The agreement figures of a log (valid entries): every pair of raters, every rater against the grade,
    and every model judge against the people and the grade (``judges``, DR-012).

    ``runs`` are the log's rebuilt runs (rebuilt here when not given). Only ratings
    of counted answers are used; the others are counted in ``left_out``. Raters and
    pairs come in name order. Each judge's figures rest on its judging in ``judgings``, if one is, else on its
    default judging; ``ValueError`` for a name that is no judging.
    """
    if runs is None:
        runs = list(rebuild(entries, validated=True))
    answers = counted_answers(runs)
    counted = {c.call_id for c in answers}
    ratings = latest_ratings(entries)
    left_out = sum(1 for _, call_id in ratings if call_id not in counted)
    by_rater = _by_rater(ratings, counted)
    raters = sorted(by_rater)
    pairs = [pair_figures((a, b), answers, by_rater[a], by_rater[b])
             for i, a in enumerate(raters) for b in raters[i + 1:]]
    if not raters:
        note = "No counted answer has been rated yet."
    elif len(raters) == 1:
        note = f"Only {raters[0]} has rated; agreement between raters needs a second rater on the same answers."
    else:
        note = None
    return {
        "rubric": RUBRIC.to_json(),
        "raters": raters,
        "ratings": len(ratings) - left_out,
        "left_out": left_out,
        "pairs": pairs,
        "versus_grade": [versus_grade(r, answers, by_rater[r]) for r in raters],
        "note": note,
        "judges": judge_reports(entries, runs, answers, by_rater, judgings),
    }
