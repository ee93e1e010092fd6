"""The matrix of cases against runs on /ai-eval/, in Chromium: every cell is the outcome ``report --json``
gives for the page's own export, the arrow keys move through it, a cell opens its run at the case, and
80 cases × 10 runs pass axe without the page scrolling sideways (DR-008)."""

from __future__ import annotations

import pytest

from designed_logs import LARGE_IDS, eighty_by_ten, entries_for_the_matrix
from eval_page import cli, export_json, open_eval
from page_checks import AXE, OVERFLOW, RUN_AXE
from pyapp.evaluation.export import export_json as export_entries

pytestmark = pytest.mark.browser

SHOWN = """() => [...document.querySelectorAll("#case-matrix table.case-matrix")].map((grid) => ({
  set: grid.dataset.set,
  cells: [...grid.querySelectorAll("td.cell")].map((td) => [td.dataset.run, td.dataset.case, td.dataset.cell]),
  flipped: [...grid.tBodies[0].rows].map((tr) => [tr.cells[0].textContent, tr.querySelector(".flipped").textContent]),
}))"""
FOCUSED = "() => [document.activeElement.dataset.run, document.activeElement.dataset.case]"


def import_log(page, tmp_path, entries: list[dict], cells: int) -> None:
    path = tmp_path / "log.json"
    path.write_text(export_entries(entries), encoding="utf-8")
    page.set_input_files("#import-file", str(path))
    page.wait_for_function(f"() => document.querySelectorAll('#case-matrix td.cell').length === {cells}")


def test_every_cell_is_the_outcome_report_gives_and_flips_are_named(context, site, tmp_path):
    page = open_eval(context, site)
    import_log(page, tmp_path, entries_for_the_matrix(), 7 * 20 + 2 * 80)
    reports = {r["run_id"]: r for r in cli("report", str(export_json(page, tmp_path)), "--json")}
    matrix = cli("report", str(tmp_path / "export.json"), "--matrix", "--json")
    shown = page.evaluate(SHOWN)
    assert [grid["set"] for grid in shown] == [section["eval_set_version"] for section in matrix["sets"]]
    seen = set()
    for grid in shown:
        for run_id, case_id, cell in grid["cells"]:
            case = next(c for c in reports[run_id]["cases"] if c["case_id"] == case_id)
            assert cell == (case["outcome"] if case["status"] == "graded" else case["status"])
            seen.add((run_id, case_id))
    assert seen == {(run_id, c["case_id"]) for run_id, r in reports.items() for c in r["cases"]}
    for grid, section in zip(shown, matrix["sets"], strict=True):
        names = {group["configuration"]: group["name"] for group in section["groups"]}
        assert grid["flipped"] == [[row["case_id"], " ".join(names[c] for c in row["flipped_in"])]
                                   for row in section["rows"]]
    assert ["C13", "A"] in shown[0]["flipped"] and ["C18", "B"] in shown[0]["flipped"]
    assert page.inner_text("#matrix-note") == "All 9 runs."


def test_the_arrow_keys_move_through_the_grid_and_enter_opens_the_case(context, site, tmp_path):
    page = open_eval(context, site)
    import_log(page, tmp_path, entries_for_the_matrix(), 7 * 20 + 2 * 80)
    grid = page.locator("#case-matrix table.case-matrix").first
    assert grid.locator("td.cell[tabindex='0']").count() == 1  # one stop in the tab order
    grid.locator("td.cell").first.focus()
    assert page.evaluate(FOCUSED) == ["x1", "C01"]
    page.keyboard.press("ArrowRight")
    assert page.evaluate(FOCUSED) == ["x2", "C01"]
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    assert page.evaluate(FOCUSED) == ["x2", "C03"]
    page.keyboard.press("End")
    assert page.evaluate(FOCUSED) == ["mixed", "C03"]
    page.keyboard.press("ArrowRight")  # the edge holds
    assert page.evaluate(FOCUSED) == ["mixed", "C03"]
    page.keyboard.press("Control+End")
    assert page.evaluate(FOCUSED) == ["mixed", "C20"]
    page.keyboard.press("Control+Home")
    page.keyboard.press("PageDown")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.evaluate(FOCUSED) == ["run-20261206-120000-c0ffee", "C11"]
    assert grid.locator("td.cell[tabindex='0']").count() == 1
    page.keyboard.press("Enter")
    page.wait_for_selector("#run-detail[data-run='run-20261206-120000-c0ffee'][data-case='C11']")
    assert page.evaluate("() => document.activeElement.cells[0].textContent") == "C11"
    assert page.locator("#case-table tr[aria-current='true']").count() == 1
    page.locator("#case-matrix td.cell[data-run='y2'][data-case='C19']").click()
    page.wait_for_selector("#run-detail[data-run='y2'][data-case='C19']")


def test_one_configuration_alone(context, site, tmp_path):
    page = open_eval(context, site)
    import_log(page, tmp_path, entries_for_the_matrix(), 7 * 20 + 2 * 80)
    second = page.eval_on_selector("#matrix-scope", "s => s.options[2].value")
    page.select_option("#matrix-scope", second)
    page.wait_for_function("() => document.querySelectorAll('#case-matrix td.cell').length === 40")
    runs = page.eval_on_selector_all("#case-matrix thead th[data-run]", "ths => ths.map((th) => th.dataset.run)")
    assert runs == ["y1", "y2"]
    assert page.inner_text("#matrix-note") == f"All 2 runs of configuration {second}."


def test_eighty_cases_by_ten_runs_at_phone_and_desktop_widths(browser, site, tmp_path):
    # bypass_csp: axe-core is injected inline
    context = browser.new_context(accept_downloads=True, bypass_csp=True)
    try:
        page = open_eval(context, site)
        import_log(page, tmp_path, eighty_by_ten(), 800)
        assert page.locator("#case-matrix tbody th").all_inner_texts() == LARGE_IDS
        page.add_script_tag(path=str(AXE))
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            for width in (390, 1280):
                page.set_viewport_size({"width": width, "height": 800})
                assert page.evaluate(OVERFLOW) <= 0, f"the page scrolls sideways at {width} px"
                assert page.evaluate(RUN_AXE) == [], f"axe at {width} px, {scheme}"
        # At 390 px the matrix scrolls inside its own box; at 1280 px it fits.
        page.set_viewport_size({"width": 390, "height": 800})
        assert page.eval_on_selector("#case-matrix .matrix-wrap", "w => w.scrollWidth > w.clientWidth")
        page.set_viewport_size({"width": 1280, "height": 800})
        assert page.eval_on_selector("#case-matrix .matrix-wrap", "w => w.scrollWidth <= w.clientWidth")
    finally:
        context.close()
