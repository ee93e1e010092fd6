"""Evaluation runs rebuilt from the audit log, every time (DR-006).

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

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from pyapp.auditlog.validation import validate_entry
from pyapp.core.collector import gc_paused
from pyapp.core.vocabulary import CaseStatus, EntryType, ModelFailure, Outcome
from pyapp.evaluation.evalset import (
    EVAL_SET_VERSION,
    SET_VERSIONS,
    case,
    case_facts,
    case_ids,
    case_prompt,
    cases,
    is_known_set,
    is_own_set,
)
from pyapp.evaluation.own_cases import OwnCases
from pyapp.explanation.checks import Facts
from pyapp.explanation.grading import Grade, grade_answer
from pyapp.explanation.prompt import Prompt

# The statuses of a case that a continued run asks again.
TO_ASK = (CaseStatus.NEVER_ASKED, CaseStatus.CANCELLED, CaseStatus.INFRA_FAILURE, CaseStatus.STALE)

MAX_PROBLEMS_KEPT = 20
MAX_CACHED_GRADES = 20_000
# Outcomes are three short strings per answer (the texts are the log's own): many more are kept.
MAX_CACHED_OUTCOMES = 1_000_000
# The detail of an answer the grader failed on: a fault of the grader, said without Python's words.
UNGRADABLE = "the answer could not be graded: the grader failed on it, which is a fault in this site"


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
    """One case of one run: its status, and for a graded case the counted call and its answer.

    ``entry_id`` is the counted call, or for an unanswered case the call (or cancel
    entry) behind its status; ``detail`` says why for those.
    """

    case_id: str
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

    @property
    def grade(self) -> Grade | None:
        """Today's grade of the counted answer (None unless graded), by the grader of the rebuild."""
        if self.status != CaseStatus.GRADED or self.answer is None or self.stop is None or self.grader is None:
            return None
        return self.grader.grade(self.case_id, self.answer, self.stop, self.eval_set_version)

    @property
    def outcome(self) -> str | None:
        """Today's outcome of the counted answer: the grade's, or the one a log checkpoint kept for it."""
        if self.status != CaseStatus.GRADED or self.answer is None or self.stop is None or self.grader is None:
            return None
        return self.grader.outcome(self.case_id, self.answer, self.stop, self.eval_set_version)


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


# --------------------------------------------------------------------------- grading


