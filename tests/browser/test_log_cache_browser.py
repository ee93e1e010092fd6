"""In Chromium: the /ai-eval/ runs list follows the log as it grows, in this tab and from another (DR-006).

The worker keeps the log it has read (``pyapp.browser.log_cache.LogCache``); these tests append to the
real IndexedDB store through the page's import, in the same tab and in a second one, and
check the list against ``python -m pyapp report`` on the same entries.
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Error as PlaywrightError

from browser_storage import ADD_MADE_ROWS, ADD_ROWS
from eval_helpers import full_run
from eval_page import (
    ANTHROPIC,
    DUMP_DB,
    FakeAnthropic,
    cli,
    import_run,
    listed,
    open_eval,
    reported,
    show_view,
    start_run,
)
from eval_page import export_json as export_from_page
from pyapp.auditlog.validation import validate_entry
from pyapp.evaluation.export import export_json, parse_import
from worker_views import CORRUPT_RECORDS

pytestmark = pytest.mark.browser


def test_runs_list_follows_appends_from_this_tab_and_another(context, site, tmp_path):  # noqa: F811
    first = full_run("run-cache-1", grounded=set())
    second = full_run("run-cache-2", start=500.0)
    third = full_run("run-cache-3", start=1000.0, grounded={"C01", "C02"})
    tab_a = open_eval(context, site)
    tab_b = open_eval(context, site)
    import_run(tab_a, tmp_path, first, "first")
    tab_a.wait_for_selector("#runs tr[data-run='run-cache-1']")
    import_run(tab_a, tmp_path, second, "second")  # the worker's own append, after its log was read
    tab_a.wait_for_selector("#runs tr[data-run='run-cache-2']")
    shown = listed(tab_a)
    assert set(shown) == {"run-cache-1", "run-cache-2"}
    assert {run: text.split()[0] for run, text in shown.items()} == reported(tab_a, tmp_path)

    import_run(tab_b, tmp_path, third, "third")  # another tab's append, behind tab A's back
    import_run(tab_a, tmp_path, first, "first", already=20)  # nothing new, so tab A only reads the log again
    show_view(tab_a, "results")  # an import that adds nothing leaves the Data view on screen
    tab_a.wait_for_selector("#runs tr[data-run='run-cache-3']")
    shown = listed(tab_a)
    assert set(shown) == {"run-cache-1", "run-cache-2", "run-cache-3"}
    assert {run: text.split()[0] for run, text in shown.items()} == reported(tab_a, tmp_path)
    assert json.loads(tab_a.inner_text("#runs-message").split()[4]) == 60  # "3 runs rebuilt from 60 logged calls"


def valid_stored(page) -> list[dict]:
    """The store's entries that are entries (what ``python -m pyapp`` reads from an export of them)."""
    kept = []
    for text in page.evaluate(DUMP_DB):
        try:
            entry = json.loads(text) if isinstance(text, str) else None
        except (ValueError, RecursionError):
            continue
        if isinstance(entry, dict) and not validate_entry(entry):
            kept.append(entry)
    return kept


def shown(page) -> tuple[dict[str, str], str, str]:
    """The runs list, its message and the newest run's detail, as the Results view shows them."""
    show_view(page, "results")
    page.wait_for_selector("#run-detail[data-run]")
    return listed(page), page.inner_text("#runs-message"), page.inner_text("#run-detail")


def test_a_tab_that_kept_its_log_shows_what_a_new_tab_reads_after_a_run_imports_and_corrupt_records(
        context, site, tmp_path):
    context.route(ANTHROPIC, FakeAnthropic(wrong={"C04", "C11"}))
    first = full_run("run-kept-1", grounded={"C01", "C02", "C03"})
    second = full_run("run-kept-2", start=500.0, grounded=set())
    tab_a = open_eval(context, site)
    import_run(tab_a, tmp_path, first, "first")  # tab A has now read and kept the log
    tab_a.evaluate(ADD_ROWS, [{"json": text} for text in CORRUPT_RECORDS] + [{"other": 1}])
    assert "has an answer for every case" in start_run(tab_a)  # twenty entries the worker writes itself
    import_run(tab_a, tmp_path, second, "second")
    kept = shown(tab_a)
    fresh = shown(open_eval(context, site))  # a new worker reads the whole store
    assert kept == fresh
    runs, message, _ = kept
    assert len(runs) == 3 and f"{len(CORRUPT_RECORDS) + 1} unreadable audit entries were skipped" in message
    path = tmp_path / "valid.json"
    path.write_text(export_json(valid_stored(tab_a)))
    assert {run: text.split()[0] for run, text in runs.items()} == {
        r["run_id"]: f"{r['grounded']}/{r['graded']}" for r in cli("report", str(path), "--json")}


