"""The agreement of two raters, or of a rater and the mechanical grade, on the answers both have judged.

A rater here is anything that answers the rubric: a person, the people's consensus, or a model
judge (DR-009, DR-012). Each is given as a map from call id to its answers, one yes/no per
rubric question and :data:`OVERALL` for the overall verdict; a key left out (the people's
consensus on a question they split on) leaves that answer out of that question's table only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pyapp.core.vocabulary import Outcome
from pyapp.evaluation.kappa import figure, yes_no_table
from pyapp.evaluation.runs import Run
from pyapp.explanation.rubric import RUBRIC, overall_verdict

OVERALL = "overall"
CONSENSUS = "people's consensus"

Answers = Mapping[str, Mapping[str, bool]]  # call id -> question key (and OVERALL) -> yes


@dataclass(frozen=True)
class CountedAnswer:
    """A counted answer of a run that ratings can point at, with its mechanical grade."""

    run_id: str
    case_id: str
    call_id: str
    outcome: str
    model: str

    @property
    def grounded(self) -> bool:
        return self.outcome == Outcome.GROUNDED


def counted_answers(runs: Sequence[Run]) -> list[CountedAnswer]:
    """Every counted answer of ``runs``, run by run in the given order, cases in set order."""
    return [CountedAnswer(run.run_id, r.case_id, r.entry_id, r.outcome, (run.settings or {}).get("model", ""))
            for run in runs for r in run.graded]


def with_verdict(answers: Mapping[str, bool]) -> dict[str, bool]:
    """A full set of rubric answers and its overall verdict, as this module's maps hold them."""
    return {**answers, OVERALL: overall_verdict(answers)}


def consensus(by_rater: Mapping[str, Answers]) -> dict[str, dict[str, bool]]:
    """Call id -> the people's strict-majority answer per question and overall (a split is left out)."""
    votes: dict[str, dict[str, list[int]]] = {}
    for answers in by_rater.values():
        for call_id, given in answers.items():
            tally = votes.setdefault(call_id, {})
            for key, yes in given.items():
                counts = tally.setdefault(key, [0, 0])
                counts[0 if yes else 1] += 1
    return {call_id: {key: yes > no for key, (yes, no) in tally.items() if yes != no}
            for call_id, tally in votes.items()}


def pair_figures(names: Sequence[str], calls: Sequence[CountedAnswer], first: Answers, second: Answers) -> dict:
    """Per question and overall: the 2×2 table of ``first`` (rows) against ``second`` and its kappa.

    ``n`` counts the answers of ``calls`` both gave an overall verdict on.
    """
    def shared(key: str) -> list[tuple[bool, bool]]:
        return [(first[c.call_id][key], second[c.call_id][key]) for c in calls
                if key in first.get(c.call_id, ()) and key in second.get(c.call_id, ())]

    questions = [{"key": q.key, "text": q.text, **figure(yes_no_table(shared(q.key)), f'"{q.text}"')}
                 for q in RUBRIC.questions]
    verdicts = shared(OVERALL)
    return {"raters": list(names), "n": len(verdicts), "questions": questions,
            "overall": figure(yes_no_table(verdicts), "the overall verdict")}


def versus_grade(name: str, calls: Sequence[CountedAnswer], answers: Answers) -> dict:
    """``name``'s overall verdict against the mechanical grade on the answers of ``calls`` it gave one on."""
    rated = [c for c in calls if OVERALL in answers.get(c.call_id, ())]
    pairs = [(answers[c.call_id][OVERALL], c.grounded) for c in rated]
    disagreements = [
        {"run_id": c.run_id, "case_id": c.case_id, "call_id": c.call_id,
         "verdict": "acceptable" if verdict else "not acceptable", "outcome": c.outcome}
        for c, (verdict, grounded) in zip(rated, pairs, strict=True) if verdict != grounded
    ]
    shown = figure(yes_no_table(pairs), f"{name}'s verdict against the mechanical grade")
    return {"rater": name, "n": len(rated), **shown, "disagreements": disagreements}