class Grader:
    """Grades answers for the cases of today's sets, each distinct answer once.

    One grader may serve many rebuilds (the page keeps one for the worker's life:
    the set, its prompts and the data never change while it runs). ``grade`` is
    the function that grades one answer; tests pass one of their own.
    """

    def __init__(self, grade: Callable[[str, str, Facts], Grade] = grade_answer) -> None:
        self._grade_answer = grade
        self._grades: dict[tuple[str, str, str], Grade] = {}
        # Outcome by (prompt hash, answer text, stop): of every grade made, and those a checkpoint kept.
        self._outcomes: dict[tuple[str, str, str], str] = {}
        self._prompts: dict[str, dict[str, Prompt]] = {}

    def _current(self, version: str) -> dict[str, Prompt]:
        """Today's prompt of every case of set ``version``, built when that set is first met."""
        found = self._prompts.get(version)
        if found is None:
            found = self._prompts[version] = {c.case_id: case_prompt(c) for c in cases(version)}
        return found

    def stale_reason(self, entry: dict, run_set: str = EVAL_SET_VERSION) -> str | None:
        """Why an answered call of a run of set ``run_set`` is stale input (module doc, rule 2), or None."""
        version = entry["eval_set_version"]
        if is_own_set(version) and not is_known_set(version):
            return f"asked under {version}, a set of your own cases that this log does not hold"
        if not is_known_set(version):
            return f"asked under eval set {version}; today's sets are {', '.join(SET_VERSIONS)}"
        if version != run_set:
            return f"asked under eval set {version}, but this run is of {run_set}"
        prompt = self._current(version).get(entry["case_id"])
        if prompt is None:
            return f"{entry['case_id']} is not a case of {version}"
        if entry["prompt_hash"] == prompt.hash:
            return None
        if entry["prompt_version"] != prompt.version:
            return f"asked with prompt {entry['prompt_version']}; today's prompt is {prompt.version}"
        return "the prompt text differs from today's for this case (the data or the search changed)"

    def grade(self, case_id: str, answer: str, stop: str, version: str = EVAL_SET_VERSION) -> Grade:
        prompt = self._current(version)[case_id]
        key = (prompt.hash, answer, stop)
        found = self._grades.get(key)
        if found is None:
            try:
                found = self._grade_answer(answer, stop, case_facts(case(case_id, version)))
            except Exception:  # noqa: BLE001 - one answer must never stop the page (DR-006)
                found = Grade(Outcome.MODEL_FAILURE, ModelFailure.SCHEMA_MISMATCH, (), None, None, UNGRADABLE)
            if len(self._grades) >= MAX_CACHED_GRADES:
                self._grades.clear()  # bounds memory on huge logs; a later rebuild just grades again
            self._grades[key] = found
            if len(self._outcomes) < MAX_CACHED_OUTCOMES:
                self._outcomes[key] = found.outcome
        return found

    def outcome(self, case_id: str, answer: str, stop: str, version: str = EVAL_SET_VERSION) -> str:
        """The outcome ``grade`` gives, without grading an answer whose outcome is already known."""
        known = self._outcomes.get((self._current(version)[case_id].hash, answer, stop))
        return known if known is not None else self.grade(case_id, answer, stop, version).outcome

    def outcomes(self) -> dict[tuple[str, str, str], str]:
        """Every outcome known, by (prompt hash, answer text, stop), for a log checkpoint (DR-006)."""
        return self._outcomes

    def know(self, outcomes: dict[tuple[str, str, str], str]) -> None:
        """Take outcomes this build's grader gave earlier, kept by a log checkpoint (DR-006)."""
        self._outcomes.update(outcomes)


# --------------------------------------------------------------------------- rebuilding


def rebuild(entries: Iterable[dict], *, validated: bool = False, grader: Grader | None = None) -> Rebuilt:
    """Every run in ``entries`` (an audit log), oldest first, and the corrupt entries skipped.

    The result is a sequence of :class:`Run` (``len``, index, iterate) that also
    carries ``.runs``, ``.skipped`` and ``.problems``. ``validated=True`` skips
    :func:`pyapp.auditlog.entries.validate_entry` for entries :func:`pyapp.evaluation.export.parse_import`
    has just checked. The cases' grades come from ``grader`` (a new one when None).
    """
    return RunIndex(grader or Grader(), validated=validated).add(entries).rebuilt()


