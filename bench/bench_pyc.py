"""Time to "Python ready": the site's pages against bare Pyodide pages, stock and precompiled stdlib (DR-002).

    python bench/bench_pyc.py [--runs 5] [--before OLD_DIST] [--server builtin|nginx]

Builds the site and adds two bare pages beside it: a worker that only calls
``loadPyodide``, once with Pyodide's stock ``python_stdlib.zip`` and once with the
site's precompiled one. Each run visits every target in turn (the order rotates
between runs), each in a fresh on-disk Chromium profile: "cold" is the first visit,
"warm" a new tab in the same profile; every visit starts once the browser has been idle
for a while (bench_boot.SETTLE_S). A control, the bare precompiled page again in a profile
of its own, shows how far apart two identical pages land on this machine. Prints
min / median / max, the ratios of the medians, site / bare, the same ratios within each
run with an interval for their median, the machine's load average before and after, and
for every target the worker's steps (from its performance marks): where the time beyond a
bare page goes. With ``--before``, a dist/ built by an earlier version is served too and
its pages are timed in the same turns, with each page's ratio to its earlier self.
``--server nginx`` serves everything with Debian's nginx and the README's server block
(compressed, in a process of its own) instead of the development server, which runs in
this process and sends every file uncompressed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path[:0] = [str(HERE.parent / "tests"), str(HERE.parent / "tests" / "support")]

from playwright.sync_api import sync_playwright  # noqa: E402

from bench_boot import visit  # noqa: E402
from conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from served_site import SERVERS, build_and_serve, serve  # noqa: E402
from sitegen import ROOT  # noqa: E402
from sitegen.static import pyodide_folder  # noqa: E402
from stats_util import median_interval, summary  # noqa: E402

BARE_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Bare Pyodide</title>
<script type="module" src="bare.mjs"></script></head>
<body><p id="python-status" data-state="loading">Loading…</p></body></html>
"""

# The page's status element and performance mark, as the site's python.mjs sets them.
BARE_SCRIPT = """
const worker = new Worker(new URL("bare-worker.mjs" + location.search, import.meta.url), { type: "module" });
worker.onmessage = (event) => {
  performance.mark("python-ready");
  for (const [name, epochMs] of event.data) {
    performance.mark(`worker:${name}`, { startTime: epochMs - performance.timeOrigin });
  }
  const status = document.getElementById("python-status");
  status.dataset.state = "ready";
  status.textContent = "Python ready";
};
"""

PYODIDE = pyodide_folder(ROOT / "node_modules" / "pyodide")
BARE_WORKER = """
import { loadPyodide } from "./PYODIDE/pyodide.mjs";
performance.mark("worker-evaluated");
const stdlib = new URL(import.meta.url).searchParams.get("stdlib");
await loadPyodide({
  indexURL: new URL("./PYODIDE/", import.meta.url).href,
  ...(stdlib ? { stdLibURL: new URL(stdlib, import.meta.url).href } : {}),
});
performance.mark("pyodide-loaded");
// The steps' times since the epoch, as the site's worker sends them.
const marks = performance.getEntriesByType("mark");
self.postMessage(marks.map((mark) => [mark.name, performance.timeOrigin + mark.startTime]));
"""

TARGETS = {
    "bare, stock stdlib": "bare.html",
    "bare, precompiled stdlib": f"bare.html?stdlib={PYODIDE}/python_stdlib.pyc.zip",
    "/ai-eval/": "ai-eval/",
    "/explorer/": "explorer/",
}
VISITS = ("cold", "warm")
# The bare precompiled page again, in a profile of its own: how far apart two identical pages land here.
CONTROL = "control: the same bare page"
# The two bare pages, added to the built site by this benchmark and by bench_snapshot.
BARE_FILES = {"bare.html": BARE_PAGE, "bare.mjs": BARE_SCRIPT,
              "bare-worker.mjs": BARE_WORKER.replace("PYODIDE", PYODIDE)}
# The worker's performance marks in order (site_src/static/js/worker.mjs); each step ends at its mark.
STEPS = ("worker-evaluated", "init", "pyodide-loaded", "wheels-on-path", "pyapp-imported", "ready")


def step_times(marks: dict[str, float], ready: float) -> dict[str, float]:
    """Milliseconds each step of the worker took, and from its last mark to the page's "Python ready"."""
    times, before = {}, 0.0
    for step in STEPS:
        if f"worker:{step}" in marks:
            times[step] = marks[f"worker:{step}"] - before
            before = marks[f"worker:{step}"]
    times["message to the page"] = ready - before
    return times


def paired_ratios(page: list[float], bare: list[float]) -> list[float]:
    """Each run's page time over the bare page's time in the same run: a slow spell of the machine
    weighs on both sides of one ratio instead of on one side of the medians."""
    return [p / b for p, b in zip(page, bare, strict=True)]


