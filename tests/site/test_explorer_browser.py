"""Browser tests of the explorer page: click, step, play, layout, keyboard, and agreement with the command line."""

from __future__ import annotations

import pytest

from explorer_page import cli_trace, map_to_screen

pytestmark = pytest.mark.browser


def open_explorer(watched, site, width: int = 1300, height: int = 1000):
    page = watched.page
    page.set_viewport_size({"width": width, "height": height})
    page.goto(site.url + "explorer/")
    page.wait_for_selector("body[data-explorer-ready='true']", timeout=90_000)
    page.evaluate("document.addEventListener('search-shown', (event) => { window.shownSearch = event.detail; })")
    return page


def wait_for_search(page, lon: str) -> None:
    """Wait until the page has shown the search whose longitude input reads ``lon`` (the page's own event)."""
    assert page.input_value("#lon") == lon
    page.wait_for_function("(lon) => window.shownSearch && window.shownSearch.lon === Number(lon)", arg=lon)


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


def test_hover_names_the_business_under_the_pointer_and_focus_the_one_nearest_the_query(watched, site):
    from pyapp.presentation.explorer import search_view, tree_view

    page = open_explorer(watched, site)
    nodes = tree_view("median-first")["nodes"]
    # A business at least 3 map units from every other, so the pointer on it names it and no other.
    alone = next(node for node in nodes if min((n["x"] - node["x"]) ** 2 + (n["y"] - node["y"]) ** 2
                                               for n in nodes if n is not node) > 9)
    label = page.locator("#map-point")
    assert label.get_attribute("role") == "status" and label.inner_text() == ""
    page.mouse.move(*map_to_screen(page, alone["x"], alone["y"]))
    page.wait_for_function("(title) => document.getElementById('map-point').textContent === title",
                           arg=alone["title"])
    assert page.locator("#layer-hover circle.hovered").count() == 1
    box, at = label.bounding_box(), map_to_screen(page, alone["x"], alone["y"])
    assert box["width"] > 0 and box["y"] + box["height"] <= at[1]  # the label sits above the point
    page.mouse.move(5, 5)  # off the map
    page.wait_for_function("document.getElementById('map-point').textContent === ''")
    assert page.locator("#layer-hover circle").count() == 0

    titles = {node["id"]: node["title"] for node in nodes}
    page.focus("#order")
    for _ in range(6):  # back from the settings to the map, as a keyboard user goes
        if page.evaluate("document.activeElement.id") == "map":
            break
        page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.id") == "map"
    nearest = search_view("median-first", "nearest", 24.9445, 60.1705)["result"]["id"]
    assert label.inner_text() == f"Nearest business to the query: {titles[nearest]}"
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    wait_for_search(page, "24.9445000")
    moved = search_view("median-first", "nearest", 24.9445, 60.1701)["result"]["id"]
    assert moved != nearest
    page.wait_for_function("(text) => document.getElementById('map-point').textContent === text",
                           arg=f"Nearest business to the query: {titles[moved]}")
    page.keyboard.press("Tab")
    assert label.inner_text() == ""


def inside_viewport(page, selector: str) -> bool:
    return page.evaluate("""(selector) => {
      const box = document.querySelector(selector).getBoundingClientRect();
      return box.height > 0 && box.top >= 0 && box.left >= 0 && box.bottom <= innerHeight && box.right <= innerWidth;
    }""", selector)


ONE_SCREEN = ["#map", ".step-controls", "#step-caption", "#current-best", "#trace-list li[aria-current]"]


@pytest.mark.parametrize("size", [(1280, 800), (1024, 768)], ids=["1280x800", "1024x768"])
def test_one_screen_holds_map_controls_caption_and_current_step(watched, site, size):
    page = open_explorer(watched, site, *size)
    page.click("#map", position={"x": 200, "y": 150})
    page.wait_for_timeout(200)
    wait_for_search(page, page.input_value("#lon"))
    assert page.evaluate("scrollY") == 0
    assert {selector: inside_viewport(page, selector) for selector in ONE_SCREEN} == dict.fromkeys(ONE_SCREEN, True)
    page.click("#next-step")
    assert page.get_attribute("#step-caption", "data-step") == "2"
    assert page.evaluate("scrollY") == 0
    assert {selector: inside_viewport(page, selector) for selector in ONE_SCREEN} == dict.fromkeys(ONE_SCREEN, True)
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    # The six step buttons on one row, so the trace list keeps the height a second row would take.
    rows = page.eval_on_selector_all(".step-controls button", "buttons => buttons.map((b) => b.offsetTop)")
    assert len(rows) == 6 and len(set(rows)) == 1
    if size == (1280, 800):
        page.screenshot(path=str(shots_folder() / "explorer-1280.png"))


