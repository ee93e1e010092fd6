"""Repeat visits to "Python ready": the pages with their memory snapshot against bare Pyodide pages (DR-002).

    python bench/bench_snapshot.py [--runs 5] [--before OLD_DIST]

Builds the site and adds bench_pyc's two bare pages (a worker that only awaits
``loadPyodide``, with the stock or the precompiled stdlib). Each run visits every
target in turn (the order rotates between runs), each in a fresh on-disk Chromium
profile: a first visit, left open until the page has kept its snapshot in IndexedDB and noted it
(the bare pages keep none), then the measured repeat visit in a new tab. A site page is also
visited once more in the same profile with the note removed, so it starts afresh from the same
caches: the two repeat visits take turns going first. For a site page it also times "Python
ready" to the page's first views shown (``data-eval-ready`` or ``data-explorer-ready``), the
calls that import the modules the snapshot may already hold. With ``--before``, a dist/ built by
an earlier version is served too and its pages are visited in the same turns. Prints min /
median / max and the ratios of the medians, page / bare page and snapshot / fresh.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path[:0] = [str(HERE.parent / "tests"), str(HERE.parent / "tests" / "support")]

from playwright.sync_api import sync_playwright  # noqa: E402

from bench_boot import new_tab  # noqa: E402
from bench_pyc import BARE_FILES, profiles_in_turn, with_before  # noqa: E402
from served_site import build_and_serve  # noqa: E402
from stats_util import summary  # noqa: E402

# start.js notes the snapshot in local storage once its worker has stored it (DR-002).
KEPT = "() => Boolean(JSON.parse(localStorage.getItem('kd-tree-explorer-snapshot'))?.kept)"
FORGET = "() => localStorage.removeItem('kd-tree-explorer-snapshot')"
# A mark when the page says its first views are shown: a MutationObserver's callback runs as a microtask.
SETTLED = """
new MutationObserver((records, observer) => {
  performance.mark("page-settled");
  observer.disconnect();
}).observe(document, { attributes: true, subtree: true, attributeFilter: ["data-eval-ready", "data-explorer-ready"] });
"""
MARK = "(name) => performance.getEntriesByName(name)[0]?.startTime ?? null"


def open_ready(context, url: str, settles: bool):
    """A new tab on ``url`` once Python is ready and, on a page of the site, its first views are shown."""
    page = new_tab(context)
    page.goto(url)
    page.wait_for_selector("#python-status[data-state='ready']", timeout=120_000)
    if settles:
        page.wait_for_selector("body[data-eval-ready], body[data-explorer-ready]", state="attached", timeout=120_000)
    return page


def wait_until_kept(page, url: str) -> None:
    deadline = time.monotonic() + 120
    while not page.evaluate(KEPT):
        if time.monotonic() > deadline:
            raise SystemExit(f"{url}: no snapshot noted within 120 s")
        time.sleep(0.2)


def first_visit(context, url: str, site_page: bool) -> None:
    """Visit ``url`` and, on a page of the site, wait until its snapshot is stored."""
    page = open_ready(context, url, site_page)
    if site_page:
        wait_until_kept(page, url)
    page.close()


def repeat_visit(context, url: str, start: str | None) -> tuple[float, float | None]:
    """Ms from navigation start to Python ready and, on a page of the site, from there to its first views.

    On a page of the site ``start`` says how it must start: from its snapshot, or afresh with the note removed
    beforehand (then the tab stays open until the page notes the kept snapshot again, after the measurement).
    """
    if start == "fresh":
        home = context.new_page()
        home.goto(url.rsplit("/", 2)[0] + "/")  # the home page runs no Python
        home.evaluate(FORGET)
        home.close()
    page = open_ready(context, url, start is not None)
    ready = page.evaluate(MARK, "python-ready")
    settled = page.evaluate(MARK, "page-settled")
    started = page.get_attribute("#python-status", "data-start")
    if start and started != start:
        raise SystemExit(f"{url}: the repeat visit started {started!r}, not {start!r}")
    if start == "fresh":
        wait_until_kept(page, url)
    page.close()
    return ready, (settled - ready if start else None)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--before", type=Path, help="a dist/ of an earlier version, served too, its pages timed beside")
    args = parser.parse_args()
    targets = with_before(args.before)
    pages = [target for target in targets if not target.startswith("bare")]
    times: dict[str, list[float]] = {target: [] for target in targets}
    times.update({f"{page} fresh": [] for page in pages})
    views: dict[str, list[float]] = {name: [] for name in times if not name.startswith("bare")}
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        origin = build_and_serve(Path(tmp), BARE_FILES)
        for turn, (target, context) in enumerate(profiles_in_turn(playwright, Path(tmp), args.runs, targets)):
            context.add_init_script(SETTLED)
            url = targets[target] if targets[target].startswith("http") else origin + targets[target]
            first_visit(context, url, target in pages)
            if target not in pages:
                times[target].append(repeat_visit(context, url, None)[0])
                continue
            for start in ("snapshot", "fresh") if turn % 2 else ("fresh", "snapshot"):
                name = target if start == "snapshot" else f"{target} fresh"
                ready, settled = repeat_visit(context, url, start)
                times[name].append(ready)
                views[name].append(settled)
    print(f"load average (1, 5, 15 min) before {load_before}, after {os.getloadavg()}")
    print(f"repeat visit (new tab, same profile): navigation to 'Python ready', ms (min / median / max), "
          f"{args.runs} runs, turns taken; the pages start from their snapshot, or afresh ('fresh')")
    for name in times:
        print(f"  {name:26} {summary(times[name])}")
    print("the same visits, 'Python ready' to the page's first views shown, ms")
    for name in views:
        print(f"  {name:26} {summary(views[name])}")
    median = {name: statistics.median(values) for name, values in times.items()}
    print("ratios of medians, page / bare; from the snapshot / afresh")
    for page in pages:
        stock = median[page] / median["bare, stock stdlib"]
        precompiled = median[page] / median["bare, precompiled stdlib"]
        fresh = median[page] / median[f"{page} fresh"]
        print(f"  {page:18} / bare stock {stock:.2f}   / bare precompiled {precompiled:.2f}   / fresh {fresh:.2f}")


if __name__ == "__main__":
    main()
