"""The worker keeps the audit log parsed and its runs indexed between reads (pyapp.browser.log_cache, DR-006).

The worker's JavaScript modules are stood in for (``worker`` in conftest.py): ``worker.stored``
is the IndexedDB store, so writing to it directly is what another tab's append looks like.
"""

from __future__ import annotations

import asyncio
import gc
import json
import re

from eval_helpers import call, decision, full_run
from live_call import run_async
from pyapp.browser import log_cache
from pyapp.core import strict_json
from pyapp.evaluation import rebuild as rebuilds
from pyapp.evaluation.grader import Grader
from pyapp.evaluation.rebuild import rebuild
from pyapp.presentation import report
from pyapp.presentation.report import runs_overview
from worker_views import CORRUPT_RECORDS, counting, fresh_views, handle, store, views

EXPLORER_SEARCH = {"order": "file", "kind": "nearest", "lon": 24.94, "lat": 60.17, "radius": None}


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
    run_async(log_cache.append_entries([call(None, "C01", time=200.0, search=EXPLORER_SEARCH)]))  # this worker appends
    overview = handle("eval_overview")
    assert len(parsed()) == 41
    assert [r["run_id"] for r in overview["runs"]] == ["run-b", "run-a"] and overview["calls"] == 40
    assert len(handle("audit_log")["calls"]) == 41


def test_the_workers_own_appends_are_taken_as_read_unless_another_writer_came_between(worker, monkeypatch):
    a, b = full_run("run-a"), full_run("run-b", start=100.0)
    store(worker, a[:5])
    texts = counting(monkeypatch, strict_json, "loads")
    handle("eval_overview")
    run_async(log_cache.append_entries(a[5:]))  # nothing else stored since the read: not read back
    assert handle("eval_overview")["calls"] == 20 and len(texts) == 5 + 20  # 5 records, 20 answers graded
    assert worker.stored[5:] == [json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in a[5:]]
    store(worker, b[:3])  # another tab appends, then this worker does: both are read from the store
    run_async(log_cache.append_entries(b[3:]))
    assert handle("eval_overview")["calls"] == 40
    assert len([text for text in texts if text.startswith('{"format"')]) == 5 + 20
    assert views(["run-a", "run-b"]) == fresh_views(monkeypatch, ["run-a", "run-b"])


def test_a_cleared_store_is_read_again_from_the_start(worker):
    store(worker, full_run("run-a"))
    assert [r["run_id"] for r in handle("eval_overview")["runs"]] == ["run-a"]
    worker.stored = ["{not json"]
    store(worker, full_run("run-b"))
    overview = handle("eval_overview")
    assert [r["run_id"] for r in overview["runs"]] == ["run-b"] and overview["corrupt"] == 1


def test_a_log_read_in_blocks_is_the_log_read_at_once_and_each_block_starts_at_the_last_record_taken(
        worker, monkeypatch):
    entries = full_run("run-a") + full_run("run-b", start=100.0)
    store(worker, entries[:6])
    worker.stored[6:6] = ["{not json", "[1, 2]"]  # unreadable records across a block's end
    store(worker, entries[6:])
    whole = handle("eval_overview")
    monkeypatch.setattr(log_cache, "LOG", log_cache.LogCache())
    monkeypatch.setattr(log_cache, "BLOCK", 7)
    asked = []

    def noted(seq, count=None):
        asked.append((seq, count))
        return worker.read_from(seq, count)

    monkeypatch.setattr(worker.store, "readFrom", noted)
    assert handle("eval_overview") == whole and whole["corrupt"] == 2
    assert asked == [(0, 7), (7, 7), (13, 7), (19, 7), (25, 7), (31, 7), (37, 7)]  # 42 records
    assert log_cache.LOG.records == 42 and log_cache.LOG.last == [42, worker.stored[-1]]


def test_two_reads_at_once_take_each_record_once(worker, monkeypatch):
    monkeypatch.setattr(log_cache, "BLOCK", 3)
    store(worker, full_run("run-a"))

    async def both():
        return await asyncio.gather(log_cache.LOG.refresh(), log_cache.LOG.refresh())

    run_async(both())
    log = log_cache.LOG
    assert [entry["case_id"] for entry in log.entries] == [entry["case_id"] for entry in full_run("run-a")]
    assert log.records == 20 and log.last == [20, worker.stored[-1]]


def test_a_store_cleared_between_two_blocks_is_read_again_from_the_start(worker, monkeypatch):
    monkeypatch.setattr(log_cache, "BLOCK", 8)
    store(worker, full_run("run-a"))
    read = worker.read_from

    def clearing(seq, count=None):
        if seq:  # once the first block is read: another tab clears the store and writes a run
            worker.stored[:] = []
            store(worker, full_run("run-b", start=50.0)[:5])
        return read(seq, count)

    monkeypatch.setattr(worker.store, "readFrom", clearing)
    run_async(log_cache.LOG.refresh())
    assert [entry["run_id"] for entry in log_cache.LOG.entries] == ["run-b"] * 5 and log_cache.LOG.records == 5


def test_a_runs_detail_builds_that_run_alone_and_only_again_after_its_own_entries(worker, monkeypatch):
    a, b = full_run("run-a"), full_run("run-b", start=100.0)
    store(worker, a + b)
    built = []
    build_run = rebuilds._build_run
    monkeypatch.setattr(rebuilds, "_build_run", lambda run_id, *rest: built.append(run_id) or build_run(run_id, *rest))
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


