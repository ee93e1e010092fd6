"""The matrix of cases against runs on /ai-eval/, in Chromium: every cell is the outcome ``report --json``
gives for the page's own export, the arrow keys move through it, a cell opens the case (its answer as
text, its checks, the steps it cited with working explorer links, its call and ratings), the address
brings the view back after a reload, and 80 cases × 10 runs pass axe without the page scrolling sideways
(DR-008)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from designed_logs import LARGE_IDS, eighty_by_ten, entries_for_the_matrix
from eval_helpers import call, rating
from eval_page import KEY, cli, export_json, open_eval, show_view
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
    show_view(page, "data")
    page.set_input_files("#import-file", str(path))
    page.wait_for_function(f"() => document.querySelectorAll('#case-matrix td.cell').length === {cells}")
    page.wait_for_selector("section[data-view='results']:not([hidden])")  # an import opens the Results view


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
    page.wait_for_selector("#case-view[data-run='run-20261206-120000-c0ffee'][data-case='C11']:not([hidden])")
    assert page.evaluate("() => document.activeElement.id") == "case-view"
    page.keyboard.press("ArrowDown")
    page.wait_for_selector("#case-view[data-run='run-20261206-120000-c0ffee'][data-case='C12']")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("#case-view[data-run='y1'][data-case='C12']")
    page.keyboard.press("ArrowUp")
    page.wait_for_selector("#case-view[data-run='y1'][data-case='C11']")
    page.keyboard.press("Escape")
    assert page.evaluate(FOCUSED) == ["y1", "C11"]
    assert grid.locator("td.cell[tabindex='0']").count() == 1
    page.locator("#case-matrix td.cell[data-run='y2'][data-case='C19']").click()
    page.wait_for_selector("#case-view[data-run='y2'][data-case='C19']")
    page.click("#case-view-nav [data-go='run-detail']")
    page.wait_for_selector("#run-detail[data-run='y2'][data-case='C19']")
    assert page.evaluate("() => document.activeElement.cells[0].textContent") == "C19"
    assert page.locator("#case-table tr[aria-current='true']").count() == 1


def test_a_cell_opens_the_answer_as_text_its_checks_cited_steps_call_and_ratings(context, site, tmp_path):
    entries = entries_for_the_matrix()
    counted = next(e for e in entries if e["run_id"] == "x2" and e["case_id"] == "C16" and e["type"] == "call")
    markup = '<b>bold</b><img src="x"> {"walkthrough": '
    entries += [rating(counted["id"], "ann", time=900.0, pruning=False),
                call("html", "C01", outcome="model_failure", answer=markup, stop="end", time=901.0)]
    page = open_eval(context, site)
    import_log(page, tmp_path, entries, 8 * 20 + 2 * 80)
    case = next(c for c in cli("report", str(export_json(page, tmp_path)), "--run", "x2", "--json")["cases"]
                if c["case_id"] == "C16")
    page.locator("#case-matrix td.cell[data-run='x2'][data-case='C16']").click()
    page.wait_for_selector("#case-view[data-run='x2'][data-case='C16']:not([hidden])")
    assert page.inner_text("#case-view-heading") == "C16 in run x2 #2: not grounded"
    assert page.text_content("#case-answer") == counted["answer"]
    rows = page.eval_on_selector_all("#case-checks tbody tr",
                                     "trs => trs.map((tr) => [...tr.cells].map((c) => c.textContent))")
    assert rows == [[c["name"], "pass" if c["passed"] else "FAIL", c["reason"]] for c in case["checks"]]
    assert len(rows) == 5 and [row[1] for row in rows].count("FAIL") == 1
    assert page.locator("#case-ratings li").all_inner_texts()[0].startswith("ann: ")
    call_shown = dict(zip(page.locator("#case-call dt").all_inner_texts(),
                          page.locator("#case-call dd").all_inner_texts(), strict=True))
    assert call_shown["Tokens"] == "5,000 in, 600 out" and call_shown["Model asked"] == "anthropic claude-test-1"

    cited = page.locator("#case-cited tbody tr")
    assert cited.count() == 3
    href = cited.nth(1).locator("a").get_attribute("href")
    explorer = context.new_page()
    explorer.goto(page.url.split("?")[0].removesuffix("ai-eval/") + href.removeprefix("../"))
    explorer.wait_for_selector("body[data-explorer-ready='true']", timeout=90_000)
    asked = parse_qs(urlsplit(href).query)
    assert explorer.get_attribute("#step-caption", "data-step") == "2" and "step=2" in explorer.url
    assert explorer.input_value("#order") == case["order"] == asked["order"][0]
    assert [explorer.input_value("#lon"), explorer.input_value("#lat")] == [asked["lon"][0], asked["lat"][0]]

    # An answer is text, never HTML: markup in it shows as it was written.
    page.locator("#case-matrix td.cell[data-run='html'][data-case='C01']").click()
    page.wait_for_selector("#case-view[data-run='html'][data-case='C01']")
    assert page.text_content("#case-answer") == markup
    assert page.locator("#case-answer *").count() == 0


def test_one_configuration_alone_and_the_address_bringing_it_and_the_case_back_after_a_reload(context, site, tmp_path):
    page = open_eval(context, site)
    import_log(page, tmp_path, entries_for_the_matrix(), 7 * 20 + 2 * 80)
    second = page.eval_on_selector("#matrix-scope", "s => s.options[2].value")
    page.select_option("#matrix-scope", second)
    page.wait_for_function("() => document.querySelectorAll('#case-matrix td.cell').length === 40")
    runs = page.eval_on_selector_all("#case-matrix thead th[data-run]", "ths => ths.map((th) => th.dataset.run)")
    assert runs == ["y1", "y2"]  # that configuration alone
    assert page.inner_text("#matrix-note") == "All 2 runs of configuration B · gpt-test-1."
    page.locator("#case-matrix td.cell[data-run='y2'][data-case='C19']").click()
    page.wait_for_selector("#case-view[data-run='y2'][data-case='C19']:not([hidden])")
    heading = page.inner_text("#case-view-heading")
    assert page.url.endswith(f"?view=results&configuration={second}&run=y2&case=C19") and KEY not in page.url
    page.reload()
    page.wait_for_selector("#case-view[data-run='y2'][data-case='C19']:not([hidden])", timeout=90_000)
    assert page.input_value("#matrix-scope") == second
    assert page.locator("#case-matrix td.cell").count() == 40
    assert page.inner_text("#case-view-heading") == heading
    page.goto(page.url.split("?")[0] + "?run=<b>x</b>&case=C01")  # not an id: ignored
    page.wait_for_selector("body[data-eval-ready='true']", timeout=90_000)
    assert page.locator("#case-view").is_hidden()


def test_the_address_brings_back_the_run_detail_and_both_comparisons(context, site, tmp_path):
    page = open_eval(context, site)
    import_log(page, tmp_path, entries_for_the_matrix(), 7 * 20 + 2 * 80)
    page.click("#runs tr[data-run='x2'] button")
    page.wait_for_selector("#run-detail[data-run='x2']")
    show_view(page, "compare")
    page.select_option("#compare-a", "x1")
    page.select_option("#compare-b", "x3")
    page.click("#compare")
    page.wait_for_selector("#compare-figures")
    x, y = page.eval_on_selector("#config-x", "s => [s.options[0].value, s.options[1].value]")
    page.select_option("#config-x", y)
    page.select_option("#config-y", x)
    page.click("#compare-configs")
    page.wait_for_selector("#config-figures")
    shown = [page.inner_text("#compare-figures"), page.inner_text("#config-figures")]
    assert page.url.endswith(f"?view=compare&detail=x2&first=x1&second=x3&x={y}&y={x}")
    page.reload()
    page.wait_for_selector("#config-figures", timeout=90_000)
    page.wait_for_selector("#compare-figures")
    assert page.get_attribute("#run-detail", "data-run") == "x2"
    assert [page.input_value(s) for s in ("#compare-a", "#compare-b", "#config-x", "#config-y")] == ["x1", "x3", y, x]
    assert [page.inner_text("#compare-figures"), page.inner_text("#config-figures")] == shown
    assert page.url.endswith(f"?view=compare&detail=x2&first=x1&second=x3&x={y}&y={x}")
    # An address from before the views names no view: it opens the one that holds what it names.
    page.goto(page.url.split("?")[0] + f"?detail=x2&first=x1&second=x3&x={y}&y={x}")
    page.wait_for_selector("#config-figures", timeout=90_000)
    assert page.url.endswith(f"?view=compare&detail=x2&first=x1&second=x3&x={y}&y={x}")
    show_view(page, "results")
    assert page.get_attribute("#run-detail", "data-run") == "x2"
    page.go_back()  # the browser's back button returns to the previous view
    page.wait_for_selector("section[data-view='compare']:not([hidden])")


def test_eighty_cases_by_ten_runs_at_phone_and_desktop_widths(browser, site, tmp_path):
    # bypass_csp: axe-core is injected inline
    context = browser.new_context(accept_downloads=True, bypass_csp=True)
    try:
        page = open_eval(context, site)
        import_log(page, tmp_path, eighty_by_ten(), 800)
        assert page.locator("#case-matrix tbody th").all_inner_texts() == LARGE_IDS
        show_view(page, "compare")
        page.click("#compare-configs")  # the two configurations' comparison drawn too
        page.wait_for_selector("#config-plot")
        page.add_script_tag(path=str(AXE))
        for view in ("compare", "results"):
            show_view(page, view)
            for scheme in ("light", "dark"):
                page.emulate_media(color_scheme=scheme)
                for width in (390, 1280):
                    page.set_viewport_size({"width": width, "height": 800})
                    assert page.evaluate(OVERFLOW) <= 0, f"{view}: the page scrolls sideways at {width} px"
                    assert page.evaluate(RUN_AXE) == [], f"{view}: axe at {width} px, {scheme}"
        # At 390 px the matrix scrolls inside its own box; at 1280 px it fits.
        page.set_viewport_size({"width": 390, "height": 800})
        assert page.eval_on_selector("#case-matrix .matrix-wrap", "w => w.scrollWidth > w.clientWidth")
        page.set_viewport_size({"width": 1280, "height": 800})
        assert page.eval_on_selector("#case-matrix .matrix-wrap", "w => w.scrollWidth <= w.clientWidth")
    finally:
        context.close()
