"""The edge between pyapp and the browser (DR-002).

The worker calls ``handle(op, args_json)``; every operation is a thin wrapper
around pure pyapp functions. Browser modules (``js``, ``pyodide``, the worker's
audit store) are imported inside functions, so this module still imports on
CPython.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import json
import sys
from collections.abc import Callable

from . import __version__
from .vocabulary import EntryType

OPS: dict[str, Callable] = {}


def op(function: Callable) -> Callable:
    """Register ``function`` as an operation the page can call by its name."""
    OPS[function.__name__] = function
    return function


def hello() -> str:
    return json.dumps({"python": ".".join(map(str, sys.version_info[:3])), "pyapp": __version__})


def after_restore() -> None:
    """Reseed ``random`` in an interpreter restored from a memory snapshot (DR-002).

    Pyodide's own start-up imports ``random``, so every restored visit would otherwise draw the
    same numbers. Ids and tokens use ``os.urandom`` and need nothing.
    """
    import random

    random.seed()


# Every pyapp module an operation below imports on its first call. The worker that makes the
# start-up snapshot imports them all before taking it, so a visit restored from it skips those
# imports (DR-002); tests/test_orchestration.py checks the list against this file.
OPERATION_MODULES = (
    "agreement", "agreement_tables", "audit", "baseline", "client", "configurations", "cost", "evalset",
    "baseline_diff", "collector", "experiment", "experiment_page", "explorer", "export", "formatting", "log_checkpoint", "own_cases", "page_content",
    "plans", "providers", "rating", "reject_rules", "repeat_report", "report", "rubric", "runner", "runs",
    "strict_json", "walkthrough",
)


def import_operation_modules() -> None:
    """Import ``OPERATION_MODULES``: none of them touches the browser when imported."""
    for name in OPERATION_MODULES:
        importlib.import_module(f"{__package__}.{name}")


def after_answer() -> None:
    """What an operation leaves for after its answer has reached the page: keeping the log's read (DR-006).

    The worker calls it after posting each answer, so the runs list is not held up by it.
    """
    LOG.keep_when_due()


async def handle(name: str, args_json: str) -> str:
    """Run operation ``name`` with keyword arguments from JSON.

    Returns ``{"ok": true, "value": ...}`` or ``{"ok": false, "error": sentence}`` as JSON, so the
    page shows the sentence an operation raised, never a traceback or an exception's class name.
    """
    try:
        if name not in OPS:
            raise ValueError(f"unknown operation {name!r}")
        value = OPS[name](**json.loads(args_json))
        if inspect.isawaitable(value):
            value = await value
    except (ValueError, RuntimeError) as exc:  # what operations raise for a visitor to read
        return json.dumps({"ok": False, "error": str(exc)})
    except Exception as exc:  # noqa: BLE001 - a fault in pyapp itself: say so instead of failing silently
        return json.dumps({"ok": False, "error": f"Internal error in pyapp ({type(exc).__name__}): {exc}"})
    return json.dumps({"ok": True, "value": value})


@op
def version() -> dict:
    return json.loads(hello())


@op
def tree_view(order: str) -> dict:
    from .explorer import tree_view as view

    return view(order)


@op
def search_view(order: str, kind: str, lon: float, lat: float, radius: float | None = None) -> dict:
    from .explorer import search_view as view

    return view(order, kind, lon, lat, radius)


# --- the audited client in the worker (DR-005) --------------------------------------

async def transport(request):
    """Send one HTTP request with ``fetch``, abortable by the page's cancel button and by the time limit."""
    from kdt_worker import cancel_requested, new_signal
    from pyodide.http import pyfetch

    from .client import DEFAULT_POLICY, Cancelled, HttpResponse, NetworkError, TimedOut

    limit_s = DEFAULT_POLICY.request_timeout_s
    sent = clock_ms()
    try:
        response = await pyfetch(request.url, method=request.method, headers=request.headers, body=request.body,
                                 signal=new_signal(limit_s * 1000))
        body = await response.string()
    except Exception as exc:  # pyfetch turns every fetch rejection into an AbortError; none carries the key
        if cancel_requested():
            raise Cancelled() from None
        # A refused request also arrives as an AbortError ("Failed to fetch"); only the time limit's
        # reason says "timed out" (AbortSignal.timeout), and the clock confirms it.
        if "timed out" in str(exc).lower() or clock_ms() - sent >= limit_s * 1000:
            raise TimedOut(f"no answer within {limit_s:g} s") from None
        reason = "the request failed (a network error, or the server refused the browser's request)"
        raise NetworkError(reason) from None
    return HttpResponse(response.status, dict(response.headers), body)


