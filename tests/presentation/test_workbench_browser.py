"""The evaluation workbench as views, in Chromium (DR-006): a first visit's start panel and its three ways in,
the demo's read-only workspace, the Results view after an import with the failing rows in the first screen,
a log of many runs listed newest first a hundred at a time, an opened case's heading in the window at desktop
and phone widths, and no figure or table clipped on a phone without a cue."""

from __future__ import annotations

import json

import pytest

from browser_storage import ADD_ROWS
from chromium import python_worker
from designed_logs import entries_with_designed_flips
from eval_helpers import full_run
from eval_page import DUMP_DB, open_eval, show_view
from pyapp.evaluation.export import export_json as export_entries
from pyapp.evaluation.rebuild import rebuild

pytestmark = pytest.mark.browser

VIEWS = ("results", "compare", "run", "rate", "data", "methods")
# Where each element's box is in the window: its top and bottom, and the window's height.
IN_WINDOW = "(node) => { const r = node.getBoundingClientRect(); return [r.top, r.bottom, innerHeight]; }"
# Every drawing wider than the box it is in, and every table wider than its box whose box does not scroll
# with the edge shadow the site's tables have.
CLIPPED = """() => {
  const wider = (node) => node.getBoundingClientRect().width > node.parentElement.getBoundingClientRect().width + 1;
  const figures = [...document.querySelectorAll("main svg")].filter((s) => s.getClientRects().length && wider(s));
  const tables = [...document.querySelectorAll("main table")].filter((t) => t.getClientRects().length).filter((t) => {
    const box = t.parentElement;
    if (box.scrollWidth <= box.clientWidth + 1) return false;
    const style = getComputedStyle(box);
    return !(style.overflowX === "auto" && style.backgroundImage.includes("gradient"));
  });
  return [...figures, ...tables].map((n) => n.id || n.className.baseVal || n.className || n.tagName);
}"""


def import_file(page, tmp_path, entries: list[dict]) -> None:
    path = tmp_path / "six-runs.json"
    path.write_text(export_entries(entries), encoding="utf-8")
    show_view(page, "data")
    page.set_input_files("#import-file", str(path))
    page.wait_for_selector("section[data-view='results']:not([hidden]) #case-matrix td.cell")


def test_a_first_visit_opens_on_the_start_panel_with_three_ways_in(context, site):
    page = context.new_page()
    page.goto(site.url + "ai-eval/")
    page.wait_for_selector("body[data-eval-ready='true']", timeout=90_000)
    assert page.get_attribute("body", "data-view") == "results"
    assert page.is_visible("#start") and page.is_hidden("#results-body")
    links = page.locator(".start-actions a")
    assert links.all_inner_texts() == ["Run the set with your key", "Import an export", "Open the demo"]
    page.click("#start-run-link")
    page.wait_for_selector("section[data-view='run']:not([hidden]) #api-key")
    assert page.url.endswith("?view=run")
    page.go_back()
    page.wait_for_selector("#start:not([hidden])")
    page.click("#start-import-link")
    page.wait_for_selector("section[data-view='data']:not([hidden]) #import-file")


def test_the_demo_opens_on_results_labelled_and_leaves_the_visitors_log_as_it_was(context, site):
    page = open_eval(context, site)
    own = full_run("mine", {"C01", "C02"})
    page.evaluate(ADD_ROWS, [{"json": json.dumps(entry)} for entry in own])
    before = page.evaluate(DUMP_DB)
    page.goto(site.url + "ai-eval/?demo=1")  # the start panel's third link
    page.wait_for_selector("body[data-demo='true'][data-eval-ready='true']", timeout=90_000)
    assert page.get_attribute("body", "data-view") == "results"
    page.wait_for_selector("#case-matrix td.cell")
    shown = {cell.get_attribute("data-run") for cell in page.locator("#case-matrix td.cell").all()}
    assert "mine" not in shown and len(shown) == 6  # the demo's own six runs, none of the visitor's
    cells = set(page.eval_on_selector_all("#case-matrix td.cell", "tds => tds.map((td) => td.dataset.cell)"))
    assert {"grounded", "not_grounded", "model_failure", "infrastructure_failure"} <= cells
    assert page.locator("#case-matrix .flipped").all_inner_texts().count("") < 20  # cases flip across repeats
    for view in VIEWS:
        show_view(page, view)
        assert page.is_visible("#demo-banner"), f"{view} says it shows the demo"
        assert "demo=1" in page.url
        assert page.inner_text("#demo-banner").startswith("Demo: scripted answers, not a model's results.")
    assert page.is_disabled("#start-run") and page.is_disabled("#import-file")
    assert python_worker(page).evaluate("performance.getEntriesByName('kept-asked').length") == 0  # keeps nothing
    show_view(page, "rate")
    page.click("#show-agreement")
    page.wait_for_selector(".agreement-judge")  # two people and a judge
    assert page.locator(".agreement-pair").count() >= 1
    page.click("#leave-demo")
    page.wait_for_selector("body[data-eval-ready='true']:not([data-demo])", timeout=90_000)
    assert page.evaluate(DUMP_DB) == before
    assert {cell.get_attribute("data-run") for cell in page.locator("#case-matrix td.cell").all()} == {"mine"}