class RunIndex:
    """The log's entries grouped by run, fed in log order as the log grows (DR-006).

    A run is built when first asked for and kept until an entry of its own (or a
    verdict on one of its calls) arrives, so showing one run's detail builds that
    run alone, and a log read once need not be regrouped when entries are added.
    """

    def __init__(self, grader: Grader, *, validated: bool = False) -> None:
        self.grader = grader
        self.validated = validated
        self.skipped = 0
        self.run_calls = 0  # call entries that belong to a run
        self.problems: list[str] = []
        self._added = 0
        self._seen: set[str] = set()
        self._by_run: dict[str, list[tuple[str, int, dict]]] = {}
        self._run_of_call: dict[str, str] = {}
        self._decided: dict[str, str] = {}  # call id -> time of its latest verdict
        self._decisions: dict[str, Decision] = {}  # call id -> its latest verdict
        self._built: dict[str, Run] = {}
        self.own = OwnCases()  # the visitor's own cases (pyapp.evaluation.own_cases)

    def add(self, entries: Iterable[dict]) -> RunIndex:
        """Take the entries that follow the ones already added; returns the index itself."""
        with gc_paused():
            for entry in entries:
                self._add(entry)
        return self

    def _add(self, entry: dict) -> None:
        index = self._added
        self._added += 1
        reasons = [] if self.validated else validate_entry(entry)
        if not reasons and entry["id"] in self._seen:
            reasons = ["id: appears earlier in the log"]
        if reasons:
            self.skipped += 1
            if len(self.problems) < MAX_PROBLEMS_KEPT:
                ident = entry.get("id") if isinstance(entry, dict) else None
                label = f"entry {index + 1}" + (f" (id {str(ident)[:64]})" if isinstance(ident, str) else "")
                self.problems.append(f"{label}: {'; '.join(reasons)}")
            return
        self._seen.add(entry["id"])
        kind = entry["type"]
        if kind == EntryType.DECISION:
            call_id = entry["call_id"]
            previous = self._decided.get(call_id)
            if previous is None or entry["time"] >= previous:
                self._decided[call_id] = entry["time"]
                self._decisions[call_id] = Decision(entry["id"], entry["helpful"], entry["note"])
                self._built.pop(self._run_of_call.get(call_id, ""), None)
            return
        if kind == EntryType.RATING:
            return  # ratings are read by pyapp.evaluation.agreement; they change no run
        if kind == EntryType.PLAN:  # about configurations, not a run (pyapp.evaluation.plans)
            return
        if kind == EntryType.OWN_CASE:  # a new state of the visitor's set: runs of it may now be rebuilt
            if self.own.add(entry):
                self._built.clear()
            return
        run_id = entry["run_id"]
        if run_id is None:
            return
        if kind == EntryType.CALL:
            self.run_calls += 1
        self._run_of_call[entry["id"]] = run_id
        self._by_run.setdefault(run_id, []).append((entry["time"], index, entry))
        self._built.pop(run_id, None)

    def run(self, run_id: str) -> Run:
        """One run, built from its own entries only."""
        built = self._built.get(run_id)
        if built is not None:
            return built
        items = self._by_run.get(run_id)
        if items is None:
            return self.rebuilt().run(run_id)  # says which runs there are
        with gc_paused():
            built = _build_run(run_id, sorted(items, key=_when), self.grader, self._decisions)
        self._built[run_id] = built
        return built

    def rebuilt(self) -> Rebuilt:
        """Every run, oldest first (by start, then id)."""
        runs = sorted((self.run(run_id) for run_id in self._by_run), key=lambda r: (r.started, r.run_id))
        return Rebuilt(tuple(runs), self.skipped, tuple(self.problems))


def _when(item: tuple[str, int, dict]) -> tuple[str, int]:
    return item[0], item[1]


def _settings_key(settings: dict) -> tuple:
    # Values compare by ==, so 0 and 0.0 (a number that went through JavaScript) are the same setting.
    return tuple(sorted(settings.items(), key=lambda item: item[0]))


def _one_note_per_cancel(notes: list[CallNote], stopped_call: dict[str, str]) -> list[CallNote]:
    """The notes without a cancel entry whose stopped call is itself noted as cancelled: one click, one note."""
    noted = {note.entry_id for note in notes}
    return [note for note in notes if stopped_call.get(note.entry_id) not in noted]


