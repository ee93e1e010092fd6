"""In Chromium: the evaluation page's agreement tables equal ``python -m pyapp agreement --json`` on its export.

The log (two runs rated by two raters, tests/support/agreement_log.py) is imported through the
page's own import; IndexedDB, the worker, Pyodide and pyapp are the built site's own.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from agreement_log import rated_log
from eval_page import export_json, show_view
from page_checks import AXE, OVERFLOW, RUN_AXE
from pyapp.evaluation.export import export_json as export_text
from pyapp.presentation.agreement_tables import agreement_tables

pytestmark = pytest.mark.browser

READ_TABLES = """() => [...document.querySelectorAll('#agreement-tables table')].map((t) => ({
  label: t.closest('[aria-label]').getAttribute('aria-label'),
  columns: [...t.tHead.rows[0].cells].map((c) => c.textContent),
  rows: [...t.tBodies[0].rows].map((r) => [...r.cells].map((c) => c.textContent)),
}))"""


def test_the_pages_agreement_tables_equal_the_command_line_on_the_pages_export(browser, site, tmp_path):
    context = browser.new_context(accept_downloads=True, bypass_csp=True, viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(site.url + "ai-eval/")
        page.wait_for_selector("body[data-eval-ready='true']", timeout=90_000)
        source = tmp_path / "rated.json"
        source.write_text(export_text(rated_log()), encoding="utf-8")
        show_view(page, "data")
        page.set_input_files("#import-file", str(source))
        page.wait_for_selector("#runs tr[data-run='run-b']")
        show_view(page, "rate")
        page.click("#show-agreement")
        page.wait_for_selector("#agreement-tables table")
        shown = page.evaluate(READ_TABLES)

        path = export_json(page, tmp_path)
        done = subprocess.run([sys.executable, "-m", "pyapp", "agreement", str(path), "--json"],
                              capture_output=True, text=True, check=True)
        view = agreement_tables(json.loads(done.stdout))
        expected = [{"label": p["label"], "columns": p["columns"], "rows": p["rows"]} for p in view["pairs"]]
        for rater in view["versus"]:
            expected.append({"label": rater["label"], "columns": rater["columns"], "rows": rater["rows"]})
            expected.append({"label": rater["disagreements_label"], "columns": rater["disagreement_columns"],
                             "rows": rater["disagreements"]})
        assert shown == expected
        assert len(shown) == 5 and shown[0]["rows"][-1][0] == "Overall verdict"
        assert page.inner_text("#agreement-who") == view["who"]
        figures = page.eval_on_selector_all(".agreement-figures", "ps => ps.map(p => p.textContent)")
        assert figures == [rater["figures"] for rater in view["versus"]]
        notes = page.inner_text("#agreement-tables")
        assert all(note in notes for pair in view["pairs"] for note in pair["notes"])

        page.add_script_tag(path=str(AXE))
        for width in (390, 1280):
            page.set_viewport_size({"width": width, "height": 800})
            assert page.evaluate(OVERFLOW) <= 0, f"the page scrolls sideways at {width} px"
            assert page.evaluate(RUN_AXE) == [], f"axe at {width} px"
    finally:
        context.close()