def test_a_log_of_many_runs_lists_the_newest_hundred_and_the_rest_on_request(context, site):
    page = open_eval(context, site)
    runs = [full_run(f"run-{n:03d}", {"C01"} if n % 2 else None, start=100.0 * n) for n in range(101)]
    page.evaluate(ADD_ROWS, [{"json": json.dumps(entry)} for run in runs for entry in run])
    page.close()
    page = open_eval(context, site)
    show_view(page, "results")
    page.wait_for_selector("#runs tbody tr")
    listed = page.locator("#runs tbody tr")
    assert listed.count() == 100 and page.locator("#rates-plot circle.estimate").count() == 100
    assert [listed.nth(n).get_attribute("data-run") for n in (0, 99)] == ["run-100", "run-001"]
    assert page.inner_text("#runs-more-text") == "The newest 100 of 101 runs are listed."
    assert page.locator("#runs tbody tr[data-run='run-000']").count() == 0
    page.click("#runs-all")  # the worker rates the rest then
    page.wait_for_selector("#runs tbody tr[data-run='run-000']")
    assert listed.count() == 101 and page.locator("#rates-plot circle.estimate").count() == 101
    assert page.is_hidden("#runs-more")
    assert page.evaluate("document.activeElement.closest('tr').dataset.run") == "run-000"  # the run newly listed
    page.click("#runs tr[data-run='run-000'] button")
    page.wait_for_selector("#run-detail[data-run='run-000']")


def test_after_an_import_the_failing_rows_are_in_the_first_window(context, site, tmp_path):
    page = open_eval(context, site)
    page.set_viewport_size({"width": 1280, "height": 800})
    entries = entries_with_designed_flips()
    import_file(page, tmp_path, entries)
    failing = sorted({result.case_id for run in rebuild(entries) for result in run.graded
                      if result.grade.outcome != "grounded"})
    assert failing, "the designed log has failing cases"
    for case_id in failing:
        top, bottom, height = page.eval_on_selector(f"#case-matrix tbody tr:has(th:text-is('{case_id}'))", IN_WINDOW)
        assert 0 <= top and bottom <= height, f"{case_id}'s row at {top}–{bottom} px in a window of {height}"


@pytest.mark.parametrize("width", [1280, 390], ids=["desktop", "phone"])
def test_an_opened_case_has_its_heading_in_the_window(context, site, tmp_path, width):
    page = open_eval(context, site)
    page.set_viewport_size({"width": width, "height": 844})
    import_file(page, tmp_path, entries_with_designed_flips())
    page.locator("#case-matrix td.cell[data-run='y2'][data-case='C19']").click()
    page.wait_for_selector("#case-view[data-case='C19']:not([hidden])")
    for step in ("next-case", "previous-run", "next-run"):
        top, bottom, height = page.eval_on_selector("#case-view-heading", IN_WINDOW)
        nav = page.eval_on_selector(".view-nav", "n => n.getBoundingClientRect().bottom")
        assert nav <= top and bottom <= height, f"the heading at {top}–{bottom} px, under a bar ending at {nav}"
        page.click(f"#case-view-nav [data-go='{step}']")
        page.wait_for_timeout(300)
    # The walkthrough reads as prose whose step numbers open the explorer; the answer as logged is folded.
    assert page.locator("#case-prose p").count() >= 1
    assert page.locator("#case-prose a").first.get_attribute("href").startswith("../explorer/?")
    assert page.locator("#case-claims tbody tr").count() == 4
    assert page.is_hidden("#case-answer") and page.inner_text("#case-raw summary") == "Raw answer"


def test_at_phone_width_no_figure_or_table_is_clipped_without_a_cue(context, site, tmp_path):
    page = open_eval(context, site)
    import_file(page, tmp_path, entries_with_designed_flips())
    page.set_viewport_size({"width": 390, "height": 844})
    page.locator("#case-matrix td.cell[data-run='x2'][data-case='C16']").click()
    page.wait_for_selector("#case-view:not([hidden])")
    assert page.evaluate(CLIPPED) == []
    page.click("#case-view-nav [data-go='matrix']")
    assert page.evaluate(CLIPPED) == []
    show_view(page, "compare")
    page.click("#compare")
    page.click("#compare-configs")
    page.wait_for_selector("#config-plot")
    page.wait_for_selector("#compare-plot")
    assert page.evaluate(CLIPPED) == []
    sides = page.locator("#config-plot text.side").all_text_contents()  # SVG text has no innerText
    assert sides == ["← X better", "Y better →"]