def _build_run(run_id: str, items: list[tuple[str, int, dict]], grader: Grader,
               decisions: dict[str, Decision]) -> Run:
    counted: dict[str, dict] = {}
    # The latest event of a case that has no counted answer: (status, CallNote).
    pending: dict[str, tuple[CaseStatus, CallNote]] = {}
    calls_per_case: dict[str, int] = {}
    infra: list[CallNote] = []
    stale: list[CallNote] = []
    cancelled: list[CallNote] = []
    stopped_call: dict[str, str] = {}  # cancel entry id -> the id of the call it stopped
    repeats: list[CallNote] = []
    settings_seen: dict[tuple, dict] = {}
    first_settings: dict | None = None
    calls = input_tokens = output_tokens = 0
    run_set = next((e["eval_set_version"] for _, _, e in items
                    if e["type"] == EntryType.CALL and is_known_set(e["eval_set_version"])), EVAL_SET_VERSION)
    models: set[str] = set()
    fingerprints: set[str] = set()
    for time, _, entry in items:
        case_id = entry["case_id"]
        if entry["type"] == EntryType.CANCEL:
            note = CallNote(entry["id"], case_id, time, "cancelled by the visitor")
            cancelled.append(note)
            if entry["call_id"] is not None:
                stopped_call[entry["id"]] = entry["call_id"]
            if case_id not in counted:
                pending[case_id] = (CaseStatus.CANCELLED, note)
            continue
        calls += 1
        calls_per_case[case_id] = calls_per_case.get(case_id, 0) + 1
        input_tokens += entry["input_tokens"] or 0
        output_tokens += entry["output_tokens"] or 0
        if entry.get("model_reported"):  # older entries lack the key (DR-008)
            models.add(entry["model_reported"])
        if entry.get("system_fingerprint"):
            fingerprints.add(entry["system_fingerprint"])
        settings = entry["settings"]
        settings_seen.setdefault(_settings_key(settings), settings)
        if first_settings is None:
            first_settings = settings
        outcome = entry["outcome"]
        if outcome == Outcome.INFRA_FAILURE:
            note = CallNote(entry["id"], case_id, time, _failure_text(entry))
            infra.append(note)
            if case_id not in counted:
                pending[case_id] = (CaseStatus.INFRA_FAILURE, note)
            continue
        if outcome == Outcome.CANCELLED:
            note = CallNote(entry["id"], case_id, time, "cancelled while the call was running")
            cancelled.append(note)
            if case_id not in counted:
                pending[case_id] = (CaseStatus.CANCELLED, note)
            continue
        reason = grader.stale_reason(entry, run_set)
        if reason is not None:
            note = CallNote(entry["id"], case_id, time, reason)
            stale.append(note)
            if case_id not in counted:
                pending[case_id] = (CaseStatus.STALE, note)
            continue
        if case_id in counted:
            repeats.append(CallNote(entry["id"], case_id, time,
                                    f"{case_id} already has the answer of call {counted[case_id]['id']}"))
            continue
        counted[case_id] = entry
        pending.pop(case_id, None)
    results = []
    for case_id in case_ids(run_set):
        calls_here = calls_per_case.get(case_id, 0)
        if case_id in counted:
            e = counted[case_id]
            results.append(CaseResult(
                case_id, CaseStatus.GRADED, e["id"], e["answer_ms"], e["total_ms"], e["outcome"], calls_here,
                decision=decisions.get(e["id"]), answer=e["answer"], stop=e["stop"], grader=grader,
                eval_set_version=run_set,
            ))
        elif case_id in pending:
            status, note = pending[case_id]
            results.append(CaseResult(case_id, status, entry_id=note.entry_id, calls=calls_here,
                                      detail=note.reason))
        else:
            results.append(CaseResult(case_id, CaseStatus.NEVER_ASKED, calls=calls_here))
    seen = [settings_seen[k] for k in sorted(settings_seen, key=repr)]
    return Run(
        run_id=run_id,
        eval_set_version=run_set,
        started=items[0][0],
        last=items[-1][0],
        settings=first_settings,
        mixed_settings=len(seen) > 1,
        settings_seen=tuple(seen),
        cases=tuple(results),
        calls=calls,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        infrastructure_failures=tuple(infra),
        stale=tuple(stale),
        cancelled=tuple(_one_note_per_cancel(cancelled, stopped_call)),
        repeats=tuple(repeats),
        models_reported=tuple(sorted(models)),
        fingerprints=tuple(sorted(fingerprints)),
    )


def _failure_text(entry: dict) -> str:
    status = entry["status"]
    head = entry["error"] + (f" (HTTP {status})" if status is not None else "")
    message = entry["message"]
    return f"{head}: {message}" if message else head


def cases_to_ask(run: Run | None, version: str = EVAL_SET_VERSION) -> list[str]:
    """Case ids a continued run asks again, in set order: every case without a counted answer.

    ``None`` (a new run) gives every case of set ``version``.
    """
    if run is None:
        return list(case_ids(version))
    return [c.case_id for c in run.cases if c.status in TO_ASK]
