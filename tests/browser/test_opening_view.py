"""A reopened /ai-eval/ answers its opening calls from the kept view while the log is as it was
(pyapp.browser.opening_view, DR-006).

On CPython with the worker's JavaScript stood in for (``worker`` in conftest.py): ``worker.kept_opening``
is the view the page keeps in IndexedDB, ``worker.stored`` the audit log. Whatever the kept view
answers must equal what a worker that reads the whole log answers.
"""

from __future__ import annotations

import json

import pytest

from eval_helpers import call, cancel, decision, full_run, rating
from fake_transport import SETTINGS
from pyapp.auditlog import checkpoint as log_checkpoint
from pyapp.browser import log_cache, opening_view
from pyapp.core import strict_json
from pyapp.evaluation.configurations import configuration_for
from pyapp.evaluation.export import export_json
from worker_views import counting, handle, store

EXPLORER_SEARCH = {"order": "file", "kind": "nearest", "lon": 24.94, "lat": 60.17, "radius": None}
OTHER = {**SETTINGS.to_dict(), "model": "claude-other"}


@pytest.fixture(autouse=True)
def every_forty(monkeypatch):
    monkeypatch.setattr(log_checkpoint, "EVERY", 40)


def new_tab(monkeypatch) -> None:
    """A new worker: nothing read, nothing graded, no view looked up (what the browser keeps stays)."""
    monkeypatch.setattr(log_cache, "LOG", log_cache.LogCache())
    monkeypatch.setattr(opening_view, "VIEW", opening_view.OpeningView())
    log_cache.grader.cache_clear()


def opening() -> dict:
    """The calls /ai-eval/ opens with (site_src/static/js/eval/), in its order, and their answers."""
    answers = {"overview": handle("eval_overview"), "configurations": handle("configurations"),
               "matrix": handle("case_matrix")}
    runs = answers["overview"]["runs"]
    answers["detail"] = handle("run_detail", run_id=runs[0]["run_id"]) if runs else None
    answers["plans"] = handle("plans")
    answers["own set"] = handle("own_set")
    return answers


def fill(worker) -> None:
    """A log with complete, stale, cancelled, continued, imported and rated runs, a plan and an own case."""
    a = full_run("run-a", grounded={"C01", "C02", "C03"}, settings=SETTINGS.to_dict())
    b = full_run("run-b", start=100.0, settings=SETTINGS.to_dict())
    continued = full_run("run-c", start=200.0, settings=OTHER, grounded=set())
    store(worker, a + b[:5] + continued[:10])
    store(worker, [call("run-b", "C06", time=105.0, prompt_hash="0" * 64, settings=SETTINGS.to_dict()),  # stale
                   call("run-b", "C07", time=106.0, outcome="cancelled", settings=SETTINGS.to_dict()),
                   cancel("run-b", "C07", time=106.5),
                   decision(a[0]["id"], False, "too long", time=300.0),
                   rating(a[1]["id"], "ann", time=301.0), rating(a[1]["id"], "bob", False, time=302.0)])
    store(worker, continued[10:])  # the run continued later
    handle("register_plan", x="form", y=configuration_for(OTHER).id, rule="no-new-fail", note="",
           settings=SETTINGS.to_dict())
    handle("add_own_case", search=EXPLORER_SEARCH)
    imported = full_run("run-d", start=400.0, settings=OTHER)
    handle("import_audit", file=export_json(imported).encode())


def full_read(worker, monkeypatch) -> dict:
    """The opening answers of a new tab that keeps nothing: the whole log read, rebuilt and graded."""
    kept = worker.kept, worker.kept_opening
    worker.kept = worker.kept_opening = None
    new_tab(monkeypatch)
    answers = opening()
    worker.kept, worker.kept_opening = kept
    return answers


def used(worker) -> list:
    return [detail for name, detail in worker.marks if name == "audit-view-used"]


def test_a_new_tab_opens_from_the_kept_view_reading_nothing_and_shows_what_a_full_read_gives(worker, monkeypatch):
    fill(worker)
    new_tab(monkeypatch)
    first = opening()
    assert worker.kept_opening is not None
    assert [len(first["overview"]["runs"]), len(first["configurations"]["configurations"]), len(first["plans"])] \
        == [4, 2, 1] and first["own set"] is not None

    new_tab(monkeypatch)
    worker.marks.clear()
    texts = counting(monkeypatch, strict_json, "loads")
    again = opening()
    assert used(worker) == ["eval_overview", "configurations", "case_matrix", "run_detail", "plans", "own_set"]
    assert texts == [] and ("audit-log-restored", len(worker.stored)) not in worker.marks, "nothing read or graded"
    assert again == first == full_read(worker, monkeypatch)


def test_any_other_call_reads_the_log_and_from_then_on_every_call_does(worker, monkeypatch):
    fill(worker)
    new_tab(monkeypatch)
    first = opening()
    new_tab(monkeypatch)
    worker.marks.clear()
    handle("eval_overview")
    handle("compare_runs", run_a="run-a", run_b="run-b")
    assert handle("configurations") == first["configurations"]
    assert used(worker) == ["eval_overview"]


@pytest.mark.parametrize("change", ["another tab appends", "the last record rewritten", "the store cleared"])
def test_the_kept_view_is_not_used_once_the_log_has_changed(worker, monkeypatch, change):
    fill(worker)
    new_tab(monkeypatch)
    first = opening()
    if change == "another tab appends":
        store(worker, full_run("run-e", start=900.0, settings=OTHER))
    elif change == "the last record rewritten":
        worker.stored[-1] = worker.stored[-1].replace('"run-d"', '"run-f"')
    else:
        worker.stored[:] = []
    new_tab(monkeypatch)
    worker.marks.clear()
    now = opening()
    assert used(worker) == []
    assert now != first and now == full_read(worker, monkeypatch)


NOT_A_VIEW = {"not JSON": b"\x1f\x8b not json", "another format": json.dumps({"format": 99}).encode(),
              "a count below zero": json.dumps({"format": 1, "records": -1, "last": [0, None], "answers": {}}).encode()}


@pytest.mark.parametrize("damage", NOT_A_VIEW.values(), ids=NOT_A_VIEW.keys())
def test_a_view_not_in_this_modules_shape_is_not_used(worker, monkeypatch, damage):
    fill(worker)
    new_tab(monkeypatch)
    first = opening()
    worker.kept_opening = damage
    new_tab(monkeypatch)
    worker.marks.clear()
    assert opening() == first and used(worker) == []


def test_a_log_below_the_checkpoint_size_keeps_no_view(worker, monkeypatch):
    store(worker, full_run("run-a"))
    opening()
    assert worker.kept_opening is None
    store(worker, full_run("run-b", start=100.0))
    opening()
    view = json.loads(worker.kept_opening)
    assert view["records"] == 40 and len(view["answers"]) == 6
