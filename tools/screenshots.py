"""Write a PNG of every page at a phone's and a laptop's width into screenshots/, for review.

Builds dist/, serves it on a loopback port and drives Debian's Chromium: ``make screenshots``.
The Python pages are taken once Python is ready (or has failed). The explorer is taken again in
the dark theme, with the pointer on a business so its name label shows. Each view of the evaluation
workbench is taken on the demo's log (six runs in two configurations), Results also with a case open,
and each page's height is printed beside its file.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "support")]

from conftest import CHROMIUM, CHROMIUM_ARGS, serve  # noqa: E402
from sitegen import builder  # noqa: E402

PAGES = {"home": "", "explorer": "explorer/", "ai-eval": "ai-eval/", "experiments": "experiments/",
         "decisions": "decisions/", "record": "decisions/DR-001/", "404": "no-such-page"}
WIDTHS = (390, 1280)
VIEWS = ("results", "compare", "run", "rate", "data", "methods")


def shoot(page, target: Path) -> None:
    page.screenshot(path=str(target), full_page=True)
    height = page.evaluate("document.documentElement.scrollHeight")
    print(f"{target.relative_to(ROOT)} ({height:,} px tall)")


def workbench(page, url: str, out: Path, width: int) -> None:
    """Every view of /ai-eval/ on the demo's log, and Results with a case open."""
    for view in VIEWS:
        page.goto(f"{url}ai-eval/?demo=1&view={view}")
        page.wait_for_selector("body[data-eval-ready='true']", timeout=90_000)
        shoot(page, out / f"ai-eval-demo-{view}-{width}.png")
    page.goto(f"{url}ai-eval/?demo=1&view=results")
    page.wait_for_selector("body[data-eval-ready='true']", timeout=90_000)
    page.locator("#case-matrix td.cell-not_grounded").first.click()
    page.wait_for_selector("#case-view:not([hidden])")
    shoot(page, out / f"ai-eval-demo-case-{width}.png")


def main() -> int:
    from playwright.sync_api import sync_playwright

    dist = ROOT / "dist"
    builder.build(ROOT, dist)
    out = ROOT / "screenshots"
    out.mkdir(exist_ok=True)
    served = serve(dist, "/")
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            for width in WIDTHS:
                page = browser.new_page(viewport={"width": width, "height": 800})
                for name, path in PAGES.items():
                    page.goto(served.url + path)
                    if page.locator("#python-status").count():
                        page.wait_for_selector("#python-status:not([data-state='loading'])", timeout=90_000)
                    if name == "ai-eval":  # the set and the runs are filled in after Python starts
                        page.wait_for_selector("body[data-eval-ready='true']", timeout=90_000)
                    shoot(page, out / f"{name}-{width}.png")
                workbench(page, served.url, out, width)
                page.close()
                page = browser.new_page(viewport={"width": width, "height": 800}, color_scheme="dark")
                page.goto(served.url + "explorer/")
                page.wait_for_selector("#python-status:not([data-state='loading'])", timeout=90_000)
                page.mouse.move(*page.evaluate("""() => {  // onto the map's first business
                  const [x, y] = document.querySelector("#map .points").getAttribute("d").match(/M([^,]+),([^h]+)h0/)
                    .slice(1).map(Number);
                  const at = new DOMPoint(x, y).matrixTransform(document.getElementById("map").getScreenCTM());
                  return [at.x, at.y];
                }"""))
                page.wait_for_function("document.getElementById('map-point').textContent !== ''")
                shoot(page, out / f"explorer-dark-{width}.png")
                page.close()
            browser.close()
    finally:
        served.server.shutdown()
        served.server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
