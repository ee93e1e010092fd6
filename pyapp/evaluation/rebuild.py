"""Runs rebuilt from the audit log by the rules of :mod:`pyapp.evaluation.runs` (DR-006): in one pass over
a log, or kept up to date as entries are appended (:class:`RunIndex`, for the worker)."""

from __future__ import annotations

from collections.abc import Iterable
from operator import itemgetter

from pyapp.auditlog.shared_values import SharedValues
from pyapp.auditlog.validation import validate_entry
from pyapp.core.vocabulary import CaseStatus, EntryType, Outcome
from pyapp.evaluation.evalset import EVAL_SET_VERSION, CaseSets
from pyapp.evaluation.grader import Grader
from pyapp.evaluation.own_cases import OwnCases
from pyapp.evaluation.runs import CallNote, CaseResult, Decision, Rebuilt, Run
from pyapp.explanation.checks import CheckResult
from pyapp.explanation.grading import Grade

MAX_PROBLEMS_KEPT = 20


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

    With ``lean``, each call is kept as only what a run's figures read (:func:`_lean`): an answer is graded as
    it arrives, when its case and today's prompt are known then, and only the grade is kept, without the
    answer's text, claims or prose. The command line so reads a log of any length in memory that grows with
    its runs, not its answers (DR-008); the grader should then be one that keeps no grades
    (``Grader(remember=False)``).
    """

    def __init__(self, grader: Grader, *, validated: bool = False, lean: bool = False) -> None:
        self.grader = grader
        self.validated = validated
        self.lean = lean
        self._shared = SharedValues(exact=False)  # lean: one copy of each repeated text and request's settings
        # lean: one copy of each check verdict, by its fields, and of each grade, by its fields and verdicts
        self._checks: dict[tuple, CheckResult] = {}
        self._grades: dict[tuple, Grade] = {}
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
        self.own = OwnCases()  # the visitor's own cases, and so what each set name means to this log

    def add(self, entries: Iterable[dict]) -> RunIndex:
        """Take the entries that follow the ones already added; returns the index itself."""
        for entry in entries:
            self._add(entry)
        return self

    def add_read(self, lines: Iterable[tuple[dict, GradeFields | None]]) -> RunIndex:
        """:meth:`add` for entries as :func:`pyapp.evaluation.graded_lines.read_graded` reads them, each with
        its answer's grade if it was made as the line was read, and each call or cancel of a run already cut to
        what a lean index keeps of it (:func:`lean_fields`)."""
        for entry, graded in lines:
            self._add(entry, graded, cut=True)
        return self

    def _add(self, entry: dict, graded: GradeFields | None = None, *, cut: bool = False) -> None:
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
        if kind in (EntryType.RATING, EntryType.JUDGEMENT):
            return  # read by pyapp.evaluation.agreement and judge_agreement; they change no run
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
        if self.lean:
            entry = self._lean(dict(entry) if cut else lean_fields(entry), graded)
        self._run_of_call[entry["id"]] = run_id
        self._by_run.setdefault(run_id, []).append((entry["time"], index, entry))
        self._built.pop(run_id, None)

    def _lean(self, lean: dict, graded: GradeFields | None) -> dict:
        """``lean``, a copy of a call or cancel entry cut to what a run's figures read (:func:`lean_fields`),
        with its repeated texts kept once and its answer replaced by its grade (class doc), which may have been
        ``graded`` as the line was read."""
        self._shared.share(lean)
        if lean["type"] == EntryType.CALL:
            if graded is None and lean["answer"] is not None:
                graded = grade_fields(self.grader, self.own.sets, lean)
            grade = None if graded is None else self._kept_grade(graded)
            if grade is not None:
                lean["answer"] = None
            lean["grade"] = grade
        return lean

    def _kept_grade(self, graded: GradeFields) -> Grade:
        """The grade of ``graded``'s fields, one copy of it and of each check verdict kept for every answer that
        has them. Keyed by plain tuples, whose hashes are C's: a dataclass hashes field by field in Python."""
        outcome, failure, detail, verdicts = graded
        kept = self._checks
        checks = tuple([kept.get(verdict) or kept.setdefault(verdict, CheckResult(*verdict)) for verdict in verdicts])
        key = (outcome, failure, detail, *map(id, checks))  # the verdicts kept live as long as the index
        grade = self._grades.get(key)
        if grade is None:
            grade = self._grades[key] = Grade(outcome, failure, checks, None, None, detail)
        return grade

    def run(self, run_id: str) -> Run:
        """One run, built from its own entries only."""
        built = self._built.get(run_id)
        if built is not None:
            return built
        items = self._by_run.get(run_id)
        if items is None:
            return self.rebuilt().run(run_id)  # says which runs there are
        built = _build_run(run_id, sorted(items, key=_when), self.grader, self._decisions, self.own.sets)
        self._built[run_id] = built
        return built

    def rebuilt(self) -> Rebuilt:
        """Every run, oldest first (by start, then id)."""
        runs = sorted((self.run(run_id) for run_id in self._by_run), key=lambda r: (r.started, r.run_id))
        return Rebuilt(tuple(runs), self.skipped, tuple(self.problems))


