"""One grade as Inspect scores (DR-014): ``grounded``, the main score, and one score per check, made the same way
for an exported run and for the task's scorers."""

from __future__ import annotations

from inspect_ai.scorer import CORRECT, INCORRECT, NOANSWER, Score

from pyapp.core.vocabulary import Outcome
from pyapp.explanation.checks import CHECKS
from pyapp.explanation.grading import Grade

GROUNDED = "grounded"
CHECK_NAMES = tuple(CHECKS)
SCORE_NAMES = (GROUNDED, *CHECK_NAMES)


def grounded_score(grade: Grade) -> Score:
    """C for a grounded answer, I otherwise; the outcome class is the score's answer and in its metadata."""
    failed = ", ".join(grade.failed_checks)
    explanation = grade.detail or (f"failed checks: {failed}" if failed else "all five checks pass")
    return Score(value=CORRECT if grade.outcome == Outcome.GROUNDED else INCORRECT, answer=grade.outcome,
                 explanation=explanation, metadata={"outcome": grade.outcome, "failure": grade.failure})


def check_score(grade: Grade, name: str) -> Score:
    """C or I for check ``name`` with its reason; N when the answer is a model failure and no check ran."""
    for check in grade.checks:
        if check.name == name:
            return Score(value=CORRECT if check.passed else INCORRECT, explanation=check.reason)
    return Score(value=NOANSWER, explanation=f"not checked: the answer is a model failure ({grade.failure})")


def grade_scores(grade: Grade) -> dict[str, Score]:
    return {GROUNDED: grounded_score(grade), **{name: check_score(grade, name) for name in CHECK_NAMES}}
