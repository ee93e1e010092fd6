"""End to end in Chromium: three explorer searches become the visitor's own set, which runs apart (DR-009).

The provider is mocked at the network edge (route interception of the Anthropic
URL); the worker, Pyodide, pyapp and IndexedDB are the built site's own.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from eval_page import ANTHROPIC, FakeAnthropic, calls, entries, export_json, open_eval, show_view, wait_run_end
from page_checks import AXE, OVERFLOW, RUN_AXE
from pyapp.auditlog.entries import own_case_entry
from pyapp.evaluation.evalset import EVAL_SET_VERSION
from pyapp.evaluation.own_cases import own_cases_of

pytestmark = pytest.mark.browser

# Three searches typed into the explorer's form: (order, kind option, lon, lat).
SEARCHES = [("shuffled", "nearest", "24.9440000", "60.1700000"),
            ("median-first", "radius:0.0005", "24.9500000", "60.1680000"),
            ("file", "nearest", "24.9400000", "60.1660000")]


def as_search(order: str, kind: str, lon: str, lat: str) -> dict:
    name, _, radius = kind.partition(":")
    return {"order": order, "kind": name, "lon": float(lon), "lat": float(lat),
            "radius": float(radius) if radius else None}


MINE = own_cases_of([own_case_entry(f"o{i}", "2026-12-03T10:00:00.000Z", as_search(*s))
                     for i, s in enumerate(SEARCHES)])


def cli(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pyapp", *args], capture_output=True, text=True, check=check)


def add_search(page, order: str, kind: str, lon: str, lat: str) -> str:
    page.select_option("#order", order)
    page.select_option("#kind", kind)
    page.fill("#lon", lon)
    page.fill("#lat", lat)
    page.click("#run-search")
    page.wait_for_function("(lon) => window.shownSearch && window.shownSearch.lon === Number(lon)", arg=lon,
                           timeout=60_000)
    page.evaluate("() => { document.getElementById('own-case-status').textContent = ''; }")
    page.click("#add-own-case")
    page.wait_for_function("() => document.getElementById('own-case-status').textContent !== ''")
    return page.inner_text("#own-case-status")


def no_overflow_or_axe(page) -> None:
    for width in (390, 1280):
        page.set_viewport_size({"width": width, "height": 800})
        assert page.evaluate(OVERFLOW) <= 0, f"the page scrolls sideways at {width} px"
        assert page.evaluate(RUN_AXE) == [], f"axe at {width} px"


def test_three_explorer_searches_make_a_labelled_set_that_runs_apart_from_the_fixed_set(browser, site, tmp_path):
    # bypass_csp: the axe-core script is injected inline (as in test_layout_browser)
    context = browser.new_context(accept_downloads=True, bypass_csp=True, viewport={"width": 1280, "height": 900})
    try:
        context.route(ANTHROPIC, FakeAnthropic())  # answers every prompt faithfully
        explorer = context.new_page()
        explorer.goto(site.url + "explorer/")
        explorer.wait_for_selector("body[data-explorer-ready='true']", timeout=90_000)
        explorer.evaluate("document.addEventListener('search-shown', (e) => { window.shownSearch = e.detail; })")
        said = [add_search(explorer, *s) for s in SEARCHES]
        assert [text.split(".")[0] for text in said] == ["Added as Y01", "Added as Y02", "Added as Y03"]
        assert said[-1].startswith(f"Added as Y03. Your cases are {MINE.name} (your own cases): 3 searches.")
        assert add_search(explorer, *SEARCHES[0]).startswith("This search is already Y01 of your cases.")
        explorer.add_script_tag(path=str(AXE))
        no_overflow_or_axe(explorer)

        page = open_eval(context, site)
        option = page.locator(f"#set-select option[value='{MINE.name}']")
        assert option.inner_text() == f"{MINE.name} (your own cases) (3 cases)"
        assert page.inner_text(f"#set-guidance li[data-set='{MINE.name}']").startswith(
            f"{MINE.name} (your own cases), 3 cases: the Wilson 95% interval is ±")
        page.select_option("#set-select", MINE.name)
        page.wait_for_function("() => document.querySelector('#set-size').textContent === '3 cases'")
        assert page.locator("#evalset tbody tr").evaluate_all("rows => rows.map(r => r.dataset.case)") == [
            "Y01", "Y02", "Y03"]
        assert page.inner_text("#set-summary").startswith(f"{MINE.name} (your own cases): 3 searches you added")
        page.wait_for_function("() => document.querySelector('#run-estimate').textContent.includes('3 calls')")

        page.click("#start-run")
        assert "has an answer for every case" in wait_run_end(page)
        own_calls = calls(page)
        assert [(e["case_id"], e["eval_set_version"]) for e in own_calls] == [
            ("Y01", MINE.name), ("Y02", MINE.name), ("Y03", MINE.name)]
        own_run = own_calls[0]["run_id"]

        show_view(page, "run")
        page.select_option("#set-select", EVAL_SET_VERSION)
        page.wait_for_function("() => document.querySelector('#set-size').textContent === '20 cases'")
        page.click("#start-run")
        assert "has an answer for every case" in wait_run_end(page)
        fixed_run = next(e["run_id"] for e in calls(page) if e["run_id"] != own_run)
        assert sum(1 for e in entries(page) if e["type"] == "own_case") == 3

        # Labelled wherever the run appears; the fixed run is not.
        page.wait_for_selector(f"#runs tr[data-run='{fixed_run}']")
        assert "your own cases" in page.inner_text(f"#runs tr[data-run='{own_run}']")
        assert "your own cases" not in page.inner_text(f"#runs tr[data-run='{fixed_run}']")
        labels = page.eval_on_selector_all("#configurations .config-label", "ps => ps.map(p => p.textContent)")
        assert sorted("your own cases" in text for text in labels) == [False, True]
        # Never compared: the page says why, by name, as the command line does.
        show_view(page, "compare")
        page.select_option("#compare-a", own_run)
        page.select_option("#compare-b", fixed_run)
        page.click("#compare")
        page.wait_for_selector("#compare-refused")
        refused = page.inner_text("#compare-refused")
        assert f"{MINE.name} is a set of your own cases and {EVAL_SET_VERSION} a fixed set" in refused
        assert page.locator("#paired-table").count() == 0

        path = export_json(page, tmp_path)
        groups = json.loads(cli("report", str(path), "--configurations", "--json").stdout)
        assert sorted(json.dumps(groups).count(name) > 0 for name in (MINE.name, EVAL_SET_VERSION)) == [True, True]
        report = json.loads(cli("report", str(path), "--run", own_run, "--json").stdout)
        assert (report["graded"], report["grounded"], report["set_label"]) == (3, 3, f"{MINE.name} (your own cases)")
        show_view(page, "results")
        page.click(f"#runs tr[data-run='{own_run}'] button")
        page.wait_for_selector(f"#run-detail[data-run='{own_run}']")
        assert report["display"]["grounded"] in page.inner_text("#run-headline")
        refused_cli = cli("compare", str(path), "--run", own_run, "--run", fixed_run, check=False)
        assert refused_cli.returncode == 1 and f"{MINE.name} is a set of your own cases" in refused_cli.stderr
        listed = cli("evalset", "--set", "own", str(path)).stdout
        assert listed.startswith(f"{MINE.name} (your own cases): 3 cases")

        page.add_script_tag(path=str(AXE))
        no_overflow_or_axe(page)
    finally:
        context.close()
