"""Time from navigation to "Python ready" on /ai-eval/ in Chromium, Firefox and WebKit, side by side.

    python bench/bench_engines.py [--runs 3]

Builds the site, serves it on 127.0.0.1 with the built-in server, and drives each
engine through tests/support/engines.py, as the tests do. Every run starts the engine afresh
with an empty profile and reads the page's own ``python-ready`` mark; a reload in the
same page gives the warm figure. Chromium (Playwright) gets a fresh context
in one launched browser rather than a new process. Prints min / median / max per engine.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent / "tests"), str(HERE.parent / "tests" / "support")]

from playwright.sync_api import sync_playwright  # noqa: E402

import engines  # noqa: E402
from conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from served_site import build_and_serve  # noqa: E402
from stats_util import summary  # noqa: E402

READY_MS = "() => performance.getEntriesByName('python-ready')[0].startTime"


def time_to_ready(page: engines.EnginePage) -> float:
    page.wait_for("#python-status[data-state='ready']", timeout=120)
    return page.evaluate(READY_MS)


def measure(name: str, url: str, workdir: Path, chromium) -> tuple[str, float, float]:
    """One fresh start of engine ``name``: (version, cold ms, warm reload ms)."""
    engine = engines.launch(name, workdir, chromium)
    try:
        page = engine.new_page()
        page.goto(url)
        cold = time_to_ready(page)
        page.reload()
        warm = time_to_ready(page)
        return engine.version, cold, warm
    finally:
        engine.quit()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--engines", nargs="+", default=list(engines.ENGINES), choices=engines.ENGINES)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        url = build_and_serve(Path(tmp)) + "ai-eval/"
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        print(f"/ai-eval/: navigation to 'Python ready', ms (min / median / max of {args.runs} fresh starts)")
        for name in args.engines:
            rows = []
            for run in range(args.runs):
                workdir = Path(tmp) / f"{name}-{run}"
                workdir.mkdir()
                rows.append(measure(name, url, workdir, chromium))
            version = rows[0][0]
            print(f"  {name:8} {version:18} cold {summary([r[1] for r in rows])}   "
                  f"reload {summary([r[2] for r in rows])}")
        chromium.close()


if __name__ == "__main__":
    main()
