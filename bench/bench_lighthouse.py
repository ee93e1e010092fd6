"""Lighthouse scores (performance, accessibility, best practices, SEO) of the site's main pages.

    python bench/bench_lighthouse.py [--runs 3] [--preset mobile|desktop] [--pages explorer/ ...]
                                     [--against OTHER_DIST]

Builds the site, serves it on 127.0.0.1 with the built-in server (which sends the pages' security
headers but compresses nothing), and runs Lighthouse from npm (pinned in package.json) against
Debian's Chromium, headless, with Lighthouse's default simulated throttling. Every run starts a
fresh Chromium profile. Prints min / median / max of each score per page, and of the total blocking
time and first contentful paint, which explain most of a performance score.

With ``--against``, an already built site (another version's ``dist``) is served too and the two are
run in turns, page by page, so that both see the same load on a shared machine; each line then
gives that site's figures before this build's. The load average is printed before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "support")]

from conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from served_site import build_and_serve  # noqa: E402
from sitegen.serve import make_server  # noqa: E402

LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
PAGES = ("", "explorer/", "ai-eval/", "decisions/")
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
TIMINGS = {"total-blocking-time": "TBT ms", "first-contentful-paint": "FCP ms"}


def scores(url: str, preset: str) -> dict[str, float]:
    """One Lighthouse run of ``url``: each category's score out of 100, and the timings in TIMINGS."""
    flags = " ".join(["--headless=new", *CHROMIUM_ARGS])
    command = [str(LIGHTHOUSE), url, "--output=json", "--output-path=stdout", "--quiet",
               f"--chrome-path={CHROMIUM}", f"--chrome-flags={flags}", f"--only-categories={','.join(CATEGORIES)}"]
    if preset == "desktop":
        command.append("--preset=desktop")
    report = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
    return {**{name: report["categories"][name]["score"] * 100 for name in CATEGORIES},
            **{label: report["audits"][audit]["numericValue"] for audit, label in TIMINGS.items()}}


def spread(values: list[float]) -> str:
    values = sorted(values)
    return f"{values[0]:.0f} / {statistics.median(values):.0f} / {values[-1]:.0f}"


def load() -> str:
    return ", ".join(f"{value:.1f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--preset", choices=("mobile", "desktop"), default="mobile")
    parser.add_argument("--pages", nargs="*", default=PAGES, help="paths under the site's root, '' for the home page")
    parser.add_argument("--against", type=Path, help="another built site (a dist folder) to run in turns with this one")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        sites = {"this build": build_and_serve(Path(folder))}
        if args.against:
            server = make_server(args.against)
            threading.Thread(target=server.serve_forever, daemon=True).start()
            sites = {str(args.against): f"http://127.0.0.1:{server.server_address[1]}/", **sites}
        version = subprocess.run([str(LIGHTHOUSE), "--version"], capture_output=True, text=True).stdout.strip()
        print(f"Lighthouse {version}, {args.preset} preset, {args.runs} runs per page (min / median / max); "
              f"load average {load()}", flush=True)
        for page in args.pages:
            runs: dict[str, list[dict]] = {name: [] for name in sites}
            for _ in range(args.runs):
                for name, origin in sites.items():
                    runs[name].append(scores(origin + page, args.preset))
            print(f"/{page}")
            for name in (*CATEGORIES, *TIMINGS.values()):
                print(f"  {name:15} " + "  |  ".join(spread([run[name] for run in runs[site]]) for site in sites),
                      flush=True)
        print(f"load average {load()}" + (f"; columns: {' | '.join(sites)}" if args.against else ""))


if __name__ == "__main__":
    main()
