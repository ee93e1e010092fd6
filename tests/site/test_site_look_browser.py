"""Browser tests of the whole site's look: visible keyboard focus on every control, prose at a readable
measure, the records index's dates on one line, and the dark theme on every page."""

from __future__ import annotations

import pytest

from chromium import page_at

pytestmark = pytest.mark.browser

PAGES = ("", "explorer/", "ai-eval/", "experiments/", "decisions/", "decisions/DR-007/", "no-such-page")


def focus_outlines(page, presses: int = 80) -> list[tuple[str, str, float]]:
    """Tab through the page: (element, outline style, outline width in px) for each element reached."""
    found = []
    for _ in range(presses):
        page.keyboard.press("Tab")
        element = page.evaluate("""() => {
          const element = document.activeElement;
          if (!element || element === document.body) return null;
          const style = getComputedStyle(element);
          const text = element.textContent.trim().slice(0, 30);
          const name = element.id ? `#${element.id}` : `${element.tagName.toLowerCase()} ${text}`;
          return [name, style.outlineStyle, parseFloat(style.outlineWidth)];
        }""")
        if element is None or (found and element[0] == found[0][0]):
            break
        found.append(tuple(element))
    return found


@pytest.mark.parametrize("path", PAGES)
def test_every_control_the_keyboard_reaches_shows_its_focus(browser, site, path):
    with page_at(browser, 1280, 800) as page:
        page.goto(site.url + path)
        reached = focus_outlines(page)
        assert len(reached) >= 4  # the skip link and the site's navigation at least
        assert [name for name, style, width in reached if style == "none" or width < 2] == []


def test_record_prose_keeps_a_readable_measure_and_the_index_dates_one_line(browser, site):
    with page_at(browser, 1440, 900) as page:
        page.goto(site.url + "decisions/DR-007/")
        widest = page.evaluate("""() => {
          const probe = document.createElement("span");
          probe.textContent = "0".repeat(100);
          probe.style.cssText = "position: absolute; white-space: nowrap; visibility: hidden";
          document.querySelector("main p").append(probe);
          const ch = probe.getBoundingClientRect().width / 100;
          probe.remove();
          return Math.max(...[...document.querySelectorAll("main p")].map((p) => p.getBoundingClientRect().width)) / ch;
        }""")
        assert 60 <= widest <= 80  # characters of the body font
        page.set_viewport_size({"width": 360, "height": 800})
        page.goto(site.url + "decisions/")
        lines = page.eval_on_selector_all("time", "times => times.map((t) => t.getClientRects().length)")
        heights = page.eval_on_selector_all("time", "times => times.map((t) => t.getBoundingClientRect().height)")
        assert len(lines) >= 10 and set(lines) == {1}
        assert max(heights) < 1.8 * min(heights)  # one line each, not wrapped inside one box


@pytest.mark.parametrize("path", PAGES)
def test_dark_theme_reaches_every_page(browser, site, path):
    context = browser.new_context(color_scheme="dark", viewport={"width": 390, "height": 800})
    try:
        page = context.new_page()
        page.goto(site.url + path)
        colours = page.evaluate("""() => [document.body, document.querySelector("main")].map((element) => {
          let node = element;
          while (node && getComputedStyle(node).backgroundColor === "rgba(0, 0, 0, 0)") node = node.parentElement;
          return node ? getComputedStyle(node).backgroundColor : "none";
        }).concat(getComputedStyle(document.querySelector("main")).color)""")
        assert colours == ["rgb(22, 25, 29)", "rgb(22, 25, 29)", "rgb(230, 227, 220)"]  # --paper and --ink, dark
    finally:
        context.close()