def test_the_runs_list_grades_the_answers_of_the_runs_it_rates_and_the_rest_when_every_run_is_asked_for(
        worker, monkeypatch):
    monkeypatch.setattr(report, "RUNS_RATED", 2)
    store(worker, [entry for n in range(3) for entry in full_run(f"run-{n}", start=100.0 * n)])
    outcomes = counting(monkeypatch, Grader, "outcome")  # asked of the grader once per counted answer shown

    newest = handle("eval_overview")
    assert newest["rated"] == 2 and len(outcomes) == 40
    assert [row["grounded"] for row in newest["runs"]] == [20, 20, None]
    every = handle("eval_overview", every=True)
    assert every["rated"] == 3 and len(outcomes) == 40 + 60
    assert every["runs"][:2] == newest["runs"][:2] and every["runs"][2]["grounded"] == 20


def corrupted(entry: dict, how: str) -> str:
    """``entry`` as a stored text spoiled in one way a valid-looking record can be."""
    if how == "huge id":
        return json.dumps({**entry, "input_tokens": 2**60})
    if how == "lone surrogate":
        return json.dumps({**entry, "message": "\ud800"})
    if how == "raw lone surrogate":  # not escaped: as another script could store it
        return json.dumps({**entry, "message": "\ud800"}, ensure_ascii=False)
    if how == "nested":
        return json.dumps({**entry, "settings": {**entry["settings"], "model": [[[[[[[[["m"]]]]]]]]]}})
    return json.dumps(entry).replace('"format": 1', '"format": 1, "format": 1', 1)  # a repeated key


def test_the_kept_log_equals_a_fresh_read_after_appends_an_import_and_corrupt_records(worker, monkeypatch):

    from pyapp.evaluation.export import export_json

    a = full_run("run-a", grounded={"C01", "C02", "C03"})
    b = full_run("run-b", start=100.0, grounded=set())
    c = full_run("run-c", start=200.0)
    store(worker, a[:12])
    worker.stored.extend(CORRUPT_RECORDS[:3])
    handle("eval_overview")  # the log is read and kept
    run_async(log_cache.append_entries(a[12:]))  # the worker's own appends
    handle("record_decision", call_id=a[0]["id"], helpful=False, note="not helpful")
    worker.stored.extend(CORRUPT_RECORDS[3:] + [corrupted(c[0], how) for how in
                                                ("huge id", "lone surrogate", "raw lone surrogate", "nested",
                                                                      "repeated key")])
    store(worker, b[:5])  # another tab's appends
    handle("run_detail", run_id="run-b")
    assert handle("import_audit", file=export_json(a + b).encode()) == {"added": 15, "skipped": 25}
    kept = views(["run-a", "run-b"])
    assert kept == fresh_views(monkeypatch, ["run-a", "run-b"])
    assert kept["overview"]["corrupt"] == kept["audit"]["corrupt"] == len(CORRUPT_RECORDS) + 5
    expected = rebuild([json.loads(text) for text in worker.stored if re.match(r'\{"format": ?1, ?"id"', text)])
    assert [r["run_id"] for r in kept["overview"]["runs"]] == ["run-b", "run-a"]
    assert kept["overview"]["runs"] == json.loads(json.dumps(runs_overview(sorted(
        expected.runs, key=lambda run: run.started, reverse=True))))
    assert kept["details"][0]["cases"][0]["decision"]["note"] == "not helpful"


def test_continuing_a_run_takes_it_from_the_kept_log_and_builds_no_other_run(worker, monkeypatch):
    from fake_transport import KEY, SETTINGS, respond_as_provider

    store(worker, full_run("run-a", settings=SETTINGS.to_dict()))
    store(worker, full_run("run-b", start=100.0, settings=SETTINGS.to_dict())[:8])
    handle("eval_overview")
    texts = counting(monkeypatch, strict_json, "loads")
    built = []
    build_run = rebuilds._build_run
    monkeypatch.setattr(rebuilds, "_build_run", lambda run_id, *rest: built.append(run_id) or build_run(run_id, *rest))
    worker.respond = respond_as_provider
    result = handle("run_eval", run_id="run-b", settings=SETTINGS.to_dict(), api_key=KEY)
    assert result["stopped"] is None and len(worker.stored) == 40
    assert not [text for text in texts if text.startswith('{"format"')], "no stored record is parsed again"
    assert "run-a" not in built, "the run to continue comes from the index; no other run is built"
    assert [c["status"] for c in handle("run_detail", run_id="run-b")["cases"]] == ["graded"] * 20


def test_an_operation_over_the_log_runs_with_the_collector_paused_and_keeps_a_first_read(worker, monkeypatch):
    store(worker, full_run("run-a"))
    seen = []
    overview = report.runs_overview

    def watched(runs, rated=None):
        seen.append(gc.isenabled())
        return overview(runs, rated)

    monkeypatch.setattr(report, "runs_overview", watched)
    gc.unfreeze()  # what earlier operations in this process kept
    try:
        handle("eval_overview")
        assert seen == [False] and gc.isenabled()
        assert gc.get_freeze_count() > 0  # the first read, its index and grades live on with the worker
        gc.unfreeze()
        handle("eval_overview")
        assert seen == [False, False] and gc.isenabled() and gc.get_freeze_count() == 0  # nothing new to keep
    finally:
        gc.unfreeze()
