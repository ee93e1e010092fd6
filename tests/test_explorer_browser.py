"""Browser tests of the explorer page: click, step, play, and agreement with the command line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.browser


def open_explorer(watched, site):
    page = watched.page
    page.set_viewport_size({"width": 1300, "height": 1000})
    page.goto(site.url + "explorer/")
    page.wait_for_selector("body[data-explorer-ready='true']", timeout=90_000)
    return page


def wait_for_search(page, lon: str) -> None:
    """Wait until the trace shown belongs to the query whose longitude input reads ``lon``."""
    page.wait_for_selector("#step-caption[data-step='1']")
    assert page.input_value("#lon") == lon


def cli_trace(order: str, kind: str, lon: str, lat: str, radius: str | None = None) -> dict:
    args = [sys.executable, "-m", "pyapp", "trace", "--order", order, "--kind", kind, "--lon", lon, "--lat", lat,
            "--json"]
    if radius:
        args += ["--radius", radius]
    return json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)


def test_click_step_and_play_show_what_the_cli_computes(watched, site):
    page = open_explorer(watched, site)
    page.select_option("#order", "shuffled")
    page.wait_for_selector("#step-caption[data-step='1']")
    page.click("#map", position={"x": 350, "y": 220})
    page.wait_for_timeout(200)
    lon, lat = page.input_value("#lon"), page.input_value("#lat")
    wait_for_search(page, lon)
    expected = cli_trace("shuffled", "nearest", lon, lat)
    trace = expected["trace"]

    assert page.inner_text("#step-count") == str(len(trace))
    assert page.inner_text("#nodes-visited") == str(expected["counts"]["nodes_visited"])
    assert page.inner_text("#subtrees-pruned") == str(expected["counts"]["subtrees_pruned"])
    for index in range(1, min(8, len(trace)) + 1):
        caption = page.locator("#step-caption")
        assert caption.get_attribute("data-step") == str(index)
        assert caption.get_attribute("data-action") == trace[index - 1]["action"]
        assert caption.get_attribute("data-node") == str(trace[index - 1]["node_id"])
        page.click("#next-step")
    page.click("#prev-step")
    assert page.get_attribute("#step-caption", "data-step") == str(min(8, len(trace)))

    page.fill("#jump", str(len(trace)))
    page.press("#jump", "Enter")
    assert page.get_attribute("#step-caption", "data-step") == str(len(trace))
    assert page.get_attribute("#current-best", "data-node") == str(expected["result"]["id"])
    assert page.locator("#trace-list li").count() == len(trace)

    page.click("#first-step")
    page.click("#play")
    assert page.get_attribute("#play", "aria-pressed") == "true"
    # Any step past 2: a step lasts 450 ms, shorter than Playwright's later polling intervals.
    page.wait_for_selector("#step-caption:not([data-step='1']):not([data-step='2'])", timeout=10_000)
    page.click("#play")
    assert page.get_attribute("#play", "aria-pressed") == "false"
    assert watched.errors == []
    assert [line for line in watched.console if line.startswith("error")] == []


def test_typed_radius_query_matches_the_cli_and_prunes_regions(watched, site):
    page = open_explorer(watched, site)
    page.select_option("#kind", "radius:0.003")
    page.fill("#lon", "24.9450000")
    page.fill("#lat", "60.1700000")
    page.click("#run-search")
    wait_for_search(page, "24.9450000")
    expected = cli_trace("median-first", "radius", "24.9450000", "60.1700000", "0.003")
    assert page.inner_text("#search-result") == f"{len(expected['result'])} businesses within 0.003°"
    page.click("#last-step")
    reported = sum(1 for step in expected["trace"] if step["action"] == "report")
    assert page.locator("#layer-search circle.reported").count() == reported
    assert page.locator("#layer-pruned rect").count() == expected["counts"]["subtrees_pruned"]


def test_keyboard_moves_the_query_and_steps(watched, site):
    page = open_explorer(watched, site)
    before = float(page.input_value("#lon"))
    page.focus("#map")
    page.keyboard.press("ArrowRight")
    page.wait_for_timeout(100)
    after = page.input_value("#lon")
    assert float(after) == pytest.approx(before + 0.0002)
    wait_for_search(page, after)
    page.focus("#next-step")
    page.keyboard.press("Enter")
    assert page.get_attribute("#step-caption", "data-step") == "2"
    assert page.get_attribute("#step-caption", "aria-live") == "polite"
