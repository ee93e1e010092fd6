"""Lighthouse scores (performance, accessibility, best practices, SEO) of the site's main pages.

    python bench/bench_lighthouse.py [--runs 3] [--preset mobile|desktop]

Builds the site, serves it on 127.0.0.1 with the built-in server (which sends the pages' security
headers but compresses nothing), and runs Lighthouse from npm (pinned in package.json) against
Debian's Chromium, headless, with Lighthouse's default simulated throttling. Every run starts a
fresh Chromium profile. Prints min / median / max of each score per page.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from served_site import build_and_serve  # noqa: E402

LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
PAGES = ("", "explorer/", "ai-eval/", "decisions/")
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")


def scores(url: str, preset: str) -> dict[str, float]:
    """One Lighthouse run of ``url``: each category's score out of 100."""
    flags = " ".join(["--headless=new", *CHROMIUM_ARGS])
    command = [str(LIGHTHOUSE), url, "--output=json", "--output-path=stdout", "--quiet",
               f"--chrome-path={CHROMIUM}", f"--chrome-flags={flags}", f"--only-categories={','.join(CATEGORIES)}"]
    if preset == "desktop":
        command.append("--preset=desktop")
    report = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
    return {name: report["categories"][name]["score"] * 100 for name in CATEGORIES}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--preset", choices=("mobile", "desktop"), default="mobile")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        origin = build_and_serve(Path(folder))
        version = subprocess.run([str(LIGHTHOUSE), "--version"], capture_output=True, text=True).stdout.strip()
        print(f"Lighthouse {version}, {args.preset} preset, {args.runs} runs per page (min / median / max)")
        for page in PAGES:
            runs = [scores(origin + page, args.preset) for _ in range(args.runs)]
            print(f"/{page}")
            for name in CATEGORIES:
                values = sorted(run[name] for run in runs)
                print(f"  {name:15} {values[0]:.0f} / {statistics.median(values):.0f} / {values[-1]:.0f}")


if __name__ == "__main__":
    main()
