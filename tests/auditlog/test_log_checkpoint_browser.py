"""In Chromium: a reopened /ai-eval/ starts from the worker's kept read of the audit log (DR-006).

The real site and IndexedDB: a log of 1,020 entries (over ``pyapp.auditlog.checkpoint.EVERY``) is read
once by a tab, whose worker keeps its read; every later tab starts from it, reads only what came
after, and lists what ``python -m pyapp report`` reports on the same entries. A kept read that is
damaged or was made by another build is not used.
"""

from __future__ import annotations

import json

import pytest

from browser_storage import ADD_ROWS, DAMAGE, SNAPSHOT_DB, STORED, kept
from chromium import python_worker
from eval_helpers import full_run
from eval_page import import_run, listed, open_eval, reported
from pyapp.auditlog import checkpoint as log_checkpoint

pytestmark = pytest.mark.browser

ENTRIES = [entry for n in range(51)
           for entry in full_run(f"run-{n:02d}", start=100.0 * n, grounded={"C01", "C02", "C03"} if n % 3 else None)]
RESTORED = "performance.getEntriesByName('audit-log-restored').map((mark) => mark.detail)"


def listing(context, site, runs: int):
    """A new /ai-eval/ tab once its runs list holds ``runs`` rows, and the records its worker restored."""
    page = open_eval(context, site)
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
    return first, shown


def test_a_reopened_page_starts_from_the_kept_read_and_reads_what_came_after(context, site, tmp_path):
    first, shown = filled(context, site, tmp_path)
    second, restored = listing(context, site, 51)
    assert restored == [len(ENTRIES)]
    assert listed(second) == shown

    late = full_run("run-late", start=9_000.0, grounded={"C05"})
    import_run(second, tmp_path, late, "late")
    third, restored = listing(context, site, 52)
    assert restored == [len(ENTRIES)]  # the kept read, and the twenty records after it read on top
    now = listed(third)
    assert now == {**shown, "run-late": now["run-late"]}
    assert {run: text.split()[0] for run, text in now.items()} == reported(third, tmp_path)


@pytest.mark.parametrize("damage", DAMAGE.values(), ids=DAMAGE.keys())
def test_an_unusable_kept_read_is_replaced_by_a_full_read(context, site, tmp_path, damage):
    first, shown = filled(context, site, tmp_path)
    good = first.evaluate(STORED, "audit-log")
    first.evaluate(SNAPSHOT_DB % damage, "audit-log")
    assert first.evaluate(STORED, "audit-log") != good

    fallback, restored = listing(context, site, 51)
    assert restored == []
    assert listed(fallback) == shown
    assert kept(fallback, "audit-log")["key"] == good["key"]  # kept again by the tab that read it all

    _, restored = listing(context, site, 51)
    assert restored == [len(ENTRIES)]