class ProgressLine:
    """The running call's progress for the page: sent on every change and again every second (DR-005).

    The page only places ``text``; the elapsed seconds are counted here.
    """

    def __init__(self) -> None:
        self.label = ""
        self.state = None
        self.running = True

    def show(self, label: str, state) -> None:
        self.label, self.state = label, state
        self.send()

    def send(self) -> None:
        if self.running and self.state is not None:
            emit({"type": "progress", "text": f"{self.label}: {self.state.text(clock_ms())}."})

    async def tick(self) -> None:
        import asyncio

        while self.running:
            await asyncio.sleep(1)
            self.send()

    def __enter__(self) -> ProgressLine:
        import asyncio

        asyncio.ensure_future(self.tick())
        return self

    def __exit__(self, *exc: object) -> None:
        self.running = False


async def sleep(seconds: float) -> None:
    """Wait, in short slices so that a cancel is noticed at once."""
    import asyncio
    import time

    from kdt_worker import cancel_requested

    from .client import Cancelled

    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        if cancel_requested():
            raise Cancelled()
        await asyncio.sleep(min(left, 0.1))


def clock_ms() -> float:
    import time

    return time.monotonic() * 1000


def cancelled() -> bool:
    from kdt_worker import cancel_requested

    return bool(cancel_requested())


async def append_entries(entries: list[dict]) -> None:
    """Append to the IndexedDB audit log; a failed write is an error the visitor sees."""
    from kdt_audit_store import append

    try:
        await append(json.dumps(entries))
    except Exception as exc:
        reason = str(exc).removeprefix("Error: ")
        raise RuntimeError(
            f"The audit log could not be written ({reason}); browser storage may be full or blocked. "
            "Nothing was shown, so nothing unrecorded was used."
        ) from None