def shots_folder():
    from pathlib import Path

    folder = Path("/tmp/shots-explorer")
    folder.mkdir(exist_ok=True)
    return folder


def test_phone_keeps_the_step_controls_on_screen_with_the_map(watched, site):
    page = open_explorer(watched, site, 390, 844)
    page.evaluate("document.getElementById('map').scrollIntoView({block: 'start'})")
    page.click("#map", position={"x": 170, "y": 120})
    page.wait_for_timeout(200)
    wait_for_search(page, page.input_value("#lon"))
    page.click("#next-step")
    assert inside_viewport(page, "#map") and inside_viewport(page, ".step-controls")
    assert inside_viewport(page, "#step-caption")
    page.evaluate("scrollBy(0, 150)")  # scrolled past part of the map, the controls stay
    assert inside_viewport(page, ".step-controls")
    page.screenshot(path=str(shots_folder() / "explorer-390.png"))


def list_shows_current(page) -> bool:
    return page.evaluate("""() => {
      const list = document.getElementById("trace-list").getBoundingClientRect();
      const item = document.querySelector("#trace-list li[aria-current]").getBoundingClientRect();
      return item.top >= list.top - 1 && item.bottom <= list.bottom + 1;
    }""")


def test_trace_list_keeps_the_current_step_visible(watched, site):
    page = open_explorer(watched, site, 1280, 800)
    page.select_option("#kind", "radius:0.003")
    page.wait_for_selector("#step-caption[data-step='1'][data-action='visit']")
    page.wait_for_selector("#trace-list li:nth-child(500)", state="attached")
    assert list_shows_current(page)
    page.click("#last-step")
    assert list_shows_current(page)
    page.click("#first-step")
    assert page.get_attribute("#step-caption", "data-step") == "1"
    assert list_shows_current(page)
    page.fill("#jump", "400")
    page.press("#jump", "Enter")
    assert list_shows_current(page)
    assert page.evaluate("scrollY") == 0


def test_keyboard_steps_jumps_and_plays(watched, site):
    page = open_explorer(watched, site)
    expected = cli_trace("median-first", "nearest", "24.9445", "60.1705")["trace"]
    page.focus("#next-step")
    page.keyboard.press("ArrowRight")
    assert page.get_attribute("#step-caption", "data-step") == "2"
    page.keyboard.press("End")
    assert page.get_attribute("#step-caption", "data-step") == str(len(expected))
    page.keyboard.press("Home")
    assert page.get_attribute("#step-caption", "data-step") == "1"
    page.keyboard.press("Shift+ArrowRight")
    first_decision = next(i for i, s in enumerate(expected, 1) if s["action"] in ("best", "report", "far_prune"))
    assert page.get_attribute("#step-caption", "data-step") == str(first_decision)
    page.keyboard.press("ArrowLeft")
    assert page.get_attribute("#step-caption", "data-step") == str(first_decision - 1)
    page.keyboard.press("k")
    assert page.get_attribute("#play", "aria-pressed") == "true"
    page.keyboard.press("k")
    assert page.get_attribute("#play", "aria-pressed") == "false"
    keys = page.inner_text("#map-keys")
    assert "move the query" in keys and "next step" in keys and "play or pause" in keys
    assert page.get_attribute("#map", "aria-describedby") == "map-keys"


def test_next_decision_and_speed_control(watched, site):
    page = open_explorer(watched, site)
    page.select_option("#kind", "radius:0.003")
    page.wait_for_selector("#trace-list li:nth-child(500)", state="attached")
    expected = cli_trace("median-first", "radius", "24.9445", "60.1705", "0.003")["trace"]
    decisions = [i for i, s in enumerate(expected, 1) if s["action"] in ("report", "far_prune")]
    for index in decisions[:4]:
        page.click("#next-decision")
        assert page.get_attribute("#step-caption", "data-step") == str(index)
    page.select_option("#speed", "25")
    page.click("#first-step")
    page.click("#play")
    # 40 steps a second: step 60 arrives in about 1.5 s; at the old fixed 450 ms it took 27 s.
    for _ in range(150):
        if int(page.get_attribute("#step-caption", "data-step")) >= 60:
            break
        page.wait_for_timeout(100)
    assert int(page.get_attribute("#step-caption", "data-step")) >= 60
    page.click("#play")


@pytest.mark.parametrize("width", [360, 390, 768, 1024, 1280, 1440])
def test_no_horizontal_scrolling(watched, site, width):
    page = open_explorer(watched, site, width, 800)
    page.click("#last-step")
    page.click("#audit-view summary")
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")


