"""Time from navigation to "Python ready" on /ai-eval/, cold and warm, with bytes transferred.

    python bench/bench_boot.py [--runs 5]

Builds the site, serves it on 127.0.0.1 with the built-in server, and drives
Debian's Chromium. "Cold" is a fresh on-disk profile; "warm" is a new tab in a
profile that has loaded the page once. Prints min / median / max.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests"))

from playwright.sync_api import sync_playwright  # noqa: E402

from conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from served_site import build_and_serve  # noqa: E402
from stats_util import summary  # noqa: E402


def visit(context, url: str) -> tuple[float, int]:
    """Open ``url`` in a new tab; return (ms from navigation start to Python ready, bytes received)."""
    received = []

    def on_finished(request) -> None:
        sizes = request.sizes()
        received.append(sizes["responseBodySize"] + sizes["responseHeadersSize"])

    context.on("requestfinished", on_finished)
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("#python-status[data-state='ready']", timeout=120_000)
    ready = page.evaluate("performance.getEntriesByName('python-ready')[0].startTime")
    page.close()
    context.remove_listener("requestfinished", on_finished)
    return ready, sum(received)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = build_and_serve(Path(tmp)) + "ai-eval/"
        results = {"cold": [], "warm (new tab, same profile)": []}
        with sync_playwright() as playwright:
            for run in range(args.runs):
                profile = Path(tmp) / f"profile-{run}"
                context = playwright.chromium.launch_persistent_context(
                    str(profile), executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
                results["cold"].append(visit(context, url))
                results["warm (new tab, same profile)"].append(visit(context, url))
                context.close()
        print("/ai-eval/: navigation to 'Python ready', ms and kB received (min / median / max)")
        for label, rows in results.items():
            times = [t for t, _ in rows]
            kilobytes = [b / 1e3 for _, b in rows]
            print(f"  {label:30} {summary(times)} ms   {summary(kilobytes)} kB")


if __name__ == "__main__":
    main()
