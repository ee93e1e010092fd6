"""Grading the counted answers of rebuilt runs, once per distinct answer (DR-006).

The grader caches each grade by (prompt hash, answer text, stop), so a page that shows one run
of a long log grades twenty answers, not all of them, and identical answers are graded once.
"""

from __future__ import annotations

from collections.abc import Callable

from pyapp.core.vocabulary import ModelFailure, Outcome
from pyapp.evaluation.evalset import (
    EVAL_SET_VERSION,
    SET_VERSIONS,
    Case,
    CaseSets,
    case_facts,
    case_prompt,
    is_own_set,
)
from pyapp.explanation.checks import Facts
from pyapp.explanation.grading import Grade, grade_answer
from pyapp.explanation.prompt import Prompt

MAX_CACHED_GRADES = 20_000


# Outcomes are three short strings per answer (the texts are the log's own): many more are kept.
MAX_CACHED_OUTCOMES = 1_000_000


# The detail of an answer the grader failed on: a fault of the grader, said without Python's words.
UNGRADABLE = "the answer could not be graded: the grader failed on it, which is a fault in this site"


class Grader:
    """Grades answers for the cases of today's sets, each distinct answer once.

    One grader may serve many rebuilds (the page keeps one for the worker's life:
    the set, its prompts and the data never change while it runs). ``grade`` is
    the function that grades one answer; tests pass one of their own. With ``remember`` False it keeps no
    grade: its cache's keys are the answers' texts, which a reader of a long log that drops them after grading
    (:class:`pyapp.evaluation.rebuild.RunIndex` with ``lean``) must not keep alive.
    """

    def __init__(self, grade: Callable[[str, str, Facts], Grade] = grade_answer, *, remember: bool = True) -> None:
        self._grade_answer = grade
        self._remember = remember
        self._grades: dict[tuple[str, str, str], Grade] = {}
        # Outcome by (prompt hash, answer text, stop): of every grade made, and those a checkpoint kept.
        self._outcomes: dict[tuple[str, str, str], str] = {}
        self._prompts: dict[str, dict[str, Prompt]] = {}

    def _prompt(self, case: Case, version: str) -> Prompt:
        """Today's prompt of ``case`` of set ``version``, built when first met.

        Keyed by set name and case id: a name always means the same cases, an own set's too.
        """
        by_id = self._prompts.get(version)
        if by_id is None:
            by_id = self._prompts[version] = {}
        found = by_id.get(case.case_id)
        if found is None:
            found = by_id[case.case_id] = case_prompt(case)
        return found

    def prompt_hash(self, case: Case, version: str) -> str:
        """The hash of today's prompt for ``case`` of set ``version``."""
        return self._prompt(case, version).hash

    def stale_reason(self, entry: dict, run_set: str, sets: CaseSets) -> str | None:
        """Why an answered call of a run of set ``run_set`` is stale input (module doc, rule 2), or None.

        ``sets`` says what the names mean in the call's log.
        """
        version = entry["eval_set_version"]
        if is_own_set(version) and not sets.is_known(version):
            return f"asked under {version}, a set of your own cases that this log does not hold"
        if not sets.is_known(version):
            return f"asked under eval set {version}; today's sets are {', '.join(SET_VERSIONS)}"
        if version != run_set:
            return f"asked under eval set {version}, but this run is of {run_set}"
        case = sets.by_id(version).get(entry["case_id"])
        if case is None:
            return f"{entry['case_id']} is not a case of {version}"
        prompt = self._prompt(case, version)
        if entry["prompt_hash"] == prompt.hash:
            return None
        if entry["prompt_version"] != prompt.version:
            return f"asked with prompt {entry['prompt_version']}; today's prompt is {prompt.version}"
        return "the prompt text differs from today's for this case (the data or the search changed)"

    def grade(self, case: Case, answer: str, stop: str, version: str = EVAL_SET_VERSION) -> Grade:
        """The grade of ``answer`` (ended by ``stop``) to ``case`` of set ``version``."""
        prompt = self._prompt(case, version)
        key = (prompt.hash, answer, stop)
        found = self._grades.get(key)
        if found is None:
            try:
                found = self._grade_answer(answer, stop, case_facts(case))
            except Exception:  # noqa: BLE001 - one answer must never stop the page (DR-006)
                found = Grade(Outcome.MODEL_FAILURE, ModelFailure.SCHEMA_MISMATCH, (), None, None, UNGRADABLE)
            if not self._remember:
                return found
            if len(self._grades) >= MAX_CACHED_GRADES:
                self._grades.clear()  # bounds memory on huge logs; a later rebuild just grades again
            self._grades[key] = found
            if len(self._outcomes) < MAX_CACHED_OUTCOMES:
                self._outcomes[key] = found.outcome
        return found

    def outcome(self, case: Case, answer: str, stop: str, version: str = EVAL_SET_VERSION) -> str:
        """The outcome ``grade`` gives, without grading an answer whose outcome is already known."""
        known = self._outcomes.get((self._prompt(case, version).hash, answer, stop))
        return known if known is not None else self.grade(case, answer, stop, version).outcome

    def outcomes(self) -> dict[tuple[str, str, str], str]:
        """Every outcome known, by (prompt hash, answer text, stop), for a log checkpoint (DR-006)."""
        return self._outcomes

    def know(self, outcomes: dict[tuple[str, str, str], str]) -> None:
        """Take outcomes this build's grader gave earlier, kept by a log checkpoint (DR-006)."""
        self._outcomes.update(outcomes)