def test_ring_and_best_show_what_is_known_at_each_step(watched, site):
    page = open_explorer(watched, site)
    expected = cli_trace("median-first", "nearest", "24.9445", "60.1705")["trace"]
    assert page.inner_text("#current-best") == "–"
    assert page.locator("#map .reach").count() == 0
    first_best = next(i for i, s in enumerate(expected, 1) if s["action"] == "best")
    page.fill("#jump", str(first_best))
    page.press("#jump", "Enter")
    assert float(page.get_attribute("#map .reach", "data-distance")) == expected[first_best - 1]["distance"]
    assert page.get_attribute("#current-best", "data-node") == str(expected[first_best - 1]["node_id"])
    legend = page.inner_text(".legend")
    for mark in ["query", "node being visited", "best so far", "best distance so far", "skipped"]:
        assert mark in legend


def test_radius_ring_is_a_circle_of_the_radius_from_step_one(watched, site):
    page = open_explorer(watched, site)
    page.select_option("#kind", "radius:0.0005")
    page.wait_for_selector("#reach-label:text-is('search radius')")
    page.wait_for_selector("#step-caption[data-step='1']")
    assert float(page.get_attribute("#map .reach", "data-distance")) == 0.0005
    assert page.locator("#map ellipse").count() == 0
    captions = page.eval_on_selector_all("#trace-list li", "items => items.map(item => item.textContent)")
    assert captions and [c for c in captions if "closer" in c] == []


def test_a_query_off_the_map_gets_a_message_and_keeps_the_search(watched, site):
    page = open_explorer(watched, site)
    count = page.inner_text("#step-count")
    page.fill("#lon", "200")
    page.click("#run-search")
    page.wait_for_selector("#query-message:has-text('outside the map')")
    assert "longitude" in page.inner_text("#query-message")
    assert page.inner_text("#step-count") == count
    page.fill("#lon", "24.9445")
    page.click("#run-search")
    page.wait_for_selector("#query-message:empty", state="attached")


def test_tree_view_agrees_with_the_cli_and_jumps_to_a_node_step(watched, site):
    page = open_explorer(watched, site, 1280, 800)
    expected = cli_trace("shuffled", "nearest", "24.9445", "60.1705")
    page.select_option("#order", "shuffled")
    # The default search also sits at step 1; wait for the shuffled tree's first node.
    page.wait_for_selector(f"#step-caption[data-step='1'][data-node='{expected['trace'][0]['node_id']}']")
    visits = {str(s["node_id"]): s["index"] for s in expected["trace"] if s["action"] == "visit"}
    shown = page.eval_on_selector_all("#tree-view .node", "dots => dots.map(d => [d.dataset.node, d.dataset.step])")
    assert {node: int(step) for node, step in shown} == visits
    assert page.locator("#tree-view .stub").count() == expected["counts"]["subtrees_pruned"]
    assert page.get_attribute("#tree-view .node.current", "data-node") == str(expected["trace"][0]["node_id"])
    assert inside_viewport(page, "#tree-view .node.current")
    deepest = max(visits, key=visits.get)
    page.click(f"#tree-view .node[data-node='{deepest}']")
    assert page.get_attribute("#step-caption", "data-step") == str(visits[deepest])
    assert page.get_attribute("#tree-view .node.current", "data-node") == deepest
    assert inside_viewport(page, "#tree-view .node.current")
    seen = page.locator("#tree-view .node.seen").count()
    assert seen == sum(1 for step in visits.values() if step <= visits[deepest])

    # The map marks each visited node where the command line's trace puts it, at every visit step.
    from pyapp.presentation.explorer import MAP_WIDTH, map_area

    area = map_area("shuffled")
    scale = MAP_WIDTH / (area["max_lon"] - area["min_lon"])
    marked = page.evaluate("""(steps) => steps.map((step) => {
      const jump = document.getElementById("jump");
      jump.value = step;
      jump.dispatchEvent(new Event("change"));
      const ring = document.querySelector("#layer-search circle.current");
      return [Number(ring.getAttribute("cx")), Number(ring.getAttribute("cy"))];
    })""", [s["index"] for s in expected["trace"] if s["action"] == "visit"])
    where = [((s["lon"] - area["min_lon"]) * scale, (area["max_lat"] - s["lat"]) * scale)
             for s in expected["trace"] if s["action"] == "visit"]
    assert len(marked) == len(visits) > 5
    assert [tuple(xy) for xy in marked] == [(pytest.approx(x, abs=0.06), pytest.approx(y, abs=0.06)) for x, y in where]
