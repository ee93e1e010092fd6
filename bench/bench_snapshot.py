"""Repeat visits to "Python ready": the pages with their memory snapshot against bare Pyodide pages (DR-002).

    python bench/bench_snapshot.py [--runs 5]

Builds the site and adds bench_pyc's two bare pages (a worker that only awaits
``loadPyodide``, with the stock or the precompiled stdlib). Each run visits all four
targets in turn (the order rotates between runs), each in a fresh on-disk Chromium
profile: a first visit, left open until the page has kept its snapshot in IndexedDB
(the bare pages keep none), then the measured repeat visit in a new tab. Prints min /
median / max and the ratios of the medians, page / bare page.
"""

from __future__ import annotations

import argparse
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

KEPT = """() => new Promise((resolve) => {
  const open = indexedDB.open("kd-tree-explorer-snapshot", 1);
  open.onupgradeneeded = () => open.result.createObjectStore("snapshot");
  open.onsuccess = () => {
    const get = open.result.transaction("snapshot").objectStore("snapshot").get("python");
    get.onsuccess = () => { open.result.close(); resolve(Boolean(get.result)); };
  };
})"""


def open_ready(context, url: str):
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("#python-status[data-state='ready']", timeout=120_000)
    return page


def first_visit(context, url: str, keeps_snapshot: bool) -> None:
    """Visit ``url`` and, on a page of the site, wait until its snapshot is stored."""
    page = open_ready(context, url)
    deadline = time.monotonic() + 120
    while keeps_snapshot and not page.evaluate(KEPT):
        if time.monotonic() > deadline:
            raise SystemExit(f"{url}: no snapshot kept within 120 s")
        time.sleep(0.2)
    page.close()


def repeat_visit(context, url: str, keeps_snapshot: bool) -> float:
    """Ms from navigation start to Python ready; a page of the site must have started from its snapshot."""
    page = open_ready(context, url)
    ready = page.evaluate("performance.getEntriesByName('python-ready')[0].startTime")
    start = page.get_attribute("#python-status", "data-start")
    page.close()
    if keeps_snapshot and start != "snapshot":
        raise SystemExit(f"{url}: the repeat visit started {start!r}, not from the snapshot")
    return ready


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    times: dict[str, list[float]] = {target: [] for target in TARGETS}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        origin = build_and_serve(Path(tmp), BARE_FILES)
        for target, context in profiles_in_turn(playwright, Path(tmp), args.runs):
            site_page = not target.startswith("bare")
            first_visit(context, origin + TARGETS[target], site_page)
            times[target].append(repeat_visit(context, origin + TARGETS[target], site_page))
    print(f"repeat visit (new tab, same profile): navigation to 'Python ready', ms (min / median / max), "
          f"{args.runs} runs, turns taken; the pages start from their snapshot")
    for target in TARGETS:
        print(f"  {target:26} {summary(times[target])}")
    median = {target: statistics.median(values) for target, values in times.items()}
    print("ratios of medians, page / bare")
    for page in ("/ai-eval/", "/explorer/"):
        stock = median[page] / median["bare, stock stdlib"]
        precompiled = median[page] / median["bare, precompiled stdlib"]
        print(f"  {page:11} / bare stock {stock:.2f}   / bare precompiled {precompiled:.2f}")


if __name__ == "__main__":
    main()
