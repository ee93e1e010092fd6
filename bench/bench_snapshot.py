"""Repeat visits to "Python ready": the pages with their memory snapshot against bare Pyodide pages (DR-002).

    python bench/bench_snapshot.py [--runs 5]

Builds the site and adds bench_pyc's two bare pages (a worker that only awaits
``loadPyodide``, with the stock or the precompiled stdlib). Each run visits all four
targets in turn (the order rotates between runs), each in a fresh on-disk Chromium
profile: a first visit, left open until the page has kept its snapshot in IndexedDB and noted it
(the bare pages keep none), then the measured repeat visit in a new tab. A site page is also
visited once more in the same profile with the note removed, so it starts afresh from the same
caches: the two repeat visits take turns going first. Prints min / median / max and the ratios
of the medians, page / bare page and snapshot / fresh.
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
sys.path.insert(0, str(HERE.parent / "tests"))

from bench_pyc import BARE_FILES, TARGETS, profiles_in_turn  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from served_site import build_and_serve  # noqa: E402
from stats_util import summary  # noqa: E402

# start.js notes the snapshot in local storage once its worker has stored it (DR-002).
KEPT = "() => Boolean(JSON.parse(localStorage.getItem('kd-tree-explorer-snapshot'))?.kept)"
FORGET = "() => localStorage.removeItem('kd-tree-explorer-snapshot')"


def open_ready(context, url: str):
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("#python-status[data-state='ready']", timeout=120_000)
    return page


def wait_until_kept(page, url: str) -> None:
    deadline = time.monotonic() + 120
    while not page.evaluate(KEPT):
        if time.monotonic() > deadline:
            raise SystemExit(f"{url}: no snapshot noted within 120 s")
        time.sleep(0.2)


def first_visit(context, url: str, keeps_snapshot: bool) -> None:
    """Visit ``url`` and, on a page of the site, wait until its snapshot is stored."""
    page = open_ready(context, url)
    if keeps_snapshot:
        wait_until_kept(page, url)
    page.close()


def repeat_visit(context, url: str, start: str | None) -> float:
    """Ms from navigation start to Python ready. On a page of the site ``start`` says how it must start: from
    its snapshot, or afresh with the note removed beforehand (then the tab stays open until the page notes the
    kept snapshot again, after the measurement).
    """
    if start == "fresh":
        home = context.new_page()
        home.goto(url.rsplit("/", 2)[0] + "/")  # the home page runs no Python
        home.evaluate(FORGET)
        home.close()
    page = open_ready(context, url)
    ready = page.evaluate("performance.getEntriesByName('python-ready')[0].startTime")
    started = page.get_attribute("#python-status", "data-start")
    if start and started != start:
        raise SystemExit(f"{url}: the repeat visit started {started!r}, not {start!r}")
    if start == "fresh":
        wait_until_kept(page, url)
    page.close()
    return ready


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    pages = [target for target in TARGETS if not target.startswith("bare")]
    times: dict[str, list[float]] = {target: [] for target in TARGETS}
    times.update({f"{page} fresh": [] for page in pages})
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        origin = build_and_serve(Path(tmp), BARE_FILES)
        for turn, (target, context) in enumerate(profiles_in_turn(playwright, Path(tmp), args.runs)):
            url = origin + TARGETS[target]
            first_visit(context, url, target in pages)
            if target not in pages:
                times[target].append(repeat_visit(context, url, None))
                continue
            for start in ("snapshot", "fresh") if turn % 2 else ("fresh", "snapshot"):
                times[target if start == "snapshot" else f"{target} fresh"].append(repeat_visit(context, url, start))
    print(f"load average (1, 5, 15 min) before {load_before}, after {os.getloadavg()}")
    print(f"repeat visit (new tab, same profile): navigation to 'Python ready', ms (min / median / max), "
          f"{args.runs} runs, turns taken; the pages start from their snapshot, or afresh ('fresh')")
    for target in times:
        print(f"  {target:26} {summary(times[target])}")
    median = {target: statistics.median(values) for target, values in times.items()}
    print("ratios of medians, page / bare; from the snapshot / afresh")
    for page in pages:
        stock = median[page] / median["bare, stock stdlib"]
        precompiled = median[page] / median["bare, precompiled stdlib"]
        fresh = median[page] / median[f"{page} fresh"]
        print(f"  {page:11} / bare stock {stock:.2f}   / bare precompiled {precompiled:.2f}   / fresh {fresh:.2f}")


if __name__ == "__main__":
    main()
