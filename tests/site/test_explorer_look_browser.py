"""Browser tests of the explorer's look: after an explanation, in the dark theme, and the tree view on the first
screen with the map at every desktop width."""

from __future__ import annotations

import pytest

from chromium import page_at
from explorer_page import Explorer, answered, faithful, map_to_screen
from page_checks import AXE, OVERFLOW, RUN_AXE, WIDTHS, overflow_by_width

pytestmark = pytest.mark.browser

# The light palette's fills that used to be written into the explorer's CSS.
LIGHT_FILLS = {"rgb(255, 255, 255)", "rgb(242, 239, 231)", "rgb(255, 241, 194)"}
FILLS = """() => {
  const style = (selector) => getComputedStyle(document.querySelector(selector));
  return {
    ground: style("#map .ground").fill,
    node: style("#tree-view .node:not(.seen)").fill,
    tree: style("#tree-scroll").backgroundColor,
    caption: style("#step-caption").backgroundColor,
    current: style("#trace-list li[aria-current]").backgroundColor,
    kbd: style(".keys kbd").backgroundColor,
  };
}"""


def hover_a_business(page) -> str:
    """Move the pointer onto the first business of the map; return the name label's text once shown."""
    page.evaluate("document.getElementById('map').scrollIntoView({block: 'start'})")
    x, y = page.evaluate("() => document.querySelector('#map .points').getAttribute('d').match(/M([^,]+),([^h]+)h0/)"
                         ".slice(1).map(Number)")
    page.mouse.move(*map_to_screen(page, x, y))
    page.wait_for_function("document.getElementById('map-point').textContent !== ''")
    return page.inner_text("#map-point")


def inside(page, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    return (box is not None and box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= size["width"]
            and box["y"] + box["height"] <= size["height"])


@pytest.mark.parametrize("size", [(390, 844), (1280, 800)], ids=["390x844", "1280x800"])
def test_after_an_explanation_nothing_scrolls_sideways_and_axe_finds_nothing(browser, site, size):
    width, height = size
    # The pages' policy refuses the injected axe-core script (it is inline): this context bypasses it.
    ui = Explorer(browser, site, bypass_csp=True, viewport={"width": width, "height": height})
    try:
        ui.explain("anthropic", [answered("anthropic", faithful(ui.page))])
        page = ui.page
        assert ui.shown_outcome() == "grounded"
        page.click("#audit-view summary")
        page.wait_for_selector("#audit-table tbody tr")
        assert page.is_visible("#checks tbody tr") and page.is_visible("#prose")
        assert page.evaluate(OVERFLOW) <= 0
        assert hover_a_business(page)  # the name label is part of the page axe checks
        page.add_script_tag(path=str(AXE))
        assert page.evaluate(RUN_AXE) == []
        if width == 1280:  # the same state at every width of the layout tests
            assert overflow_by_width(page) == {}
    finally:
        ui.context.close()


def test_dark_theme_fills_the_map_tree_and_trace_from_the_dark_palette(browser, site):
    context = browser.new_context(color_scheme="dark", bypass_csp=True, viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        page.goto(site.url + "explorer/")
        page.wait_for_selector("body[data-explorer-ready='true']", timeout=90_000)
        page.click("#next-step")  # a node not yet visited keeps its unfilled look
        fills = page.evaluate(FILLS)
        assert LIGHT_FILLS.isdisjoint(fills.values()), fills
        assert hover_a_business(page)
        colours = page.evaluate("""() => [getComputedStyle(document.querySelector("#map .points")).stroke,
                                          getComputedStyle(document.getElementById("map-point")).backgroundColor]""")
        assert colours == ["rgb(138, 184, 240)", "rgb(230, 227, 220)"]  # the dark palette's --accent and --ink
        page.add_script_tag(path=str(AXE))
        assert page.evaluate(RUN_AXE) == []
    finally:
        context.close()


@pytest.mark.parametrize("size", [(900, 800), (1024, 768), (1100, 800), (1199, 800)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_tree_view_is_on_the_first_screen_with_the_map(browser, site, size):
    with page_at(browser, size[0], size[1]) as page:
        page.goto(site.url + "explorer/")
        page.wait_for_selector("body[data-explorer-ready='true']", timeout=90_000)
        for selector in ("#map", "#tree-view .node.current", "#step-caption", "#trace-list [aria-current]"):
            assert inside(page, selector), selector
        visible = page.evaluate("() => document.getElementById('tree-scroll').getBoundingClientRect().height")
        assert visible >= 100


def test_fit_shows_the_whole_of_a_wide_radius_tree(browser, site):
    with page_at(browser, 1280, 800) as page:
        page.goto(site.url + "explorer/")
        page.wait_for_selector("body[data-explorer-ready='true']", timeout=90_000)
        page.select_option("#kind", "radius:0.003")
        page.wait_for_selector("#tree-view .stub >> nth=10")
        wide = "() => { const box = document.getElementById('tree-scroll'); return box.scrollWidth - box.clientWidth; }"
        assert page.evaluate(wide) > 1000  # far wider than its panel
        page.click("#tree-fit")
        assert page.get_attribute("#tree-fit", "aria-pressed") == "true"
        assert page.evaluate(wide) <= 0
        panel = page.locator("#tree-scroll").bounding_box()
        for mark in page.locator("#tree-view .node, #tree-view .stub").all():
            box = mark.bounding_box()
            assert panel["x"] <= box["x"] and box["x"] + box["width"] <= panel["x"] + panel["width"] + 1
        page.click("#next-decision")  # stepping still works on the overview
        assert page.get_attribute("#tree-view .node.current", "data-node") == page.get_attribute(
            "#step-caption", "data-node")


# Each choice's widest option, in the select's own font, and the room its box leaves for text.
OPTION_ROOM = """() => ["order", "kind"].map((id) => {
  const select = document.getElementById(id), style = getComputedStyle(select);
  const context = document.createElement("canvas").getContext("2d");
  context.font = style.font;
  const widest = Math.max(...[...select.options].map((option) => context.measureText(option.text).width));
  return [id, widest, select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)];
})"""
ARROW_PX = 24  # the drop-down arrow's share of a select's box, with a margin


@pytest.mark.parametrize("width", WIDTHS)
def test_every_option_of_the_explorers_choices_fits_its_box(browser, site, width):
    """'shuffled (seed 2026)' was cut to 'shuffled (seed 20' in the desktop form column and at a phone's width."""
    with page_at(browser, width, 800) as page:
        page.goto(site.url + "explorer/")
        for select, widest, room in page.evaluate(OPTION_ROOM):
            assert widest + ARROW_PX <= room, (select, widest, room)
