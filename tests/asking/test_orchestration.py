"""The layer that ties pyapp together, on CPython: ``explain``, ``run_eval`` and ``browser.handle`` (DR-005, DR-006).

Fake transport, sleep and clock, an in-memory log, and the worker's JavaScript
modules stood in for (``worker`` in conftest.py), so a failure here points at
Python, not at a browser.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import pyapp
from fake_transport import KEY, SETTINGS, Provider, answer, respond_as_provider
from live_call import run_async
from pyapp import browser
from pyapp.asking.runner import run_eval
from pyapp.asking.walkthrough import explain
from pyapp.core.vocabulary import Outcome
from pyapp.evaluation.evalset import FIXED_SETS
from pyapp.evaluation.rebuild import rebuild
from pyapp.evaluation.runs import Run
from pyapp.providers.client import Cancelled, HttpResponse, NetworkError

ROOT = Path(__file__).resolve().parents[2]
SEARCH = {"order": "file", "kind": "nearest", "lon": 24.94, "lat": 60.17}
REJECTED = HttpResponse(401, {}, json.dumps({"type": "error", "error": {"type": "authentication_error",
                                                                          "message": "invalid x-api-key"}}))


class Log:
    """The audit log in memory, with the fake transport, sleep and clock of one page."""

    def __init__(self, respond=answer) -> None:
        self.entries: list[dict] = []
        self.respond = respond
        self.now_ms = 0.0
        self.requests = 0

    async def append(self, entries: list[dict]) -> None:
        self.entries.extend(entries)

    async def read_run(self, run_id: str) -> Run:
        return rebuild(self.entries).run(run_id)

    async def transport(self, request):
        self.requests += 1
        self.now_ms += 250
        return self.respond(request)

    async def sleep(self, seconds: float) -> None:
        self.now_ms += seconds * 1000

    def explain(self, search: dict = SEARCH, **kwargs):
        return run_async(explain(search, SETTINGS, KEY, transport=self.transport, sleep=self.sleep,
                                 clock=lambda: self.now_ms, append=self.append, **kwargs))

    def run(self, run_id: str = "run-o", fresh: bool = True, cancelled=lambda: False) -> tuple[dict, list[dict]]:
        events: list[dict] = []
        result = run_async(run_eval(run_id, fresh, SETTINGS, KEY, read_run=self.read_run, append=self.append,
                                    emit=events.append, cancelled=cancelled, transport=self.transport,
                                    sleep=self.sleep, clock=lambda: self.now_ms))
        return result, events


# --------------------------------------------------------------------------- explain


def test_explaining_an_explorer_search_logs_one_graded_entry_that_names_the_search():
    log = Log()
    explained = log.explain()
    assert log.entries == [explained.entry]
    entry = explained.entry
    assert (entry["type"], entry["run_id"], entry["outcome"]) == ("call", None, "grounded")
    assert entry["search"] == {**SEARCH, "radius": None}
    assert entry["total_ms"] == 250.0 and log.requests == 1
    shown = explained.to_json()
    assert shown["grade"]["outcome"] == "grounded" and shown["walkthrough"] == explained.grade.walkthrough
    assert KEY not in json.dumps([shown, log.entries])


def test_a_call_that_gets_no_answer_is_logged_as_an_infrastructure_failure_without_a_grade():
    def refused(request):
        raise NetworkError("connection refused")

    log = Log(refused)
    explained = log.explain()
    assert (explained.entry["outcome"], explained.entry["error"], explained.grade) == (
        "infrastructure_failure", "network", None)
    assert explained.to_json()["walkthrough"] is None
    assert log.requests == 3 and log.entries == [explained.entry]  # the first try and two retries


def test_an_answer_that_cannot_be_logged_is_never_returned():
    log = Log()

    async def full(entries):
        raise RuntimeError("The audit log could not be written.")

    with pytest.raises(RuntimeError, match="could not be written"):
        run_async(explain(SEARCH, SETTINGS, KEY, transport=log.transport, sleep=log.sleep,
                          clock=lambda: log.now_ms, append=full))
    assert log.requests == 1


# --------------------------------------------------------------------------- run_eval


def test_continuing_a_run_asks_only_the_cases_without_an_answer_and_completes_it():
    first, logged, _, _ = Provider(dies_after=2).run()
    assert first["stopped"] is not None
    again = Provider()
    log = Log(answer)
    log.entries = list(logged)
    log.transport = again.transport
    result, events = log.run("run-faults", fresh=False)
    assert again.asked == list(FIXED_SETS.case_ids())[2:]
    assert [e for e in events if e["type"] == "run-start"][0]["todo"] == list(FIXED_SETS.case_ids())[2:]
    assert result == {"run_id": "run-faults", "stopped": None, "stop_error": None, "last_failure": None,
                      "message": "Run run-faults has an answer for every case it asked."}
    assert rebuild(log.entries).run("run-faults").complete


def test_a_run_cancelled_between_cases_logs_a_cancel_entry_and_says_how_far_it_got():
    log = Log()
    result, _ = log.run(cancelled=lambda: log.requests >= 2)
    assert [e["type"] for e in log.entries] == ["call", "call", "cancel"]
    assert log.entries[-1]["case_id"] == "C03" and log.entries[-1]["call_id"] is None
    assert result["stopped"] == Outcome.CANCELLED
    assert result["message"] == "Run run-o was cancelled after 2 of 20 cases; continue it to ask the rest."


def test_a_run_cancelled_during_a_call_points_its_cancel_entry_at_that_call():
    def cancelled_mid_call(request):
        raise Cancelled()

    log = Log(cancelled_mid_call)
    result, _ = log.run()
    call, cancel = log.entries
    assert (call["outcome"], cancel["type"], cancel["call_id"]) == ("cancelled", "cancel", call["id"])
    assert result["stopped"] == "cancelled"


def test_a_rejected_key_stops_the_run_after_one_call():
    log = Log(lambda request: REJECTED)
    result, events = log.run()
    assert log.requests == 1 and [e["outcome"] for e in log.entries] == ["infrastructure_failure"]
    assert result["stopped"].startswith("The provider rejected the API key.")
    assert [e["type"] for e in events] == ["run-start", "case-start", "case-done"]


# --------------------------------------------------------------------------- browser.handle


def handle(name: str, **args) -> dict:
    return json.loads(run_async(browser.handle(name, json.dumps(args))))


def test_handle_answers_a_value_or_a_sentence():
    assert handle("version")["value"]["pyapp"] == pyapp.__version__
    assert handle("nope") == {"ok": False, "error": "unknown operation 'nope'"}
    view = handle("search_view", **SEARCH)["value"]
    assert len(view["steps"]) == len(view["trace"]) and view["steps"][0]["caption"].startswith("Visit ")
    assert handle("search_view", order="file", kind="closest", lon=24.944, lat=60.17) == {
        "ok": False, "error": "unknown search kind 'closest'; expected one of nearest, radius"}


def test_explain_through_the_worker_stores_the_entry_and_shows_progress(worker):
    worker.respond = respond_as_provider
    shown = handle("explain", search=SEARCH, settings=SETTINGS.to_dict(), api_key=KEY)
    assert shown["ok"] and shown["value"]["entry"]["outcome"] == "grounded"
    assert [json.loads(text) for text in worker.stored] == [shown["value"]["entry"]]
    assert worker.events[0]["type"] == "progress"
    assert worker.events[0]["text"].startswith("Asking the model: attempt 1 of 4, 0 s waiting for the answer")
    assert KEY not in json.dumps([worker.stored, worker.events, shown])


def test_a_log_that_cannot_be_written_is_a_sentence_for_the_visitor(worker):
    worker.respond = respond_as_provider
    worker.store_error = Exception("Error: QuotaExceededError")
    shown = handle("explain", search=SEARCH, settings=SETTINGS.to_dict(), api_key=KEY)
    assert shown == {"ok": False, "error": (
        "This browser's storage for the site is full (QuotaExceededError), so the audit log could not be written. "
        "Nothing was shown, so nothing unrecorded was used.")}


def test_the_audit_list_skips_unreadable_records_and_leaves_out_answers(worker):
    log = Log()
    log.explain()
    worker.stored = ["{not json", json.dumps(log.entries[0]), json.dumps({"type": "call"})]
    shown = handle("audit_log")["value"]
    assert shown["corrupt"] == 2
    assert [c["id"] for c in shown["calls"]] == [log.entries[0]["id"]] and "answer" not in shown["calls"][0]


def test_the_evaluation_pages_read_runs_from_the_stored_log(worker):
    worker.respond = respond_as_provider
    started = handle("run_eval", run_id=None, settings=SETTINGS.to_dict(), api_key=KEY)["value"]
    assert started["stopped"] is None and len(worker.stored) == 20 and worker.locks == set()
    overview = handle("eval_overview")["value"]
    assert (overview["calls"], overview["corrupt"]) == (20, 0)
    assert [run["run_id"] for run in overview["runs"]] == [started["run_id"]]
    detail = handle("run_detail", run_id=started["run_id"])["value"]
    assert [c["outcome"] for c in detail["cases"]] == ["grounded"] * 20
    assert {e["type"] for e in worker.events} >= {"run-start", "case-start", "case-done", "progress"}


def test_a_run_already_running_in_another_tab_is_refused(worker):
    worker.locks.add("kd-explorer-run:run-busy")
    assert handle("run_eval", run_id="run-busy", settings=SETTINGS.to_dict(), api_key=KEY) == {
        "ok": False, "error": "run run-busy is already running in another tab of this browser"}
    assert worker.stored == []



def test_after_restore_draws_a_new_random_state():
    """Every interpreter restored from one memory snapshot starts with its random state (DR-002)."""
    import random

    random.seed(20003)
    snapshot_state = random.getstate()
    browser.after_restore()
    assert random.getstate() != snapshot_state


def _loaded_after(code: str) -> set[str]:
    """The pyapp modules a fresh interpreter holds after running ``code``."""
    probe = f"import json, sys\n{code}\nprint(json.dumps(sorted(m for m in sys.modules if m.startswith('pyapp'))))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    return set(json.loads(done.stdout))


def test_the_snapshot_imports_every_module_an_operation_imports():
    """import_operation_modules loads every pyapp module imported inside the bridge's functions (DR-002)."""
    inside = {
        node.module
        for path in Path(browser.__file__).parent.glob("*.py")
        for function in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        for node in ast.walk(function) if isinstance(node, ast.ImportFrom) and node.module.startswith("pyapp.")
    }
    assert len(inside) > 20
    loaded = _loaded_after("import pyapp.browser\npyapp.browser.import_operation_modules()")
    assert inside <= loaded
    assert not any(name.startswith("pyapp.cli") for name in loaded)


def test_importing_the_bridge_imports_no_domain_module():
    """The worker imports the bridge before Python is ready: only its dispatcher, which imports the operations
    on the first call."""
    assert _loaded_after("import pyapp.browser") == {"pyapp", "pyapp.browser", "pyapp.browser.dispatch"}
    first_call = "import asyncio, pyapp.browser\nasyncio.run(pyapp.browser.handle('version', '{}'))"
    assert {name for name in _loaded_after(first_call) if not name.startswith("pyapp.browser")} == {
        "pyapp", "pyapp.core", "pyapp.core.vocabulary"}
