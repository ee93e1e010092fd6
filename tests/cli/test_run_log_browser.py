"""A log written by ``python -m pyapp run`` against the fake provider process, imported into the page,
shows the numbers ``report`` prints for it (DR-008)."""

from __future__ import annotations

import json

import pytest

from cli_run import run_cli
from eval_page import export_json, runs_list_row, show_detail

pytestmark = pytest.mark.browser


def test_the_page_imports_the_terminals_log_and_shows_reports_numbers(context, site, terminal_log, tmp_path):  # noqa: F811
    log, _ = terminal_log
    reports = {r["run_id"]: r for r in json.loads(run_cli("report", str(log), "--json").stdout)}
    assert len(reports) == 2

    page = context.new_page()
    page.goto(site.url + "ai-eval/")
    page.wait_for_selector("body[data-eval-ready='true']", timeout=90_000)
    page.set_input_files("#import-file", str(log))
    page.wait_for_selector("#import-message:has-text('Imported 40 entries')", state="attached")
    for run_id, report in reports.items():
        shown = report["display"]
        page.wait_for_selector(f"#runs tr[data-run='{run_id}']")  # the message comes before the list is redrawn
        row = runs_list_row(page, run_id)
        # The runs list splits the command line's "k/n (share, 95% CI low to high)" over two columns.
        assert f"{row[3].removesuffix(')')}, 95% CI {row[4]})" == shown["grounded"], run_id
        assert row[8] == shown["tokens_in_out"], run_id
        show_detail(page, run_id)
        assert page.inner_text("#run-headline").startswith(f"Grounded: {shown['grounded']}. ")
        cells = [r.locator("td").all_inner_texts() for r in page.locator("#case-table tbody tr").all()]
        assert [(c[0], c[1]) for c in cells] == [(c["case_id"], c["outcome_text"]) for c in report["cases"]]

    # The page's own export of what it imported gives the command line the same report, figure for figure.
    exported = export_json(page, tmp_path)
    assert json.loads(run_cli("report", str(exported), "--json").stdout) == list(reports.values())
    page.set_input_files("#import-file", str(log))
    page.wait_for_selector("#import-message:has-text('Imported 0 entries (40 were already here)')", state="attached")