def profiles_in_turn(playwright, folder: Path, runs: int, names=tuple(TARGETS), **options):
    """Each run, every target in ``names`` once (the order rotates between runs), each in a fresh on-disk
    Chromium profile in ``folder``: yields (target, context) and closes the context when the caller moves on.
    """
    names = list(names)
    for run in range(runs):
        for target in names[run % len(names):] + names[:run % len(names)]:
            profile = folder / f"profile-{run}-{names.index(target)}"
            context = playwright.chromium.launch_persistent_context(
                str(profile), executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS, **options)
            yield target, context
            context.close()


def with_before(before_dist: Path | None, server: str = "builtin") -> dict[str, str]:
    """TARGETS and, given a dist/ of an earlier version, that build's two pages, served on a port of their own."""
    targets = dict(TARGETS)
    if before_dist:
        origin = serve(before_dist, server)
        for page in ("ai-eval/", "explorer/"):
            targets[f"/{page} before"] = origin + page
    return targets


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--before", type=Path, help="a dist/ of an earlier version, served too, its pages timed beside")
    parser.add_argument("--server", choices=SERVERS, default="builtin",
                        help="the development server, or Debian's nginx with the README's server block")
    args = parser.parse_args()
    targets = with_before(args.before, args.server)
    targets[CONTROL] = TARGETS["bare, precompiled stdlib"] + "&again"
    times: dict[tuple[str, str], list[float]] = {(t, v): [] for t in targets for v in VISITS}
    kilobytes: dict[tuple[str, str], list[float]] = {(t, v): [] for t in targets for v in VISITS}
    steps: dict[tuple[str, str], dict[str, list[float]]] = {(t, v): {} for t in targets for v in VISITS}
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        origin = build_and_serve(Path(tmp), BARE_FILES, server=args.server)
        # Service workers blocked: "warm" is the HTTP cache for the site as for the bare page.
        for target, context in profiles_in_turn(playwright, Path(tmp), args.runs, targets, service_workers="block"):
            for visit_kind in VISITS:
                marks: dict[str, float] = {}
                url = targets[target] if targets[target].startswith("http") else origin + targets[target]
                ms, received = visit(context, url, marks)
                if marks.get("start"):
                    print(f"  note: {target} {visit_kind} started from a snapshot")
                for step, took in step_times(marks, ms).items():
                    steps[target, visit_kind].setdefault(step, []).append(took)
                times[target, visit_kind].append(ms)
                kilobytes[target, visit_kind].append(received / 1e3)
    load_after = os.getloadavg()
    print(f"served by {args.server}; load average (1, 5, 15 min) before {load_before}, after {load_after}")
    print(f"navigation to 'Python ready', ms and kB received (min / median / max), {args.runs} runs, turns taken")
    for visit_kind in VISITS:
        for target in targets:
            key = (target, visit_kind)
            print(f"  {visit_kind:5} {target:30} {summary(times[key])} ms   {summary(kilobytes[key])} kB")
    print("ratios of medians, site / bare")
    median = {key: statistics.median(values) for key, values in times.items()}
    for visit_kind in VISITS:
        for page in [t for t in targets if t.startswith("/")]:
            stock = median[page, visit_kind] / median["bare, stock stdlib", visit_kind]
            precompiled = median[page, visit_kind] / median["bare, precompiled stdlib", visit_kind]
            print(f"  {visit_kind:5} {page:18} / bare stock {stock:.2f}   / bare precompiled {precompiled:.2f}")
        control = median[CONTROL, visit_kind] / median["bare, precompiled stdlib", visit_kind]
        print(f"  {visit_kind:5} {CONTROL} / bare precompiled {control:.2f}")
    print("the same ratios within each run (the page and the bare page timed in one turn): min / median / max, "
          "and an interval for the median that assumes no distribution")
    bares = ("bare, stock stdlib", "bare, precompiled stdlib")
    pairs = [(page, bare) for page in targets if page.startswith("/") for bare in bares]
    pairs += [(CONTROL, "bare, precompiled stdlib")]
    pairs += [(page.removesuffix(" before"), page) for page in targets if page.endswith(" before")]
    for visit_kind in VISITS:
        for page, reference in pairs:
            within = paired_ratios(times[page, visit_kind], times[reference, visit_kind])
            low, high, coverage = median_interval(within)
            print(f"  {visit_kind:5} {page:30} / {reference:24} {summary(within, digits=2)}   "
                  f"{coverage:.0%} interval {low:.2f} to {high:.2f}")
    print("the worker, ms per step (min / median / max); each step ends at its mark (a bare page has two)")
    for (target, visit_kind), by_step in steps.items():
        for step, took in by_step.items():
            print(f"  {visit_kind:5} {target:18} {step:22} {summary(took)}")


if __name__ == "__main__":
    main()
