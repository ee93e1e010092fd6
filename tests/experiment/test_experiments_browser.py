"""Browser tests of the experiments page and the explorer's deep links (DR-010)."""

from __future__ import annotations

import json
import subprocess
import sys
from urllib.parse import parse_qs, urlsplit

import pytest

from explorer_page import cli_trace
from sitegen import ROOT
from sitegen.pyapp_content import experiment_figures

pytestmark = pytest.mark.browser

RUN_TIMEOUT_MS = 300_000


def open_experiments(watched, site, width: int = 1280):
    page = watched.page
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(site.url + "experiments/")
    page.wait_for_selector("#run-experiment:not([disabled])", timeout=90_000)
    return page


def run(page, seed: str, per_kind: str) -> None:
    page.fill("#seed", seed)
    page.fill("#per-kind", per_kind)
    page.click("#run-experiment")
    page.wait_for_selector("#experiment-status[data-reproduced]", timeout=RUN_TIMEOUT_MS)


def cli_experiment(seed: int, per_kind: int) -> dict:
    args = [sys.executable, "-m", "pyapp", "experiment", "--seed", str(seed), "--queries", str(per_kind), "--json"]
    return json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)


def test_default_run_in_the_browser_reproduces_the_published_figures(watched, site):
    page = open_experiments(watched, site)
    published = page.inner_html("#figures")
    digest = page.get_attribute("#figures", "data-digest")
    assert digest == experiment_figures(ROOT)["digest"]
    run(page, "2026", "200")
    assert page.get_attribute("#experiment-status", "data-reproduced") == "true"
    assert "identical to the published one, digit for digit" in page.inner_text("#experiment-status")
    assert page.get_attribute("#figures", "data-digest") == digest
    assert page.inner_html("#figures") == published
    assert page.get_attribute("#experiment-progress", "value") == page.get_attribute("#experiment-progress", "max")
    assert watched.errors == [] and watched.csp_violations == [] and watched.foreign_requests == []


def test_another_seed_shows_the_command_lines_figures(watched, site):
    page = open_experiments(watched, site)
    run(page, "99", "10")
    expected = cli_experiment(99, 10)
    assert page.get_attribute("#experiment-status", "data-reproduced") == "false"
    assert "differ from the published ones" in page.inner_text("#experiment-status")
    assert page.get_attribute("#figures", "data-digest") == expected["digest"]
    pair = expected["kinds"][2]["paired"][1]  # radius 0.0005°, longitude order against median first
    row = page.locator("section[aria-labelledby='kind-radius-small'] table").last.locator("tbody tr").nth(1)
    assert row.inner_text().split("\t")[1] == f"{pair['text']['difference']} ({pair['text']['interval']})"
    assert page.locator(".largest li").first.get_attribute("data-query") == expected["kinds"][0]["largest"][0][
        "query_id"]


def start_with_queries_per_kind(page, per_kind: str) -> str:
    """Type ``per_kind`` and press Run; the figures shown before."""
    published = page.inner_html("#figures")
    page.fill("#per-kind", per_kind)
    page.click("#run-experiment")
    return published


def test_cancel_stops_the_run_and_keeps_the_figures(watched, site):
    page = open_experiments(watched, site)
    published = start_with_queries_per_kind(page, "500")
    page.wait_for_selector("#cancel-experiment:not([disabled])")
    page.wait_for_selector("#experiment-status:has-text('Running: step')", timeout=60_000)
    page.click("#cancel-experiment")
    page.wait_for_selector("#experiment-status:has-text('Cancelled')", timeout=60_000)
    assert page.inner_html("#figures") == published
    assert page.is_enabled("#run-experiment")


def test_bad_settings_get_a_sentence_and_keep_the_figures(watched, site):
    page = open_experiments(watched, site)
    published = start_with_queries_per_kind(page, "501")
    page.wait_for_selector("#experiment-status:has-text('must be a whole number')")
    assert page.inner_text("#experiment-status") == \
        "The number of queries per kind must be a whole number from 1 to 500."
    assert page.inner_html("#figures") == published


def explorer_shows(page, order: str, kind: str, lon: str, lat: str, radius: str | None) -> None:
    page.wait_for_selector("body[data-explorer-ready='true']", timeout=90_000)
    expected = cli_trace(order, kind, lon, lat, radius)
    assert page.input_value("#order") == order
    assert page.input_value("#kind") == (kind if radius is None else f"radius:{radius}")
    assert (page.input_value("#lon"), page.input_value("#lat")) == (lon, lat)
    assert page.inner_text("#nodes-visited") == str(expected["counts"]["nodes_visited"])
    assert page.inner_text("#step-count") == str(len(expected["trace"]))
    # The tree's figures are the command line's strings, character for character.
    shown = {name: page.inner_text(f"[data-stat='{name}']") for name in ("size", "depth", "average_depth")}
    args = [sys.executable, "-m", "pyapp", "trace", "--order", order, "--kind", "nearest", "--lon", lon, "--lat", lat]
    printed = subprocess.run(args, capture_output=True, text=True, check=True).stdout.splitlines()[1]
    assert f"tree: {shown['size']} points, depth {shown['depth']}, average depth {shown['average_depth']}" == printed


def test_deep_link_opens_that_search_and_each_search_writes_its_own(watched, site):
    page = watched.page
    page.goto(site.url + "explorer/?order=lat-sorted&kind=radius&lon=24.9431&lat=60.1712&radius=0.003")
    explorer_shows(page, "lat-sorted", "radius", "24.9431", "60.1712", "0.003")
    page.select_option("#kind", "nearest")
    page.wait_for_url("**kind=nearest**")
    link = parse_qs(urlsplit(page.url).query)
    assert link == {"order": ["lat-sorted"], "kind": ["nearest"], "lon": ["24.9431"], "lat": ["60.1712"]}
    page.click("#map", position={"x": 300, "y": 200})
    page.wait_for_url(lambda url: parse_qs(urlsplit(url).query)["lon"] != ["24.9431"])
    shared = page.url
    lon, lat = parse_qs(urlsplit(shared).query)["lon"][0], parse_qs(urlsplit(shared).query)["lat"][0]
    second = watched.context.new_page()
    second.goto(shared)
    page.wait_for_selector("#step-caption[data-step='1']")
    explorer_shows(second, "lat-sorted", "nearest", lon, lat, None)
    assert page.inner_text("#nodes-visited") == second.inner_text("#nodes-visited")


def test_a_link_with_an_unknown_order_says_so(watched, site):
    page = watched.page
    page.goto(site.url + "explorer/?order=sideways&kind=nearest&lon=24.9431&lat=60.1712")
    page.wait_for_selector("body[data-explorer-ready='true']", timeout=90_000)
    assert page.inner_text("#query-message") == ("This link asks for an insertion order the explorer does not "
                                                 "offer; it shows the search with the settings chosen below instead.")
    assert page.input_value("#order") == "median-first" and page.input_value("#lon") == "24.9431"


def test_largest_difference_links_open_their_search_in_the_explorer(watched, site):
    figures = experiment_figures(ROOT)
    row = figures["kinds"][3]["largest"][0]
    page = open_experiments(watched, site)
    page.click(f".largest li[data-query='{row['query_id']}'] a >> nth=0")
    radius = None if row["radius"] is None else repr(row["radius"])
    explorer_shows(page, row["order"], "radius", repr(row["lon"]), repr(row["lat"]), radius)
    assert page.inner_text("#nodes-visited") == str(row["nodes"])
