"""In Chromium: a repeat visit starts Python from the memory snapshot the first visit kept (DR-002).

The first visit starts Python afresh; a second worker then makes a snapshot, keeps it in
IndexedDB and notes its key in local storage; a later visit, on either Python page, restores
it. Both paths must give the same results from the same pyapp operations, called through the
worker's own message interface. A snapshot that is damaged, that is not a snapshot, that was
made from other files or that is gone is not used: the page starts afresh and keeps a new one.
"""

from __future__ import annotations

import shutil
import time

import pytest

from browser_storage import DAMAGE, HINT, SNAPSHOT_DB, STORED, kept
from chromium import python_worker, wait_for_python
from served import serve
from sitegen import ROOT
from sitegen.static import pyodide_folder

pytestmark = pytest.mark.browser

SAMPLE = [
    ("version", {}),
    ("evalset", {}),
    ("tree_view", {"order": "median-first"}),
    ("search_view", {"order": "median-first", "kind": "nearest", "lon": 24.944, "lat": 60.17}),
    ("search_view", {"order": "shuffled", "kind": "radius", "lon": 24.94, "lat": 60.168, "radius": 0.003}),
    ("search_view", {"order": "lon-sorted", "kind": "nearest", "lon": 24.95, "lat": 60.166}),
    ("eval_overview", {}),
]

# One operation through the worker's message interface, as python.mjs sends it; the answer is taken
# from the worker's postMessage before it reaches the page.
CALL = """([op, args]) => new Promise((resolve) => {
  const post = self.postMessage;
  self.postMessage = (message) => {
    if (message.id !== -1) return post.call(self, message);
    self.postMessage = post;
    resolve(message);
  };
  self.dispatchEvent(new MessageEvent("message", { data: { type: "call", id: -1, op, args } }));
})"""
DELETE_DATABASE = "new Promise((done) => { indexedDB.deleteDatabase('kd-tree-explorer-snapshot').onsuccess = done; })"

def visit(context, site, path: str):
    page = context.new_page()
    page.goto(site.url + path)
    assert wait_for_python(page).startswith("Python ready")
    return page


def results(page) -> list:
    worker = python_worker(page)
    return [worker.evaluate(CALL, [op, args]) for op, args in SAMPLE]


def test_a_repeat_visit_starts_from_the_snapshot_with_the_same_results(context, site):
    first = visit(context, site, "explorer/")
    assert first.get_attribute("#python-status", "data-start") == "fresh"
    fresh = results(first)
    assert all(answer["ok"] for answer in fresh), fresh
    kept(first)

    for path in ("ai-eval/", "explorer/"):
        again = visit(context, site, path)
        assert again.get_attribute("#python-status", "data-start") == "snapshot"
        assert results(again) == fresh


@pytest.mark.parametrize("damage", DAMAGE.values(), ids=DAMAGE.keys())
def test_an_unusable_snapshot_is_replaced_by_a_fresh_start(context, site, damage):
    first = visit(context, site, "ai-eval/")
    fresh = results(first)
    good = kept(first)
    first.evaluate(SNAPSHOT_DB % damage, "python")
    assert first.evaluate(STORED, "python") != good

    fallback = visit(context, site, "ai-eval/")
    assert fallback.get_attribute("#python-status", "data-start") == "fresh"
    assert results(fallback) == fresh
    assert kept(fallback)["key"] == good["key"]

    restored = visit(context, site, "explorer/")
    assert restored.get_attribute("#python-status", "data-start") == "snapshot"
    assert results(restored) == fresh


def test_a_snapshot_noted_but_gone_is_replaced_by_a_fresh_start(context, site):
    first = visit(context, site, "ai-eval/")
    fresh = results(first)
    good = kept(first)
    first.evaluate(DELETE_DATABASE)
    assert first.evaluate(STORED, "python") is None
    assert first.evaluate(HINT)["kept"]

    fallback = visit(context, site, "explorer/")
    assert fallback.get_attribute("#python-status", "data-start") == "fresh"
    assert results(fallback) == fresh
    assert kept(fallback)["key"] == good["key"]
    assert visit(context, site, "ai-eval/").get_attribute("#python-status", "data-start") == "snapshot"


def test_a_pyodide_without_the_snapshot_option_starts_afresh_every_time(context, dist, tmp_path):
    """Pyodide's snapshot API is private: a version without ``makeMemorySnapshot`` must still start."""
    older = tmp_path / "dist"
    shutil.copytree(dist, older)
    runtime = older / pyodide_folder(ROOT / "node_modules" / "pyodide") / "pyodide.asm.mjs"
    text = runtime.read_text(encoding="utf-8")
    assert text.count("static makeMemorySnapshot(") == 1
    runtime.write_text(text.replace("static makeMemorySnapshot(", "static withoutMemorySnapshot("), encoding="utf-8")
    served = serve(older, "/kd/")
    try:
        first = visit(context, served, "explorer/")
        assert first.get_attribute("#python-status", "data-start") == "fresh"
        fresh = results(first)
        deadline = time.monotonic() + 60
        while first.evaluate(HINT) is None and time.monotonic() < deadline:
            time.sleep(0.25)
        assert first.evaluate(HINT)["kept"] is False  # noted, so later visits do not try again
        assert first.evaluate(STORED, "python") is None
        again = visit(context, served, "explorer/")
        assert again.get_attribute("#python-status", "data-start") == "fresh"
        assert results(again) == fresh
        time.sleep(2)  # time enough for start.js to start a snapshot's worker, had it wanted one
        assert len(again.workers) == 1
    finally:
        served.server.shutdown()
        served.server.server_close()