# A grade as plain values, which pass between processes cheaply: outcome, failure, detail, and each check's
# (name, passed, reason).
GradeFields = tuple[str, str | None, str, tuple[tuple[str, bool, str], ...]]


def grade_fields(grader: Grader, sets: CaseSets, entry: dict) -> GradeFields | None:
    """The grade of the answer of the call ``entry``, if it can count (its case is one of ``sets`` and today's
    prompt the one it answered), or None: its run then grades it, or finds it stale. Without the claims and prose
    no figure reads."""
    if entry["outcome"] in (Outcome.INFRA_FAILURE, Outcome.CANCELLED):
        return None
    version = entry["eval_set_version"]
    case = sets.by_id(version).get(entry["case_id"]) if sets.is_known(version) else None
    if case is None or grader.prompt_hash(case, version) != entry["prompt_hash"]:
        return None
    grade = grader.grade(case, entry["answer"], entry["stop"], version)
    return grade.outcome, grade.failure, grade.detail, tuple([(c.name, c.passed, c.reason) for c in grade.checks])


def lean_fields(entry: dict) -> dict:
    """What a lean index keeps of the call or cancel ``entry`` of a run: what the index and a run's figures read
    (``_build_run``) and, of a call, the answer, until it is graded."""
    read = _CANCEL_READ if entry["type"] == EntryType.CANCEL else \
        _CALL_READ + _FAILURE_READ if entry["outcome"] == Outcome.INFRA_FAILURE else _CALL_READ
    return dict(zip(read, map(entry.get, read), strict=True))  # older calls lack model_reported (DR-008)


# What the index and a run's figures read of a call (of an infrastructure failure, also why it failed) or a
# cancel entry (_build_run).
_CALL_READ = ("id", "type", "run_id", "time", "case_id", "eval_set_version", "prompt_version", "prompt_hash",
              "settings", "outcome", "stop", "answer", "input_tokens", "output_tokens", "answer_ms", "total_ms",
              "model_reported", "system_fingerprint")
_FAILURE_READ = ("status", "error", "message")
_CANCEL_READ = ("id", "type", "run_id", "time", "case_id", "call_id")


# An item of a run's entries, (time, position in the log, entry), by when it happened.
_when = itemgetter(0, 1)


def _settings_key(settings: dict) -> tuple:
    # Values compare by ==, so 0 and 0.0 (a number that went through JavaScript) are the same setting. The names
    # differ, so sorting the pairs never compares two values (which may not compare).
    return tuple(sorted(settings.items()))


def _one_note_per_cancel(notes: list[CallNote], stopped_call: dict[str, str]) -> list[CallNote]:
    """The notes without a cancel entry whose stopped call is itself noted as cancelled: one click, one note."""
    noted = {note.entry_id for note in notes}
    return [note for note in notes if stopped_call.get(note.entry_id) not in noted]


def _build_run(run_id: str, items: list[tuple[str, int, dict]], grader: Grader,
               decisions: dict[str, Decision], sets: CaseSets) -> Run:
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
    keyed: dict[int, tuple] = {}  # the key of each settings object met, by its id (every one lives on in items)
    first_settings: dict | None = None
    calls = input_tokens = output_tokens = 0
    run_set = next((e["eval_set_version"] for _, _, e in items
                    if e["type"] == EntryType.CALL and sets.is_known(e["eval_set_version"])), EVAL_SET_VERSION)
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
        if id(settings) not in keyed:  # the readers share one object for each request's settings (shared_values)
            keyed[id(settings)] = _settings_key(settings)
            settings_seen.setdefault(keyed[id(settings)], settings)
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
        reason = grader.stale_reason(entry, run_set, sets)
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
    for case in sets.cases(run_set):
        case_id = case.case_id
        calls_here = calls_per_case.get(case_id, 0)
        if case_id in counted:
            e = counted[case_id]
            results.append(CaseResult(
                case, CaseStatus.GRADED, e["id"], e["answer_ms"], e["total_ms"], e["outcome"], calls_here,
                decision=decisions.get(e["id"]), answer=e["answer"], stop=e["stop"], grader=grader,
                eval_set_version=run_set, given=e.get("grade"),
            ))
        elif case_id in pending:
            status, note = pending[case_id]
            results.append(CaseResult(case, status, entry_id=note.entry_id, calls=calls_here,
                                      detail=note.reason, eval_set_version=run_set))
        else:
            results.append(CaseResult(case, CaseStatus.NEVER_ASKED, calls=calls_here, eval_set_version=run_set))
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
