"""From an import to the matrix on /ai-eval/: ms from the file chosen to the matrix's last cell drawn, once
"Python ready" (DR-006). Two logs: 120 entries (6 runs of the 20-case set in two configurations) and 1,600
(20 runs of the 80-case set in two configurations).

``python bench/bench_import.py [--runs 5] [--against COMMIT]``: with ``--against``, the site that commit built
is measured too, the two taking turns in fresh browser contexts, so both see the same load. Prints min /
median / max. The goal: at most 1,000 ms for 1,600 entries.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests"), str(HERE.parent / "tests" / "support"), str(HERE.parent)]

from bench_rebuild import site_at  # noqa: E402
from designed_logs import LARGE_IDS, entries_with_designed_flips  # noqa: E402
from eval_helpers import OTHER_SETTINGS, full_run  # noqa: E402
from pyapp.evaluation.evalset import LARGE_SET_VERSION  # noqa: E402
from pyapp.evaluation.export import export_json  # noqa: E402
from stats_util import summary  # noqa: E402

# When the file is chosen, and when the matrix cell named by the page's data-last attribute appears.
WATCH = """
document.addEventListener("change", (event) => {
  if (event.target.id === "import-file") window.importChosen = performance.now();
}, true);
new MutationObserver(() => {
  const last = document.documentElement.dataset.lastCell;
  if (last && window.matrixShown === undefined && document.querySelector(last)) window.matrixShown = performance.now();
}).observe(document, { childList: true, subtree: true });
"""


def logs() -> dict[str, list[dict]]:
    """The two logs, by a name that says their size."""
    eighty = []
    for i in range(20):
        eighty += full_run(f"run-20261207-0900{i:02d}-bbbb{i:02d}", set(LARGE_IDS[i % 7:]), start=100 * i,
                           version=LARGE_SET_VERSION, settings=OTHER_SETTINGS if i % 2 else None)
    return {"120 entries (6 runs × 20 cases)": entries_with_designed_flips(),
            "1,600 entries (20 runs × 80 cases)": eighty}


def import_once(browser, url: str, path: Path, last_cell: str) -> float:
    """One fresh context: open the page, wait for Python, import ``path``; ms until ``last_cell`` is drawn."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        context.add_init_script(WATCH)
        page = context.new_page()
        page.goto(url)
        page.wait_for_selector("body[data-eval-ready='true']", timeout=120_000)
        page.evaluate("(selector) => { document.documentElement.dataset.lastCell = selector; }", last_cell)
        page.set_input_files("#import-file", str(path))
        page.wait_for_selector(last_cell, state="attached", timeout=120_000)
        page.wait_for_timeout(50)
        return page.evaluate("() => window.matrixShown - window.importChosen")
    finally:
        context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--against", metavar="COMMIT", help="measure the site this commit built too, in turns")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    from conftest import CHROMIUM, CHROMIUM_ARGS
    from served_site import build_and_serve

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        sites = {"this tree": build_and_serve(folder / "this") + "ai-eval/"}
        if args.against:
            (folder / "against").mkdir()
            sites[args.against] = site_at(args.against, folder / "against") + "ai-eval/"
        print(f"/ai-eval/: ms from the file chosen to the matrix's last cell, after 'Python ready' (min / median / "
              f"max of {args.runs}; goal: at most 1,000 ms for 1,600 entries); load average {os.getloadavg()[0]:.1f}")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            for name, entries in logs().items():
                path = folder / f"{len(entries)}.json"
                path.write_text(export_json(entries), encoding="utf-8")
                calls = [e for e in entries if e["type"] == "call"]
                last = f"#case-matrix td.cell[data-run='{calls[-1]['run_id']}'][data-case='{calls[-1]['case_id']}']"
                times: dict[str, list[float]] = {site: [] for site in sites}
                for _ in range(args.runs):
                    for site, url in sites.items():
                        times[site].append(import_once(browser, url, path, last))
                for site, values in times.items():
                    print(f"  {name}, {site}: {summary(values, 0)} ms")
                if args.against:
                    ratio = statistics.median(times["this tree"]) / statistics.median(times[args.against])
                    print(f"  {name}: this tree ÷ {args.against}, medians: {ratio:.2f}")
            browser.close()
        print(f"  load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