class LogCache:
    """The audit log as this worker has read it: parsed and validated once (DR-006).

    Every read asks the store, in one transaction, for the records from the last one
    seen on and for how many it holds, so the worker's own appends and another tab's
    are both picked up without reading the rest again. If the last record seen is no
    longer there as it was, or the count does not add up (the site's storage was
    cleared), the log is read again from the start. The runs index is fed the same way.
    A new worker starts from the checkpoint an earlier one kept (``pyapp.log_checkpoint``)
    and reads only the records stored since, checked the same way.
    """

    def __init__(self) -> None:
        self.reset()
        self.restored = False  # whether the first read has looked for a checkpoint

    def reset(self) -> None:
        self.entries: list[dict] = []
        self.corrupt = 0
        self.last: list = [0, None]  # the last record read: [sequence number, its text]
        self.records = 0
        self.checkpointed = (0, 0)  # records and outcomes in the checkpoint last restored or kept
        self.index = None  # a pyapp.runs.RunIndex, made on first use

    async def refresh(self) -> LogCache:
        from kdt_audit_store import readFrom

        if not self.restored:
            self.restored = True
            await self._restore()
        answer = json.loads(await readFrom(self.last[0]))
        rows = answer["rows"]
        if self.last[0]:
            if not rows or rows[0] != self.last or answer["count"] != self.records + len(rows) - 1:
                self.reset()
                answer = json.loads(await readFrom(0))
                rows = answer["rows"]
            else:
                rows = rows[1:]
        self._take(rows)
        self.records = answer["count"]
        return self

    def _take(self, rows: list) -> None:
        from . import strict_json
        from .audit import validate_entry
        from .collector import gc_paused

        added = []
        with gc_paused():  # thousands of small dicts and no cycles: the collector's passes only cost time
            for row in rows:
                self.last = row
                text = row[1]
                if not isinstance(text, str):  # a record without its JSON text
                    self.corrupt += 1
                    continue
                try:
                    # Bounded for the parser's sake only: no valid entry nests more than two levels,
                    # so a deeper one is refused by its validation below, as an import refuses it.
                    entry = strict_json.loads(text)
                except (ValueError, RecursionError):
                    self.corrupt += 1
                    continue
                if validate_entry(entry):
                    self.corrupt += 1
                else:
                    added.append(entry)
        self.entries.extend(added)
        if self.index is not None:
            self.index.add(added)

    async def _restore(self) -> None:
        """Start from the checkpoint this browser kept for this build, if it has a sound one (DR-006)."""
        from kdt_worker import kept_log, mark

        from .collector import gc_paused
        from .log_checkpoint import loads

        kept = await kept_log()
        if kept is None:
            return
        with gc_paused():
            checkpoint = loads(kept.to_bytes())
        if checkpoint is None:
            return
        self.entries, self.corrupt, self.last = checkpoint.entries, checkpoint.corrupt, checkpoint.last
        self.records = checkpoint.records
        grader().know(checkpoint.outcomes)
        self.checkpointed = (checkpoint.records, len(grader().outcomes()))
        mark("audit-log-restored", checkpoint.records)

    def keep_when_due(self) -> None:
        """Keep a checkpoint of this read once it holds enough records or outcomes the last one did not.

        The worker compresses and stores it in the background; a write that fails costs only the
        next reopened page a full read (DR-006).
        """
        from kdt_worker import keep_log
        from pyodide.ffi import to_js

        from .log_checkpoint import EVERY, Checkpoint, dumps

        outcomes = grader().outcomes()
        if self.records != len(self.entries) + self.corrupt or (
                self.records - self.checkpointed[0] < EVERY and len(outcomes) - self.checkpointed[1] < EVERY):
            return
        keep_log(to_js(dumps(Checkpoint(self.entries, self.corrupt, self.last, self.records, outcomes))))
        self.checkpointed = (self.records, len(outcomes))

    def runs(self):
        """The runs index of the entries read so far, graded by the worker's grader."""
        if self.index is None:
            from .runs import RunIndex

            self.index = RunIndex(grader(), validated=True).add(self.entries)
        return self.index


LOG = LogCache()


async def read_entries() -> tuple[list[dict], int]:
    """Every valid audit entry, oldest first, and the number of unreadable ones skipped (never raises on one)."""
    log = await LOG.refresh()
    return list(log.entries), log.corrupt


@op
async def explain(search: dict, settings: dict, api_key: str | None) -> dict:
    from .providers import Settings
    from .walkthrough import explain as explain_search

    with ProgressLine() as line:
        explained = await explain_search(
            search, Settings.from_dict(settings), api_key, transport=transport, sleep=sleep, clock=clock_ms,
            append=append_entries, cancelled=cancelled, progress=lambda state: line.show("Asking the model", state),
        )
    return explained.to_json()


@op
async def record_decision(call_id: str, helpful: bool, note: str) -> dict:
    from datetime import UTC, datetime

    from .audit import decision_entry, new_entry_id

    entry = decision_entry(new_entry_id(), datetime.now(UTC), call_id, helpful, note)
    await append_entries([entry])
    return entry


@op
async def audit_log() -> dict:
    """The calls in the log, newest first, without their answer texts (the list shows no answers)."""
    from .formatting import fmt_whole

    entries, corrupt = await read_entries()
    calls = [{**{key: value for key, value in entry.items() if key != "answer"},
              "answer_ms_text": "–" if entry["answer_ms"] is None else fmt_whole(entry["answer_ms"]),
              "total_ms_text": fmt_whole(entry["total_ms"])}
             for entry in reversed(entries) if entry["type"] == EntryType.CALL]
    return {"calls": calls, "corrupt": corrupt}


