"""Time from navigation to "Python ready" on /ai-eval/, cold, warm and on a repeat visit, with bytes.

    python bench/bench_boot.py [--runs 5]

Builds the site, serves it on 127.0.0.1 with the built-in server, and drives Debian's
Chromium. "Cold" is a fresh on-disk profile; "warm" is a new tab in a profile that has
loaded the page once, with the service worker blocked (the HTTP cache only). "Repeat" is
a new tab once the service worker a first visit registered is active (DR-002), online
and with the network cut; for those the server counts what it sends, so the browser's
own check for a new sw.js is counted too, and how many of them Python started from the
memory snapshot (kept only if a visit before stayed open long enough, DR-002). Every
timed visit starts once the browser has been idle for ``SETTLE_S``. Prints min /
median / max.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path[:0] = [str(HERE.parent / "tests"), str(HERE.parent / "tests" / "support")]

from playwright.sync_api import sync_playwright  # noqa: E402

from conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from served_site import Traffic, build_and_serve  # noqa: E402
from stats_util import summary  # noqa: E402

# Every timed visit starts with the browser idle, as a visitor's is when they open the site. Just launched
# on a fresh profile, Chromium goes on setting it up for 0.5 to 0.75 s (460 to 700 ms of CPU in three launches,
# read from /proc), and after a visit it goes on writing its caches: on this 2-core machine, CPU the boot needs.
SETTLE_S = 1.5


def settle() -> None:
    """Leave the browser alone for ``SETTLE_S``: where every timed visit starts."""
    time.sleep(SETTLE_S)


def new_tab(context):
    """A new tab in ``context``, once the browser has settled."""
    settle()
    return context.new_page()


def visit(context, url: str, marks: dict[str, float] | None = None,
          traffic: Traffic | None = None) -> tuple[float, int]:
    """Open ``url`` in a new tab once the browser has settled; return (ms from navigation start to Python ready,
    bytes received).

    With ``marks``, it receives the worker's steps as the site's pages place them (``worker:NAME``, ms after
    navigation start) and ``start``, 1.0 when the worker started from its snapshot, 0.0 otherwise. Bytes, and
    with ``traffic`` the server's count, start once the browser has settled: what a visit before sends late
    (the service worker's check of ``sw.js``, say) is not counted as this one's.
    """
    received = []

    def on_finished(request) -> None:
        sizes = request.sizes()
        received.append(sizes["responseBodySize"] + sizes["responseHeadersSize"])

    settle()
    if traffic is not None:
        traffic.reset()
    context.on("requestfinished", on_finished)
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("#python-status[data-state='ready']", timeout=120_000)
    ready = page.evaluate("performance.getEntriesByName('python-ready')[0].startTime")
    if marks is not None:
        marks.update(page.evaluate("Object.fromEntries(performance.getEntriesByType('mark')"
                                   ".filter((m) => m.name.startsWith('worker:')).map((m) => [m.name, m.startTime]))"))
        marks["start"] = float(page.get_attribute("#python-status", "data-start") == "snapshot")
    page.close()
    context.remove_listener("requestfinished", on_finished)
    return ready, sum(received)


ACTIVE = "navigator.serviceWorker.ready.then((r) => new Promise((resolve) => r.active.state === 'activated' ? " \
         "resolve() : r.active.addEventListener('statechange', () => r.active.state === 'activated' && resolve())))"


def repeat_visit(context, url: str, traffic: Traffic) -> tuple[float, int, int, bool]:
    """A new tab on ``url``; return (ms to Python ready, requests the server answered, bytes it sent, whether
    Python started from the memory snapshot: a visit before may have kept one, DR-002)."""
    marks: dict[str, float] = {}
    ms, _ = visit(context, url, marks, traffic)
    return ms, len(traffic.requests), traffic.bytes, bool(marks["start"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    traffic = Traffic()
    with tempfile.TemporaryDirectory() as tmp:
        url = build_and_serve(Path(tmp), traffic=traffic) + "ai-eval/"
        results = {"cold": [], "warm (new tab, same profile)": []}
        repeats = {"repeat 1, service worker": [], "repeat 2, service worker": [],
                   "repeat 3, service worker, offline": []}
        with sync_playwright() as playwright:
            for run in range(args.runs):
                profile = Path(tmp) / f"profile-{run}"
                context = playwright.chromium.launch_persistent_context(
                    str(profile), executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
                    service_workers="block")
                results["cold"].append(visit(context, url))
                results["warm (new tab, same profile)"].append(visit(context, url))
                context.close()
                context = playwright.chromium.launch_persistent_context(
                    str(Path(tmp) / f"profile-sw-{run}"), executable_path=CHROMIUM, headless=True,
                    args=CHROMIUM_ARGS)
                first = context.new_page()
                first.goto(url)
                first.wait_for_selector("#python-status[data-state='ready']", timeout=120_000)
                first.evaluate(ACTIVE)
                first.close()
                repeats["repeat 1, service worker"].append(repeat_visit(context, url, traffic))
                repeats["repeat 2, service worker"].append(repeat_visit(context, url, traffic))
                online_requests = list(traffic.requests)
                context.set_offline(True)
                repeats["repeat 3, service worker, offline"].append(repeat_visit(context, url, traffic))
                context.close()
        print(f"load average (1, 5, 15 min) at the end: {os.getloadavg()}")
        print("/ai-eval/: navigation to 'Python ready', ms and kB received (min / median / max)")
        for label, rows in results.items():
            times = [t for t, _ in rows]
            kilobytes = [b / 1e3 for _, b in rows]
            print(f"  {label:34} {summary(times)} ms   {summary(kilobytes)} kB")
        print("  repeat visits: requests the server answered and bytes it sent")
        for label, rows in repeats.items():
            times = [t for t, _, _, _ in rows]
            print(f"  {label:34} {summary(times)} ms   {summary([r for _, r, _, _ in rows])} requests   "
                  f"{summary([b for _, _, b, _ in rows])} B   "
                  f"{sum(started for *_, started in rows)} of {len(rows)} from the snapshot")
        print(f"  what the server answered on the last online repeat visit: {online_requests}")


if __name__ == "__main__":
    main()