# Records of a run as no page writes them: the first call's text spread over lines, the second's answer with a
# character outside the Basic Multilingual Plane (a surrogate pair in JavaScript), and a copy of the third under
# another id with a lone surrogate in its answer, raw, as another script could store it: read as the first two
# entries, and the copy unreadable.
ODD_ROWS = ADD_MADE_ROWS % """(texts) => {
  const rows = texts.map((json) => ({ json }));
  rows[0].json = JSON.stringify(JSON.parse(texts[0]), null, 1);
  const lone = JSON.parse(texts[2]);
  lone.id = "lone-surrogate-copy";
  rows.push({ json: JSON.stringify(lone).replace('"answer":"', '"answer":"\\uD800') });
  return rows;
}"""


def test_records_with_line_breaks_and_surrogates_are_read_as_stored(context, site, tmp_path):
    entries = full_run("run-odd", grounded={"C01", "C02", "C05"})
    answer = json.loads(entries[1]["answer"])
    answer["walkthrough"] += " 🌲"
    entries[1]["answer"] = json.dumps(answer, ensure_ascii=False)
    assert not validate_entry(entries[1])
    texts = [json.dumps(entry, ensure_ascii=False, separators=(",", ":")) for entry in entries]
    open_eval(context, site).evaluate(ODD_ROWS, texts)
    path = tmp_path / "odd.json"
    path.write_text(export_json(entries))
    [expected] = cli("report", str(path), "--json")
    assert expected["grounded"] == 3 and expected["graded"] == 20
    page = open_eval(context, site)  # a new worker reads them all
    runs, message, _ = shown(page)
    assert runs["run-odd"].split() == ["3/20", "(15.0%)"] and len(runs) == 1, runs
    assert "1 run rebuilt from 20 logged calls; 1 unreadable audit entry was skipped" in message, message
    assert parse_import(export_from_page(page, tmp_path).read_bytes()) == entries, "each entry read exactly"


# In the page's worker: IndexedDB's count, noted each time it is asked (it counts a store's records one by one).
NOTE_COUNTS = """() => {
  self.counted = 0;
  const count = IDBObjectStore.prototype.count;
  IDBObjectStore.prototype.count = function (...args) { self.counted += 1; return count.apply(this, args); };
}"""


def page_worker(page):
    """The page's worker, not the one that makes the start-up snapshot (named for its task, and gone once done)."""
    for worker in page.workers:
        try:
            if '"task":"snapshot"' not in worker.evaluate("self.name"):
                return worker
        except PlaywrightError:
            continue
    raise AssertionError("the page has no worker of its own")


def test_the_log_is_read_and_appended_to_without_asking_the_store_to_count(context, site, tmp_path):
    page = open_eval(context, site)
    worker = page_worker(page)
    worker.evaluate(NOTE_COUNTS)
    import_run(page, tmp_path, full_run("run-uncounted", grounded={"C01"}), "uncounted")  # an append, then reads
    show_view(page, "results")
    page.wait_for_selector("#runs tr[data-run='run-uncounted']")
    show_view(page, "data")
    page.wait_for_selector("#data-storage:has-text('Your audit log: 20 entries,')")
    assert worker.evaluate("self.counted") == 0


# In the page's worker: each read of the audit store, as [the lower bound of its range, the count asked for].
NOTE_READS = """() => {
  self.reads = [];
  const getAll = IDBObjectStore.prototype.getAll;
  IDBObjectStore.prototype.getAll = function (range, count) {
    if (this.name === "audit") self.reads.push([range.lower, count ?? null]);
    return getAll.call(this, range, count);
  };
}"""


def test_a_log_longer_than_a_block_is_read_in_blocks_each_from_the_last_record_taken(context, site, tmp_path):
    page = open_eval(context, site)  # its worker has read the empty store
    first = full_run("run-after-5000", grounded={"C01", "C02"})
    page.evaluate(ADD_ROWS, [{"json": "{not json"}] * 5_000 + [{"json": json.dumps(entry)} for entry in first])
    worker = page_worker(page)
    worker.evaluate(NOTE_READS)
    import_run(page, tmp_path, full_run("run-imported", start=100.0), "imported")  # another writer came first
    runs, message, _ = shown(page)
    assert set(runs) == {"run-after-5000", "run-imported"} and runs["run-after-5000"].split()[0] == "2/20"
    assert "5000 unreadable audit entries were skipped" in message.replace(",", ""), message
    reads = worker.evaluate("self.reads")
    assert [0, 5_000] in reads and [5_000, 5_000] in reads, reads  # the second block starts at the first's last
    assert all(count in (5_000, 2) for _, count in reads), reads  # blocks, and the opening view's check