@op
async def export_audit(format: str, run_id: str | None = None, explorer: bool = False) -> str:  # noqa: A002
    from .export import export_csv, export_json

    entries, _ = await read_entries()
    if format == "json":
        return export_json(entries, run_id, explorer=explorer)
    return export_csv(entries, run_id)


# --- the evaluation page (DR-006) ---------------------------------------------------


def emit(event: dict) -> None:
    from kdt_worker import emit as post

    post(json.dumps(event))


async def own_sets_read(set_version: str | None) -> None:
    """Read the log first when ``set_version`` names a set of the visitor's own cases: its cases are in the log."""
    from .evalset import is_own_set

    if is_own_set(set_version):
        (await LOG.refresh()).runs()  # the runs index registers every state of the visitor's set (pyapp.own_cases)


@op
async def evalset(set_version: str | None = None) -> dict:
    """One set as the page shows it (default: the first), and what each set can show (DR-009)."""
    from .evalset import EVAL_SET_VERSION
    from .page_content import evalset_page

    await own_sets_read(set_version)
    return evalset_page(set_version or EVAL_SET_VERSION)


@op
async def own_set() -> dict | None:
    """The visitor's own set as the set choice offers it (None while it has no case), labelled as theirs."""
    from .own_cases import set_label
    from .report import set_guidance

    mine = (await LOG.refresh()).runs().own
    if mine.name is None:
        return None
    guidance = set_guidance([mine.name])[0]
    return {"eval_set_version": mine.name, "cases": len(mine.cases), "label": set_label(mine.name),
            "option": f"{set_label(mine.name)} ({len(mine.cases)} cases)", "text": guidance["text"]}


@op
async def add_own_case(search: dict) -> dict:
    """Keep ``search`` as one of the visitor's own cases (DR-009); a search already kept is not added again."""
    from datetime import UTC, datetime

    from .audit import new_entry_id
    from .own_cases import MAX_OWN_CASES, own_case_entry

    entry = own_case_entry(new_entry_id(), datetime.now(UTC), search)
    mine = (await LOG.refresh()).runs().own
    known = mine.case_id_of(entry["search"])
    if known is not None:
        return {"added": False, "text": f"This search is already {known} of your cases. {mine.summary()}"}
    if mine.full:
        raise ValueError(f"Your cases already hold {MAX_OWN_CASES} searches, the most a set takes; "
                         "this one was not added.")
    await append_entries([entry])
    mine = (await LOG.refresh()).runs().own
    return {"added": True, "text": f"Added as {mine.case_id_of(entry['search'])}. {mine.summary()} "
                                   "Run them on the evaluation page."}


@functools.cache
def grader():
    """The worker's one grader: the set, its prompts and the data never change while the worker runs,
    so each distinct answer is graded once however often the pages ask."""
    from .runs import Grader

    return Grader()


# A first read, or this many new entries, is kept out of the garbage collector's passes (pyapp.runs.gc_paused).
KEPT_FROM = 1_000


@op
async def eval_overview() -> dict:
    """The runs list, newest first, from the log's runs index (the detail of a run is ``run_detail``)."""
    from .collector import gc_paused
    from .report import rate_ticks, runs_message, runs_overview

    first, before = LOG.index is None, len(LOG.entries)
    with gc_paused(keep=lambda: first or len(LOG.entries) - before >= KEPT_FROM):
        log = await LOG.refresh()
        index = log.runs()
        rebuilt = index.rebuilt()
        runs = sorted(rebuilt.runs, key=lambda run: run.started, reverse=True)
        shown = runs_overview(runs)
    corrupt = log.corrupt + rebuilt.skipped
    return {"runs": shown, "calls": index.run_calls, "corrupt": corrupt, "rate_ticks": rate_ticks(),
            "message": runs_message(len(shown), index.run_calls, corrupt)}


@op
async def run_detail(run_id: str) -> dict:
    from .report import run_report

    return run_report((await LOG.refresh()).runs().run(run_id))


@op
async def compare_runs(run_a: str, run_b: str) -> dict:
    from .report import compare_report

    index = (await LOG.refresh()).runs()
    return compare_report(index.run(run_a), index.run(run_b))


