"""Evaluation runs as the audit log gives them, every time (DR-006): what a run, a case's result and a
rebuild are. :mod:`pyapp.evaluation.rebuild` makes them from the log; :mod:`pyapp.evaluation.grader`
grades their answers.

There is no store of runs or grades: a run is the call and cancel entries that
share a ``run_id``, and every answer is graded again against facts recomputed
from the data. Explorer calls (``run_id`` None), decisions and ratings are not runs.

The rules, in the order they apply to one run:

1. Entries are taken in time order (ties: their order in the log). A run is of
   the set (``pyapp.evaluation.evalset.SET_VERSIONS``, or a set of the visitor's own cases
   that the log's ``own_case`` entries make, ``pyapp.evaluation.own_cases``) its first call
   of a known set names; a run without one is of :data:`EVAL_SET_VERSION`. Its
   cases are that set's.
2. A call with an answer (logged outcome grounded, not grounded or model failure)
   is **stale input** when its eval-set version is not the run's set, its case
   is not in that set, or its ``prompt_hash`` is not the hash of the prompt the
   site builds for that case today. Stale calls are never graded,
   never counted and their case is asked again on continue.
3. **One answer per case**: the case's answer is the *first* non-stale call with
   an answer, whatever its grade. Later answers for the same case are repeats:
   kept in the log, listed, never counted. So a retried or repeated call can
   never count twice, and asking again cannot replace a bad answer with a good one.
4. Infrastructure failures and cancelled calls (and cancel entries) never count;
   they are listed apart. A case without an answer shows its latest such event.
5. The counted answer is graded with :func:`pyapp.explanation.grading.grade_answer` against
   :func:`pyapp.evaluation.evalset.case_facts`; the logged outcome is kept only to report
   when today's grade differs from it. Grading never raises (a property test
   feeds it hostile answers); should it ever, the answer counts as a model
   failure "could not be graded" rather than stopping the page.

Which cases count, and so every denominator and what a continued run asks, is
known from the log alone; the grade itself is computed the first time it is
read (``CaseResult.grade``) by the :class:`Grader` the rebuild was given, which
caches it by (prompt hash, answer text, stop), so a page that shows one run of a
long log grades twenty answers, not all of them, and identical answers are
graded once. Entries that fail
:func:`pyapp.auditlog.entries.validate_entry` are skipped and counted.
``bench/bench_rebuild.py`` times both steps.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from pyapp.core.vocabulary import CaseStatus
from pyapp.evaluation.evalset import EVAL_SET_VERSION, Case
from pyapp.evaluation.grader import Grader
from pyapp.explanation.grading import Grade

# The statuses of a case that a continued run asks again.
TO_ASK = (CaseStatus.NEVER_ASKED, CaseStatus.CANCELLED, CaseStatus.INFRA_FAILURE, CaseStatus.STALE)


@dataclass(frozen=True)
class CallNote:
    """A call (or cancel entry) that did not count, with why, for the lists beside a run."""

    entry_id: str
    case_id: str | None
    time: str
    reason: str

    def to_json(self) -> dict:
        return {"entry_id": self.entry_id, "case_id": self.case_id, "time": self.time, "reason": self.reason}


@dataclass(frozen=True)
class Decision:
    """The visitor's latest verdict on a counted answer."""

    entry_id: str
    helpful: bool
    note: str


@dataclass(frozen=True)
class CaseResult:
    """One case of one run (``case``, of set ``eval_set_version``): its status, and for a graded case the
    counted call and its answer.

    ``entry_id`` is the counted call, or for an unanswered case the call (or cancel
    entry) behind its status; ``detail`` says why for those.
    """

    case: Case
    status: CaseStatus
    entry_id: str | None = None
    answer_ms: float | None = None
    total_ms: float | None = None
    logged_outcome: str | None = None
    calls: int = 0
    detail: str = ""
    decision: Decision | None = None
    answer: str | None = field(default=None, repr=False)
    stop: str | None = None
    grader: Grader | None = field(default=None, repr=False, compare=False)
    eval_set_version: str = EVAL_SET_VERSION
    given: Grade | None = field(default=None, repr=False, compare=False)  # graded as the log was read (lean)

    @property
    def case_id(self) -> str:
        return self.case.case_id

    @property
    def grade(self) -> Grade | None:
        """Today's grade of the counted answer (None unless graded), by the grader of the rebuild."""
        if self.given is not None:
            return self.given
        if self.status != CaseStatus.GRADED or self.answer is None or self.stop is None or self.grader is None:
            return None
        return self.grader.grade(self.case, self.answer, self.stop, self.eval_set_version)

    @property
    def outcome(self) -> str | None:
        """Today's outcome of the counted answer: the grade's, or the one a log checkpoint kept for it."""
        if self.given is not None:
            return self.given.outcome
        if self.status != CaseStatus.GRADED or self.answer is None or self.stop is None or self.grader is None:
            return None
        return self.grader.outcome(self.case, self.answer, self.stop, self.eval_set_version)


@dataclass(frozen=True)
class Run:
    """A run as the log shows it today. ``cases`` follows its set's order (C01 ... C20 or C80)."""

    run_id: str
    eval_set_version: str
    started: str
    last: str
    settings: dict | None
    mixed_settings: bool
    settings_seen: tuple[dict, ...]
    cases: tuple[CaseResult, ...]
    calls: int
    input_tokens: int
    output_tokens: int
    infrastructure_failures: tuple[CallNote, ...]
    stale: tuple[CallNote, ...]
    cancelled: tuple[CallNote, ...]
    repeats: tuple[CallNote, ...]
    # What the provider said answered its calls, sorted (DR-008); empty when no reply said.
    models_reported: tuple[str, ...] = ()
    fingerprints: tuple[str, ...] = ()

    def case_result(self, case_id: str) -> CaseResult:
        for c in self.cases:
            if c.case_id == case_id:
                return c
        raise KeyError(case_id)

    @property
    def graded(self) -> tuple[CaseResult, ...]:
        return tuple(c for c in self.cases if c.status == CaseStatus.GRADED)

    @property
    def answer_latencies(self) -> list[float]:
        """Latency of the answering request of every counted answer (where the client measured one)."""
        return [c.answer_ms for c in self.graded if c.answer_ms is not None]

    @property
    def complete(self) -> bool:
        return all(c.status == CaseStatus.GRADED for c in self.cases)

    @property
    def regraded_differently(self) -> tuple[str, ...]:
        """Counted calls whose grade today differs from the outcome logged when they were made."""
        return tuple(c.entry_id for c in self.graded if c.outcome != c.logged_outcome)


@dataclass(frozen=True)
class Rebuilt:
    """Every run in the log, and the entries that had to be skipped."""

    runs: tuple[Run, ...]
    skipped: int
    problems: tuple[str, ...]  # the first few reasons, "entry 12 (id ...): ..."

    def __len__(self) -> int:
        return len(self.runs)

    def __iter__(self) -> Iterator[Run]:
        return iter(self.runs)

    def __getitem__(self, index: int) -> Run:
        return self.runs[index]

    def run(self, run_id: str) -> Run:
        for r in self.runs:
            if r.run_id == run_id:
                return r
        known = ", ".join(r.run_id for r in self.runs) or "none"
        raise ValueError(f"no run {run_id!r} in the log (runs: {known})")


def cases_to_ask(run: Run) -> list[str]:
    """Case ids a continued run asks again, in set order: every case without a counted answer."""
    return [c.case_id for c in run.cases if c.status in TO_ASK]
