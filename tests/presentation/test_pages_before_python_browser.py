"""Content before Python: what the build renders is there without Pyodide, and is what Python renders (DR-002)."""

from __future__ import annotations

import pytest

from chromium import wait_for_python
from pyapp.presentation.explorer import search_view, tree_view

pytestmark = pytest.mark.browser

BLOCKED = "Python could not start"


def explorer_state(page) -> dict:
    """Everything the explorer shows of its default state: map, tree view, step, captions and figures."""
    return page.evaluate("""() => {
        const text = (id) => document.getElementById(id).textContent;
        return {
            map: document.getElementById("map").innerHTML,
            tree: document.getElementById("tree-view").outerHTML,
            caption: text("step-caption"),
            steps: [...document.querySelectorAll("#trace-list li")].map((li) => li.textContent),
            current: document.querySelector("#trace-list [aria-current]").textContent,
            figures: ["step-count", "current-best", "search-result", "nodes-visited", "subtrees-pruned"].map(text),
            stats: [...document.querySelectorAll("[data-stat]")].map((dd) => dd.textContent),
        };
    }""")


def evalset_state(page) -> dict:
    return page.evaluate("""() => ({
        summary: document.getElementById("set-summary").textContent,
        figures: ["prompt-chars", "wilson-20", "detectable", "detectable-points"].map(
            (id) => document.getElementById(id).textContent),
        rows: [...document.querySelectorAll("#evalset tbody tr")].map(
            (tr) => [tr.dataset.case, ...[...tr.cells].map((td) => td.textContent)]),
    })""")


def open_without_pyodide(context, url: str):
    """The page with every Pyodide file refused, so Python never starts."""
    context.route("**/pyodide/**", lambda route: route.abort())
    page = context.new_page()
    page.goto(url)
    return page


def test_explorer_shows_its_default_search_before_python_and_python_renders_the_same(context, site):
    blocked = open_without_pyodide(context, site.url + "explorer/")
    blocked.wait_for_selector("#step-caption[data-step='1']")
    before = explorer_state(blocked)
    assert BLOCKED in wait_for_python(blocked)
    assert explorer_state(blocked) == before  # a failed start leaves the default state in place
    # Every business is one dot of one path (DR-007), at the coordinates pyapp computes.
    dots = blocked.evaluate("""() => [...document.querySelectorAll('#map path.points')].map(
        (path) => path.getAttribute('d').match(/M[^M]+/g))""")
    as_js = lambda value: str(int(value)) if value == int(value) else str(value)  # noqa: E731 - JS's number text
    assert dots == [[f"M{as_js(node['x'])},{as_js(node['y'])}h0" for node in tree_view("median-first")["nodes"]]]
    assert len(dots[0]) == 1188
    assert blocked.locator("#map circle").count() < 10  # the search's marks only, never one per business
    assert blocked.locator("#map path.split").count() == 7  # one path per depth class
    assert blocked.locator("#layer-search circle.current").count() == 1
    assert len(before["steps"]) == int(before["figures"][0]) > 1
    assert before["caption"].startswith("Step 1: Visit ")

    context.unroute("**/pyodide/**")
    ready = context.new_page()
    ready.goto(site.url + "explorer/")
    ready.wait_for_selector("body[data-explorer-ready='true']", timeout=90_000)
    assert "Python ready" in wait_for_python(ready)
    assert explorer_state(ready) == before


def test_a_search_asked_for_before_python_is_ready_says_it_waits_then_runs(context, site):
    held = []  # Pyodide's files, kept waiting until the page has been asked for a search
    context.route("**/pyodide/**", lambda route: held.append(route))
    page = context.new_page()
    page.goto(site.url + "explorer/")
    page.wait_for_selector("#step-caption[data-step='1']")
    page.click("#map", position={"x": 120, "y": 90})
    page.wait_for_selector("#query-message:has-text('Python is still starting')", timeout=5_000)
    assert page.get_attribute("#query-message", "role") == "alert"
    assert page.get_attribute("#query-message", "data-waiting") == "true"  # drawn muted, not as an error
    lon, lat = page.input_value("#lon"), page.input_value("#lat")
    assert held and not page.evaluate("document.body.dataset.explorerReady")

    for route in list(held):
        route.continue_()
    context.unroute("**/pyodide/**")  # lets go of any request held since
    page.wait_for_selector("body[data-explorer-ready='true']", timeout=90_000)
    page.wait_for_selector("#query-message:empty", state="attached")
    shown = page.evaluate("Object.fromEntries(new URLSearchParams(location.search))")
    assert (shown["lon"], shown["lat"]) == (str(float(lon)), str(float(lat)))
    expected = search_view("median-first", "nearest", float(lon), float(lat))
    assert page.inner_text("#step-count") == str(len(expected["trace"]))


def test_evalset_table_and_guidance_show_before_python_and_python_renders_the_same(context, site):
    blocked = open_without_pyodide(context, site.url + "ai-eval/")
    assert BLOCKED in wait_for_python(blocked)
    before = evalset_state(blocked)
    assert len(before["rows"]) == 20 and before["rows"][0][:2] == ["C01", "C01"]
    assert "Loading" not in before["summary"] and "20 cases" in before["summary"]
    assert all(figure and figure != "…" for figure in before["figures"])

    context.unroute("**/pyodide/**")
    ready = context.new_page()
    ready.goto(site.url + "ai-eval/")
    ready.wait_for_selector("body[data-evalset-shown='python']", timeout=90_000)
    assert evalset_state(ready) == before


def test_a_query_placed_before_python_is_ready_is_searched_once_it_is(watched, site):
    page = watched.page
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(site.url + "explorer/")
    page.wait_for_selector("#step-caption[data-step='1']")
    page.evaluate("""() => {
        window.shownMessages = [];
        new MutationObserver(() => shownMessages.push(document.getElementById("query-message").textContent))
            .observe(document.getElementById("query-message"), {childList: true, characterData: true, subtree: true});
    }""")
    assert page.get_attribute("#python-status", "data-state") == "loading"
    page.click("#map", position={"x": 200, "y": 150})
    lon, lat = page.input_value("#lon"), page.input_value("#lat")
    assert lon != "24.9445"
    page.wait_for_selector("body[data-explorer-ready='true']", timeout=90_000)
    page.wait_for_timeout(500)
    expected = search_view("median-first", "nearest", float(lon), float(lat))
    assert page.inner_text("#step-count") == str(len(expected["trace"]))
    assert page.inner_text("#search-result") == expected["result_text"]
    # Only the sentence saying the search waits for Python, gone once it has run: no error.
    assert set(text for text in page.evaluate("shownMessages") if text) <= {
        "Python is still starting: this search runs as soon as it is ready."}
    assert page.inner_text("#query-message") == ""
    assert watched.errors == []
