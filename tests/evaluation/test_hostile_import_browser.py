"""In Chromium: a hostile import never breaks /ai-eval/ and never loses the runs already there (DR-006).

The provider is mocked at the network edge as in test_eval_browser; the import goes
through the real page, worker, Pyodide and IndexedDB.
"""

from __future__ import annotations

import json

import pytest

from browser_storage import ADD_ROWS
from eval_page import ANTHROPIC, FakeAnthropic, entries, export_json, open_eval, show_view, start_run
from pyapp.evaluation.export import UTF8_ONLY
from pyapp.presentation.run_comparison import SAME_RUN

pytestmark = pytest.mark.browser


def _import(page, path) -> str:
    page.set_input_files("#import-file", str(path))
    page.wait_for_selector("#import-message:is([data-state='imported'], [data-state='refused'])", state="attached")
    message = page.inner_text("#import-message")
    page.evaluate("() => { const m = document.getElementById('import-message'); m.textContent = '';"
                  " delete m.dataset.state; }")
    return message


def as_another_run(exported: dict, name: str) -> dict:
    """The export, its entries changed in place into run ``run-NAME-1`` with ids of their own."""
    for entry in exported["entries"]:
        entry["id"] = f"{name}-" + entry["id"][:20]
        entry["run_id"] = f"run-{name}-1"
    return exported


def test_a_400_digit_distance_answer_is_a_model_failure_and_the_page_stays_ready_after_reload(context, site,
                                                                                              tmp_path):
    context.route(ANTHROPIC, FakeAnthropic())
    page = open_eval(context, site)
    start_run(page)
    exported = json.loads(export_json(page, tmp_path).read_text())
    own_run = exported["entries"][0]["run_id"]
    for entry in as_another_run(exported, "hostile")["entries"]:
        if entry["type"] == "call" and entry["case_id"] == "C01":
            claims = json.loads(entry["answer"])
            claims["distance"] = 10**400
            entry["answer"] = json.dumps(claims)
    hostile = tmp_path / "hostile.json"
    hostile.write_text(json.dumps(exported), encoding="utf-8")

    assert _import(page, hostile) == "Imported 20 entries (0 were already here)."
    row = page.locator("#runs tr[data-run='run-hostile-1'] td")
    assert row.nth(3).inner_text().startswith("19/20")

    page.reload()
    page.wait_for_selector("body[data-eval-ready='true']", timeout=90_000)
    rows = page.locator("#runs tbody tr")
    assert {rows.nth(i).get_attribute("data-run") for i in range(rows.count())} == {own_run, "run-hostile-1"}
    page.locator("#runs tr[data-run='run-hostile-1'] button").click()
    page.wait_for_selector("#run-detail[data-run='run-hostile-1']")
    detail = page.locator("#case-table tr", has_text="C01").inner_text()
    assert "model failure" in detail and "distance is a number out of range" in detail


def test_a_file_or_comparison_the_command_line_refuses_is_refused_by_the_page_with_the_same_sentence(context, site,
                                                                                                 tmp_path):
    context.route(ANTHROPIC, FakeAnthropic())
    page = open_eval(context, site)
    start_run(page)
    exported = as_another_run(json.loads(export_json(page, tmp_path).read_text()), "other")
    before = len(entries(page))
    latin = tmp_path / "latin.json"
    exported["entries"][0]["message"] = "Café"
    latin.write_bytes(json.dumps(exported, ensure_ascii=False).encode("latin-1"))
    assert _import(page, latin) == UTF8_ONLY, "the command line's sentence, once"
    other = tmp_path / "other.json"
    other.write_text('{"format": "something else"}', encoding="utf-8")
    assert _import(page, other) == ('This is not an evaluation export of this site: it needs '
                                    '"format": "kd-tree-explorer-audit". Nothing was imported.')
    surrogate = tmp_path / "surrogate.json"
    exported["entries"][0]["message"] = "\ud800"
    surrogate.write_text(json.dumps(exported), encoding="ascii")
    message = _import(page, surrogate)
    assert "message: holds characters that are not valid Unicode" in message
    assert "Error" not in message and message.count("othing was imported") == 1
    assert len(entries(page)) == before

    own = page.locator("#runs tbody tr").first.get_attribute("data-run")  # refused as compare refuses it
    show_view(page, "compare")
    page.select_option("#compare-a", own)
    page.select_option("#compare-b", own)
    page.click("#compare")
    page.wait_for_selector("#compare-refused")
    assert page.inner_text("#comparison") == SAME_RUN


def test_stored_entries_with_a_huge_number_or_deep_nesting_are_skipped_and_counted(context, site):
    context.route(ANTHROPIC, FakeAnthropic())
    page = open_eval(context, site)
    start_run(page)
    huge = entries(page)[0] | {"id": "stored-huge-1", "total_ms": 10**400}
    page.evaluate(ADD_ROWS, [{"json": json.dumps(huge)}, {"json": "[" * 100_000 + "]" * 100_000}])
    page.reload()
    page.wait_for_selector("body[data-eval-ready='true']", timeout=90_000)
    assert "2 unreadable audit entries were skipped (left in place)" in page.inner_text("#runs-message")
    assert page.locator("#runs tbody tr").count() == 1
