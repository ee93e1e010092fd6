"""In Chromium: a reopened /ai-eval/ starts from the worker's kept read of the audit log (DR-006).

The real site and IndexedDB: a log of 1,020 entries (over ``pyapp.auditlog.checkpoint.EVERY``) is read
once by a tab, whose worker keeps its read and the page's opening view; a later tab opens from the
view while the log is as it was, and otherwise starts from the kept read and reads only what came
after, listing what ``python -m pyapp report`` reports on the same entries. A kept read or view that is
damaged or was made by another build is not used.
"""

from __future__ import annotations

import json

import pytest

from browser_storage import ADD_ROWS, DAMAGE, SNAPSHOT_DB, STORED, kept
from chromium import python_worker
from eval_helpers import full_run
from eval_page import listed, open_eval, reported, show_view
from pyapp.auditlog import checkpoint as log_checkpoint

pytestmark = pytest.mark.browser

ENTRIES = [entry for n in range(51)
           for entry in full_run(f"run-{n:02d}", start=100.0 * n, grounded={"C01", "C02", "C03"} if n % 3 else None)]
RESTORED = "performance.getEntriesByName('audit-log-restored').map((mark) => mark.detail)"
VIEW_USED = "performance.getEntriesByName('audit-view-used').map((mark) => mark.detail)"
# For each time the worker asked for its kept read of the log, whether Python was not yet ready.
ASKED_BEFORE_READY = """performance.getEntriesByName('kept-asked').filter((mark) => mark.detail === 'audit-log')
  .map((mark) => mark.startTime < performance.getEntriesByName('ready')[0].startTime)"""
OPENING = ["eval_overview", "configurations", "case_matrix", "run_detail", "plans", "own_set"]
# The worker's marks, in order: the operation of each answer it posted, and each record it began to keep.
ANSWERS_AND_KEEPING = """performance.getEntriesByType('mark')
  .filter((mark) => ['answered', 'keeping'].includes(mark.name))
  .map((mark) => (mark.name === 'keeping' ? `keeping ${mark.detail}` : mark.detail))"""


def listing(context, site, runs: int):
    """A new /ai-eval/ tab once its runs list holds ``runs`` rows, and the records its worker restored."""
    page = open_eval(context, site)
    show_view(page, "results")
    page.wait_for_selector(f"#runs tbody tr:nth-child({runs})")
    assert page.locator("#runs tbody tr").count() == runs
    worker = python_worker(page)
    return page, worker.evaluate(RESTORED)


def filled(context, site, tmp_path):
    """A tab that read the whole log once and whose worker kept its read; what it listed."""
    assert len(ENTRIES) > log_checkpoint.EVERY
    page = open_eval(context, site)
    page.evaluate(ADD_ROWS, [{"json": json.dumps(entry)} for entry in ENTRIES])
    page.close()
    first, restored = listing(context, site, 51)
    assert restored == []
    shown = listed(first)
    assert {run: text.split()[0] for run, text in shown.items()} == reported(first, tmp_path)
    kept(first, "audit-log")
    kept(first, "audit-view")
    marks = python_worker(first).evaluate(ANSWERS_AND_KEEPING)
    # Kept once the page's opening calls were all answered, so none of them waited for it.
    assert marks.index("keeping audit-log") > max(marks.index(op) for op in OPENING)
    return first, shown


def without_view(page) -> None:
    """The opening view ``page`` keeps, once kept, made unusable (as if another build made it), so the next
    tab reads the log."""
    kept(page, "audit-view")
    page.evaluate(SNAPSHOT_DB % DAMAGE["made from other files"], "audit-view")


def test_a_reopened_page_opens_from_the_kept_view_until_it_is_asked_for_more(context, site, tmp_path):
    first, shown = filled(context, site, tmp_path)
    configurations, detail = first.inner_text("#configurations"), first.inner_text("#run-detail")
    second, restored = listing(context, site, 51)
    assert restored == [] and python_worker(second).evaluate(VIEW_USED) == OPENING
    assert listed(second) == shown
    assert second.inner_text("#configurations") == configurations and second.inner_text("#run-detail") == detail

    other = second.locator("#runs tbody tr").nth(3)  # a run whose detail the view does not hold
    run_id = other.get_attribute("data-run")
    other.locator("button").click()
    second.wait_for_selector(f"#run-detail[data-run='{run_id}']")
    assert python_worker(second).evaluate(RESTORED) == [len(ENTRIES)]


def test_a_reopened_page_starts_from_the_kept_read_and_reads_what_came_after(context, site, tmp_path):
    first, shown = filled(context, site, tmp_path)
    without_view(first)
    second, restored = listing(context, site, 51)
    assert restored == [len(ENTRIES)] and python_worker(second).evaluate(VIEW_USED) == []
    assert python_worker(second).evaluate(ASKED_BEFORE_READY) == [True]  # taken back while Python started
    assert listed(second) == shown

    late = full_run("run-late", start=9_000.0, grounded={"C05"})
    second.evaluate(ADD_ROWS, [{"json": json.dumps(entry)} for entry in late])  # another writer: the view is stale
    third, restored = listing(context, site, 52)
    assert restored == [len(ENTRIES)]  # the kept read, and the twenty records after it read on top
    assert python_worker(third).evaluate(VIEW_USED) == []
    now = listed(third)
    assert now == {**shown, "run-late": now["run-late"]}
    assert {run: text.split()[0] for run, text in now.items()} == reported(third, tmp_path)


@pytest.mark.parametrize("damage", DAMAGE.values(), ids=DAMAGE.keys())
def test_an_unusable_kept_read_is_replaced_by_a_full_read(context, site, tmp_path, damage):
    first, shown = filled(context, site, tmp_path)
    good = first.evaluate(STORED, "audit-log")
    first.evaluate(SNAPSHOT_DB % damage, "audit-log")
    assert first.evaluate(STORED, "audit-log") != good
    without_view(first)

    fallback, restored = listing(context, site, 51)
    assert restored == []
    assert listed(fallback) == shown
    assert kept(fallback, "audit-log")["key"] == good["key"]  # kept again by the tab that read it all

    without_view(fallback)
    _, restored = listing(context, site, 51)
    assert restored == [len(ENTRIES)]
