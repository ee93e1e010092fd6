"""The written rubric a person rates an explanation's prose against (DR-009).

The five checks (``pyapp.explanation.checks``) grade the numbers an answer claims; the rubric
asks about the prose. Each question is answered yes or no; the overall verdict is
"acceptable" only when every answer is yes, so one wrong or invented step fails an
explanation however good the rest is.

A rubric is versioned: a rating names the version it answered, and a changed
question is a new version, never an edit, so ratings made against different
wordings are never pooled (``pyapp.evaluation.agreement`` compares ratings of one version).
"""

from __future__ import annotations

from dataclasses import dataclass

from pyapp.explanation.grading import parse_answer


@dataclass(frozen=True)
class Question:
    """One yes/no question; ``key`` is how a rating stores its answer."""

    key: str
    text: str
    hint: str


@dataclass(frozen=True)
class Rubric:
    version: str
    questions: tuple[Question, ...]

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(q.key for q in self.questions)

    def to_json(self) -> dict:
        return {"version": self.version, "verdict_rule": VERDICT_RULE,
                "questions": [{"key": q.key, "text": q.text, "hint": q.hint} for q in self.questions]}


RUBRIC = Rubric("prose-rubric-v1", (
    Question("pruning", "Does it say correctly why subtrees were skipped?",
             "Yes if every skip it mentions is explained by the gap to the splitting line exceeding the "
             "best distance (or the radius), or if it rightly says nothing was skipped."),
    Question("answer", "Does it name the right answer?",
             "Yes if the point (or the points within the radius) it names is the one the search found."),
    Question("no_invention", "Does it invent no step?",
             "Yes if every visit, comparison and skip it describes happens in the trace it was given."),
    Question("followable", "Could a learner follow it?",
             "Yes if someone who has just read what a k-d tree is could follow the search from it, step by step."),
))
RUBRICS = {RUBRIC.version: RUBRIC}
VERDICT_RULE = "acceptable when every question is answered yes; otherwise not acceptable"


def overall_verdict(answers: dict[str, bool]) -> bool:
    """The rubric's overall verdict: True (acceptable) when every answer is yes (module doc)."""
    return all(answers.values())


def answers_problem(version: object, answers: object) -> str | None:
    """Why ``answers`` is not a full set of yes/no answers to rubric ``version`` (None when it is). Never raises."""
    rubric = RUBRICS.get(version) if isinstance(version, str) else None
    if rubric is None:
        return f"rubric_version: must be one of {', '.join(RUBRICS)}"
    if not isinstance(answers, dict) or set(answers) != set(rubric.keys):
        return f"answers: must answer exactly {', '.join(rubric.keys)}"
    if not all(isinstance(value, bool) for value in answers.values()):
        return "answers: every answer must be true (yes) or false (no)"
    return None


def explanation_text(answer: str) -> str:
    """The prose a rater rates: the answer's ``walkthrough`` when it is one, else the answer as it came."""
    try:
        claims = parse_answer(answer)
    except (ValueError, RecursionError):
        return answer
    walkthrough = claims.get("walkthrough") if isinstance(claims, dict) else None
    return walkthrough if isinstance(walkthrough, str) and walkthrough.strip() else answer