@op
async def configurations() -> dict:
    """The runs grouped by configuration, with the figures of repeated runs (DR-008)."""
    from .repeat_report import configurations_report

    return configurations_report(list((await LOG.refresh()).runs().rebuilt().runs))


@op
async def compare_configurations(x: str, y: str) -> dict:
    """Configuration ``y`` against ``x``, as ``python -m pyapp compare --config X --config Y`` prints it."""
    from .configurations import group_runs
    from .plans import plans_in
    from .repeat_report import configuration_compare_report

    log = await LOG.refresh()
    return configuration_compare_report(group_runs(list(log.runs().rebuilt().runs)), x, y, plans_in(log.entries))


@op
async def plans() -> list[dict]:
    """The registered plans, newest first, with their times as a person reads them."""
    from .plans import plans_in, when_text

    return [{**plan, "when": when_text(plan["time"])}
            for plan in reversed(plans_in((await LOG.refresh()).entries))]


@op
async def register_plan(x: str, y: str, rule: str, note: str, settings: dict, set_version: str | None = None) -> dict:
    """Append a plan comparing ``y`` against ``x``; either may be ``"form"``: the settings and set chosen now."""
    from datetime import UTC, datetime

    from .audit import new_entry_id
    from .configurations import configuration_for
    from .evalset import EVAL_SET_VERSION
    from .plans import plan_entry
    from .providers import Settings

    def named(name: str) -> str:
        if name != "form":
            return name
        return configuration_for(Settings.from_dict(settings).to_dict(), set_version or EVAL_SET_VERSION).id

    await own_sets_read(set_version)
    entry = plan_entry(new_entry_id(), datetime.now(UTC), named(x), named(y), rule, note)
    await append_entries([entry])
    return entry


@op
async def run_eval(run_id: str | None, settings: dict, api_key: str | None, set_version: str | None = None) -> dict:
    from kdt_worker import acquire_lock

    from .providers import Settings
    from .runner import new_run_id
    from .runner import run_eval as run

    settings = Settings.from_dict(settings)
    await own_sets_read(set_version)
    fresh = run_id is None
    run_id = run_id or new_run_id()
    # Web Locks: a second tab cannot run the same run at the same time.
    release = await acquire_lock(f"kd-explorer-run:{run_id}")
    if release is None:
        raise RuntimeError(f"run {run_id} is already running in another tab of this browser")
    try:
        async def run_of(run_id: str):
            return (await LOG.refresh()).runs().run(run_id)

        with ProgressLine() as line:
            return await run(run_id, fresh, settings, api_key, read_run=run_of, append=append_entries,
                             emit=emit, cancelled=cancelled, progress=line.show, transport=transport, sleep=sleep,
                             clock=clock_ms, **({"set_version": set_version} if set_version else {}))
    finally:
        release()


# --- rating against the rubric (DR-009) ----------------------------------------------


@op
def rubric() -> dict:
    from .rubric import RUBRIC

    return RUBRIC.to_json()


@op
async def rating_queue(run_id: str, rater: str) -> list[dict]:
    """The counted answers of ``run_id`` for ``rater`` to rate blind: no grades, no other rater's ratings."""
    from .audit import valid_rater
    from .rating import rating_queue as queue

    if not valid_rater(rater):
        raise ValueError("Type your name as the rater first (at most 40 characters, no line breaks).")
    log = await LOG.refresh()
    return queue(log.runs().run(run_id), log.entries, rater)


@op
async def record_rating(call_id: str, rater: str, answers: dict, note: str = "") -> dict:
    from datetime import UTC, datetime

    from .audit import new_entry_id, rating_entry
    from .rubric import RUBRIC

    entry = rating_entry(new_entry_id(), datetime.now(UTC), call_id, rater, RUBRIC.version, answers, note)
    await append_entries([entry])
    return entry


@op
async def agreement() -> dict:
    """The agreement figures of the whole log as the page's tables, and the text ``python -m pyapp agreement``
    prints for them."""
    from .agreement import agreement_report, format_agreement_report
    from .agreement_tables import agreement_tables

    log = await LOG.refresh()
    report = agreement_report(log.entries, list(log.runs().rebuilt()))
    return {"report": report, "tables": agreement_tables(report), "text": format_agreement_report(report)}


