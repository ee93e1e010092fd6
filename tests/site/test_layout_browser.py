"""Browser tests of the non-explorer pages' layout: no sideways scrolling at six widths, no axe-core
violations at a phone's and a laptop's width, and the evaluation workbench's views with runs loaded."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from eval_helpers import SETTINGS, WRONG_CLAIMS, answer_for, call
from eval_page import show_view
from page_checks import AXE, RUN_AXE, overflow_by_width
from pyapp.evaluation.evalset import FIXED_SETS
from pyapp.evaluation.export import export_json

pytestmark = pytest.mark.browser

STATIC_PAGES = ("", "experiments/", "decisions/", "decisions/DR-001/", "decisions/DR-006/", "no-such-page")
# The Python pages as a visitor first sees them, before Python is ready; later states have their own tests.
PYTHON_PAGES = ("explorer/", "ai-eval/")
# The evaluation workbench's views with two long runs imported and compared, each as its own page.
VIEWS = ("results", "compare", "run", "rate", "data", "methods")
WITH_RUNS = tuple(f"ai-eval/ with long runs, {view}" for view in VIEWS)
# Run ids and model names as long as the audit log allows: they must wrap, not widen the page.
LONG_RUNS = ("run-" + "a" * 60, "run-" + "b" * 60)
LONG_SETTINGS = {**SETTINGS, "model": "claude-a-very-long-model-name-that-goes-on-and-on-20261202-preview"}

def long_runs_export(folder: Path) -> Path:
    """Two complete runs with the longest ids, the second with one wrong claim per kind of check."""
    entries = []
    for n, run_id in enumerate(LONG_RUNS):
        for i, case_id in enumerate(FIXED_SETS.case_ids()):
            wrong = WRONG_CLAIMS[i % len(WRONG_CLAIMS)] if n and i < len(WRONG_CLAIMS) else None
            outcome = "not_grounded" if wrong else "grounded"
            entries.append(call(run_id, case_id, outcome=outcome, answer=answer_for(case_id, wrong),
                                settings=LONG_SETTINGS, time=100 * n + i))
    path = folder / "long-runs.json"
    path.write_text(export_json(entries), encoding="utf-8")
    return path


@pytest.fixture
def page(browser):
    """A page of its own context at 1280 × 800, under the pages' policy."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    yield context.new_page()
    context.close()


@pytest.fixture
def page_without_policy(browser):
    """The same, in a context that bypasses the pages' policy, which refuses the injected (inline) axe-core."""
    context = browser.new_context(bypass_csp=True, viewport={"width": 1280, "height": 800})
    yield context.new_page()
    context.close()


def open_with_runs(page, site, tmp_path) -> None:
    page.goto(site.url + "ai-eval/")
    page.wait_for_selector("body[data-eval-ready='true']", timeout=90_000)
    show_view(page, "data")
    page.set_input_files("#import-file", str(long_runs_export(tmp_path)))
    page.wait_for_selector(f"#runs tr[data-run='{LONG_RUNS[1]}']")
    page.wait_for_selector("#case-table")
    show_view(page, "compare")
    page.click("#compare")
    page.wait_for_selector("#paired-table")


def open_page(page, site, tmp_path, path: str) -> None:
    """Open ``path``; each of ``WITH_RUNS`` is a view of the evaluation page with two long runs imported and
    compared (Results with a case open)."""
    if path in WITH_RUNS:
        open_with_runs(page, site, tmp_path)
        view = path.rsplit(", ", 1)[1]
        show_view(page, view)
        if view == "results":
            page.locator(f"#case-matrix td.cell[data-run='{LONG_RUNS[1]}']").first.click()
            page.wait_for_selector("#case-view:not([hidden])")
    else:
        page.goto(site.url + path)


@pytest.mark.parametrize("path", [*STATIC_PAGES, *PYTHON_PAGES, *WITH_RUNS])
def test_page_does_not_scroll_sideways_at_any_width(page, site, tmp_path, path):
    open_page(page, site, tmp_path, path)
    assert overflow_by_width(page) == {}


def axe_violations(page) -> dict[int, list[str]]:
    found = {}
    for width in (390, 1280):
        page.set_viewport_size({"width": width, "height": 800})
        found[width] = page.evaluate(RUN_AXE)
    return {width: v for width, v in found.items() if v}


