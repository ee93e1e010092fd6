"""The worker keeps the audit log parsed and its runs indexed between reads (pyapp.browser.LogCache, DR-006).

The worker's JavaScript modules are stood in for (``worker`` in conftest.py): ``worker.stored``
is the IndexedDB store, so writing to it directly is what another tab's append looks like.
"""

from __future__ import annotations

import json

from eval_helpers import call, decision, full_run

from live_call import run_async
from pyapp import browser, runs, strict_json
from pyapp.report import runs_overview
from pyapp.runs import rebuild

EXPLORER_SEARCH = {"order": "file", "kind": "nearest", "lon": 24.94, "lat": 60.17, "radius": None}


def handle(name: str, **args) -> dict:
    answer = json.loads(run_async(browser.handle(name, json.dumps(args))))
    assert answer["ok"], answer
    return answer["value"]


def store(worker, entries: list[dict]) -> None:
    worker.stored.extend(json.dumps(entry) for entry in entries)


def counting(monkeypatch, module, name: str) -> list:
    """Replace ``module.name`` with a wrapper that notes each call's first argument."""
    calls, original = [], getattr(module, name)

    def wrapper(*args, **kwargs):
        calls.append(args[0] if args else None)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, wrapper)
    return calls


def test_each_record_is_parsed_once_and_new_ones_from_any_writer_are_read(worker, monkeypatch):
    store(worker, full_run("run-a"))
    texts = counting(monkeypatch, strict_json, "loads")  # grading parses answers with it too

    def parsed() -> list[str]:
        return [text for text in texts if text.startswith('{"format"')]

    first = handle("eval_overview")
    assert len(parsed()) == 20 and [r["run_id"] for r in first["runs"]] == ["run-a"]
    handle("run_detail", run_id="run-a")
    handle("audit_log")
    assert len(parsed()) == 20  # the detail and the list reuse what the overview read
    store(worker, full_run("run-b", start=100.0))  # another tab appends
    run_async(browser.append_entries([call(None, "C01", time=200.0, search=EXPLORER_SEARCH)]))  # this worker appends
    overview = handle("eval_overview")
    assert len(parsed()) == 41
    assert [r["run_id"] for r in overview["runs"]] == ["run-b", "run-a"] and overview["calls"] == 40
    assert len(handle("audit_log")["calls"]) == 41


def test_a_cleared_store_is_read_again_from_the_start(worker):
    store(worker, full_run("run-a"))
    assert [r["run_id"] for r in handle("eval_overview")["runs"]] == ["run-a"]
    worker.stored = ["{not json"]
    store(worker, full_run("run-b"))
    overview = handle("eval_overview")
    assert [r["run_id"] for r in overview["runs"]] == ["run-b"] and overview["corrupt"] == 1


def test_a_runs_detail_builds_that_run_alone_and_only_again_after_its_own_entries(worker, monkeypatch):
    a, b = full_run("run-a"), full_run("run-b", start=100.0)
    store(worker, a + b)
    built = []
    build_run = runs._build_run
    monkeypatch.setattr(runs, "_build_run", lambda run_id, *rest: built.append(run_id) or build_run(run_id, *rest))
    handle("run_detail", run_id="run-b")
    assert built == ["run-b"]
    handle("eval_overview")
    assert built == ["run-b", "run-a"]
    store(worker, [decision(a[0]["id"], False, "not helpful", time=300.0)])
    detail = handle("run_detail", run_id="run-b")
    assert built == ["run-b", "run-a"] and detail["cases"][0]["outcome"] == "grounded"
    handle("run_detail", run_id="run-a")
    assert built == ["run-b", "run-a", "run-a"]  # the verdict is on a call of run-a


def test_the_kept_index_gives_the_same_runs_as_a_rebuild_from_scratch(worker):
    entries = full_run("run-a") + full_run("run-b", start=100.0, grounded=set())
    store(worker, entries[:25])
    handle("eval_overview")
    store(worker, entries[25:] + [entries[3]])  # the last one repeats an id: skipped
    overview = handle("eval_overview")
    fresh = rebuild(entries + [entries[3]])
    expected = runs_overview(sorted(fresh.runs, key=lambda run: run.started, reverse=True))
    assert overview["runs"] == json.loads(json.dumps(expected)) and overview["corrupt"] == fresh.skipped == 1