@op
async def import_audit(data: str) -> dict:
    """Import a JSON export whose bytes arrive base64-encoded, so Python decodes them as the command line does.

    Every entry is checked before anything is written, and the entries are written in one
    transaction: a refused file appends nothing. Every refusal says so, in the command line's words.
    """
    import base64
    import binascii

    from .export import merge, parse_import

    try:
        raw = base64.b64decode(data, validate=True)
    except binascii.Error:
        raise ValueError("The file could not be read; nothing was imported.") from None
    imported = parse_import(raw)
    new = merge((await read_entries())[0], imported)
    if new:
        try:
            await append_entries(new)
        except RuntimeError as exc:
            raise RuntimeError(f"Nothing was imported. {exc}") from None
    return {"added": len(new), "skipped": len(imported) - len(new)}


# --- the experiments page (DR-010) ------------------------------------------------------


@op
async def experiment_run(seed: str, per_kind: str, published_digest: str) -> dict:
    """Recompute the experiment with the visitor's settings, reporting progress and stopping on Cancel."""
    import asyncio

    from .experiment import experiment_steps, parse_settings
    from .experiment_page import figures_html, reproduction_note

    steps = experiment_steps(*parse_settings(seed, per_kind))
    while True:
        try:
            done, total = next(steps)
        except StopIteration as finished:
            figures = finished.value
            break
        if cancelled():
            raise RuntimeError("Cancelled: the figures shown are the ones from before.")
        emit({"type": "experiment-progress", "done": done, "total": total,
              "text": f"Running: step {done} of {total}."})
        await asyncio.sleep(0)  # lets the worker read a Cancel between steps
    return {"html": figures_html(figures, "../explorer/"), "digest": figures["digest"],
            "reproduced": figures["digest"] == published_digest,
            "note": reproduction_note(figures, published_digest)}


# --- repeated runs: baselines, drift and cost (DR-008) ---------------------------


def _run_ids(run_ids: object) -> list[str]:
    if not isinstance(run_ids, list) or not run_ids or not all(isinstance(r, str) for r in run_ids):
        raise ValueError("Choose at least one run.")
    return run_ids


@op
async def baseline_file(run_ids: list[str]) -> str:
    """The baseline file of ``run_ids``, byte for byte what ``python -m pyapp baseline`` writes."""
    from .baseline import baseline_of, baseline_text

    index = (await LOG.refresh()).runs()
    return baseline_text(baseline_of([index.run(run_id) for run_id in _run_ids(run_ids)]))


@op
async def baseline_diff(baseline: str, run_ids: list[str], rules: list[str] | None = None) -> dict:
    """``run_ids`` against a loaded baseline file, as ``python -m pyapp diff`` prints it."""
    from .baseline import parse_baseline
    from .baseline_diff import diff_report
    from .reject_rules import NO_NEW_FAIL, parse_rule

    parsed = [parse_rule(text) for text in rules or [NO_NEW_FAIL]]
    index = (await LOG.refresh()).runs()
    return diff_report(parse_baseline(baseline), [index.run(run_id) for run_id in _run_ids(run_ids)], parsed)


@op
async def run_size_estimate(runs: int, max_tokens: int | None = None, price_in: float | None = None,
                            price_out: float | None = None, set_version: str | None = None) -> dict:
    """What ``runs`` runs of a set send, and with the visitor's prices their estimated cost."""
    from .cost import run_size
    from .evalset import EVAL_SET_VERSION

    await own_sets_read(set_version)
    return run_size(runs, max_tokens, price_in, price_out, set_version or EVAL_SET_VERSION)


@op
async def run_usage(run_ids: list[str], price_in: float | None = None, price_out: float | None = None) -> dict:
    """The tokens the provider reported for the calls of ``run_ids``, and with prices their cost."""
    from .cost import actual_usage

    entries, _ = await read_entries()
    return actual_usage(entries, _run_ids(run_ids), price_in, price_out)