@pytest.mark.parametrize("path", [*STATIC_PAGES, *PYTHON_PAGES, *WITH_RUNS])
def test_axe_finds_no_violations(page_without_policy, site, tmp_path, path):
    open_page(page_without_policy, site, tmp_path, path)
    page_without_policy.add_script_tag(path=str(AXE))
    assert axe_violations(page_without_policy) == {}


def test_a_missing_page_gets_the_sites_404_page_with_working_links(page, site):
    response = page.goto(site.url + "no-such-page")
    assert response.status == 404
    assert page.inner_text("h1") == "Page not found"
    header = "() => getComputedStyle(document.querySelector('header.site')).borderBottomStyle"
    assert page.evaluate(header) == "solid"  # the stylesheet loaded
    page.click("main >> text=Decision records")
    page.wait_for_url(site.url + "decisions/")


def test_base_url_field_shows_only_for_an_openai_compatible_server(page, site):
    page.goto(site.url + "ai-eval/?view=run")
    page.wait_for_selector("body[data-eval-ready='true']", timeout=90_000)
    for provider, shown in (("anthropic", False), ("openai-compatible", True), ("openai", False)):
        page.select_option("#provider", provider)
        assert page.is_visible("#base-url") is shown, provider


def test_per_case_table_gives_each_failing_checks_reason_as_the_command_line_does(page, site, tmp_path):
    open_with_runs(page, site, tmp_path)
    show_view(page, "results")
    page.locator(f"#runs tr[data-run='{LONG_RUNS[1]}'] button").click()
    page.wait_for_selector(f"#run-detail[data-run='{LONG_RUNS[1]}']")
    rows = {r.locator("td").first.inner_text(): r for r in page.locator("#case-table tbody tr").all()}
    printed = subprocess.run([sys.executable, "-m", "pyapp", "report", str(tmp_path / "long-runs.json"),
                              "--run", LONG_RUNS[1]], capture_output=True, text=True, check=True).stdout
    failures, case_id = [], None
    for line in printed.splitlines():
        if re.match(r"  C\d\d ", line):
            case_id = line.split()[0]
        elif line.strip().startswith("FAIL"):
            failures.append((case_id, line.strip().removeprefix("FAIL").strip()))
    assert len(failures) >= len(WRONG_CLAIMS)
    for case_id, reason in failures:
        assert reason in rows[case_id].locator("td").last.inner_text(), (case_id, reason)
        outcome = rows[case_id].locator("td").nth(1)
        assert outcome.inner_text() == "not grounded"  # said in words, coloured as well
        assert outcome.locator("span").get_attribute("class") == "outcome-not_grounded"


# Each view's heading, and the address of a section from before the views with the view that now holds it.
HEADINGS = {"results": "results-heading", "compare": "compare-heading", "run": "run-heading", "rate": "rate-heading",
            "data": "export-heading", "methods": "methods-heading"}
OLD_ANCHORS = {"set-heading": "methods", "judge-heading": "rate", "configs-heading": "compare"}


def test_each_view_is_one_click_away_at_its_own_address_under_a_bar_that_stays(page, site, tmp_path):
    open_with_runs(page, site, tmp_path)
    assert page.eval_on_selector_all(".view-nav a", "as => as.map((a) => a.dataset.view)") == list(VIEWS)
    for width in (390, 1280):
        page.set_viewport_size({"width": width, "height": 800})
        for view in VIEWS:
            show_view(page, view)
            assert page.url.endswith(f"?view={view}") or f"?view={view}&" in page.url
            shown = page.eval_on_selector_all("section.view",
                                              "ss => ss.filter((s) => !s.hidden).map((s) => s.dataset.view)")
            assert shown == [view], (width, view)
            assert page.get_attribute(f".view-nav a[data-view='{view}']", "aria-current") == "page"
            # The bar stays on screen, and the view starts below it.
            bar = page.eval_on_selector(".view-nav", "n => n.getBoundingClientRect().bottom")
            top = page.eval_on_selector(f"section[data-view='{view}']", "s => s.getBoundingClientRect().top")
            assert 0 < bar <= top < 800, (width, view)
    for anchor, view in OLD_ANCHORS.items():
        page.goto(site.url + f"ai-eval/#{anchor}")
        page.wait_for_selector(f"section[data-view='{view}']:not([hidden])")
        bar = page.eval_on_selector(".view-nav", "n => n.getBoundingClientRect().bottom")
        top = page.eval_on_selector(f"#{anchor}", "h => h.getBoundingClientRect().top")
        assert 0 < bar <= top < 800, anchor
