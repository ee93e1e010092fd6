"""In Chromium: the /ai-eval/ runs list follows the log as it grows, in this tab and from another (DR-006).

The worker keeps the log it has read (``pyapp.browser.LogCache``); these tests append to the
real IndexedDB store through the page's import, in the same tab and in a second one, and
check the list against ``python -m pyapp report`` on the same entries.
"""

from __future__ import annotations

import json

import pytest
from eval_helpers import full_run
from test_eval_browser import cli, entries, open_eval

from pyapp.export import export_json

pytestmark = pytest.mark.browser


def import_run(page, tmp_path, run_entries: list[dict], name: str, already: int = 0) -> None:
    path = tmp_path / f"{name}.json"
    path.write_text(export_json(run_entries))
    page.set_input_files("#import-file", str(path))
    added = len(run_entries) - already
    page.wait_for_selector(f"#import-message:has-text('Imported {added} entries ({already} were already here)')")


def listed(page) -> dict[str, str]:
    """Run id -> its grounded count as the runs list shows it."""
    rows = page.locator("#runs tbody tr")
    return {rows.nth(i).get_attribute("data-run"): rows.nth(i).locator("td").nth(3).inner_text()
            for i in range(rows.count())}


def reported(page, tmp_path) -> dict[str, str]:
    """Run id -> grounded count, from ``python -m pyapp report`` on an export of the page's whole store."""
    path = tmp_path / "store.json"
    path.write_text(export_json(entries(page)))
    return {r["run_id"]: f"{r['grounded']}/{r['graded']}" for r in cli("report", str(path), "--json")}


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
    tab_a.wait_for_selector("#runs tr[data-run='run-cache-3']")
    shown = listed(tab_a)
    assert set(shown) == {"run-cache-1", "run-cache-2", "run-cache-3"}
    assert {run: text.split()[0] for run, text in shown.items()} == reported(tab_a, tmp_path)
    assert json.loads(tab_a.inner_text("#runs-message").split()[4]) == 60  # "3 runs rebuilt from 60 logged calls"
