"""Time rebuilding and grading evaluation runs from audit logs of 1,000 to 100,000 calls (DR-006).

Usage: ``python3 bench/bench_rebuild.py [--sizes 1000 10000 100000] [--pyodide-sizes 1000 10000]
[--browser-sizes 1000 10000] [--page-sizes 10000 100000] [--page-against COMMIT] [--repeats 5]`` or ``--profile 10000``

Each log is synthetic but made of real parts: runs of the twenty cases whose
answers are JSON written from each case's true facts, with a walkthrough of
about a kilobyte quoting the first steps of the real trace (every answer text
distinct, so the grading cache never helps on a first rebuild), about 15% with
one wrong claim, some truncated or invalid answers, infrastructure failures,
cancellations and repeated calls. For each size the script times, on CPython,
under Pyodide in node, and under the site's own Pyodide in a Web Worker in
Chromium (``tests/support/pyodide_harness.py``, the way the page runs it):

- :func:`pyapp.evaluation.export.parse_import` of the JSON export (the import path);
- :func:`pyapp.evaluation.rebuild.rebuild` of the log as stored (every entry validated), and
  after an import (already validated); neither grades anything yet;
- grading every counted answer of every run, and rebuild plus grading all
  (:func:`pyapp.presentation.report.runs_overview`), which is "rebuilt and graded" in full;
- loading the worker's kept read of such a log (:mod:`pyapp.auditlog.checkpoint`), and from it
  the runs list with the outcomes it kept, so nothing is parsed, validated or graded again;
- :func:`pyapp.presentation.report.run_report` of one run (twenty grades and the 2,000-resample
  bootstrap), and the statistics of one comparison: both runs' reports and
  :func:`pyapp.presentation.run_comparison.compare_report`.

Every timing starts with an empty grading cache.

The script stays whole, at about 430 lines: the four runtimes it times (CPython, Pyodide in node, a
worker in Chromium, the page) share its synthetic log and its timing loop, and are compared in one report.

``--page-sizes`` times the page itself: the real site, its IndexedDB store filled
with the log, /ai-eval/ reopened in a new tab (a new worker, nothing read yet) three ways:
reading the log in full, from the worker's kept read, and from the kept opening view
(:mod:`pyapp.browser.opening_view`). It prints the time from "Python ready" to the runs
list, the configurations and the newest run's detail shown; the goals (DR-006) are the list
within 1.5 s of ready for 10,000 entries, and for 100,000 the list and the configurations
within 3 s from what the browser keeps, the list within 10 s read in full. It also prints
when each call the page made to the worker was answered. ``--page-against COMMIT``
builds the site as that commit had it and reopens both, their tabs taking turns, so a
before/after pair shares the machine's load.

Times are min / median / max milliseconds over the repeats; memory is the
tracemalloc peak of parse + rebuild + report, measured in a separate pass.

One file for the four runtimes: the same timed work (``WORK``) runs in each, and its results are
printed side by side; the synthetic logs it shares with the tests are in tests/support/synthetic_logs.py.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "support"), str(ROOT / "bench")]

from pyapp.evaluation.export import export_json  # noqa: E402
from pyodide_harness import pyodide_available, run_in_node  # noqa: E402
from synthetic_logs import synthetic_log  # noqa: E402

# --------------------------------------------------------------------------- the timed work (both runtimes)

WORK = r'''
import gc, json, statistics, time, tracemalloc
from pyapp.evaluation.export import parse_import
from pyapp.auditlog.checkpoint import Checkpoint, dumps, loads
from pyapp.presentation.report import run_report, runs_overview
from pyapp.presentation.run_comparison import compare_report
from pyapp.evaluation.rebuild import rebuild
from pyapp.evaluation.grader import Grader
from pyapp.core.collector import gc_paused


def timed(fn, repeats, setup=lambda: None):
    """Times of fn(setup()); setup is not timed. A rebuild made in setup brings a fresh grader, so no
    timing starts with a cached grade. fn runs with the collector paused, as the worker's operations
    and the command line's commands run."""
    out = []
    for _ in range(repeats):
        gc.collect()
        arg = setup()
        start = time.perf_counter()
        with gc_paused():
            fn(arg)
        out.append((time.perf_counter() - start) * 1000.0)
    return out


def grade_all(built):
    return sum(c.outcome == "grounded" for r in built for c in r.graded)


def measure(text, repeats):
    entries = parse_import(text)
    built = rebuild(entries)

    def fresh():
        return rebuild(entries, validated=True)

    def both(runs):
        first, second = runs.runs[0], runs.runs[1]
        return run_report(first), run_report(second), compare_report(first, second)

    graded = Grader()
    runs_overview(rebuild(entries, validated=True, grader=graded))
    kept = dumps(Checkpoint(entries, 0, [len(entries), "{}"], len(entries), graded.outcomes()))

    def from_kept(_):
        checkpoint = loads(kept)
        grader = Grader()
        grader.know(checkpoint.outcomes)
        return runs_overview(rebuild(checkpoint.entries, validated=True, grader=grader))

    result = {
        "entries": len(entries),
        "runs": len(built.runs),
        "graded": sum(len(r.graded) for r in built.runs),
        "mb": len(text.encode("utf-8")) / 1e6,
        "parse": timed(lambda _: parse_import(text), repeats),
        "rebuild": timed(lambda _: rebuild(entries), repeats),
        "rebuild_validated": timed(lambda _: rebuild(entries, validated=True), repeats),
        "grade_all": timed(grade_all, repeats, fresh),
        "rebuild_graded": timed(lambda _: runs_overview(rebuild(entries)), repeats),
        "import_graded": timed(lambda _: runs_overview(rebuild(parse_import(text), validated=True)), repeats),
        "kept_load": timed(lambda _: loads(kept), repeats),
        "kept_graded": timed(from_kept, repeats),
        "report": timed(lambda runs: run_report(runs.runs[0]), repeats, fresh),
        "compare": timed(both, repeats, fresh),
    }
    del entries, built
    gc.collect()
    tracemalloc.start()
    built = rebuild(parse_import(text), validated=True)
    runs_overview(built)
    run_report(built.runs[0])
    result["peak_mb"] = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return result
'''


def spread(values: list[float]) -> str:
    return f"{min(values):8.1f} {statistics.median(values):8.1f} {max(values):8.1f}"


def print_result(runtime: str, r: dict) -> None:
    print(f"\n{runtime}: {r['entries']:,} entries, {r['runs']:,} runs, {r['graded']:,} counted answers, "
          f"export {r['mb']:.1f} MB, peak memory {r['peak_mb']:.0f} MB (tracemalloc)")
    print(f"  {'ms (min / median / max)':<44}{'min':>8} {'median':>8} {'max':>8}")
    for key, label in (("parse", "parse_import: JSON + validation"),
                       ("rebuild", "rebuild log: validate, group, no grading"),
                       ("rebuild_validated", "rebuild after import: group only"),
                       ("grade_all", "grade every counted answer"),
                       ("rebuild_graded", "rebuild log + grade all (runs_overview)"),
                       ("import_graded", "parse + rebuild + grade all"),
                       ("kept_load", "load the kept read (marshal), DR-006"),
                       ("kept_graded", "kept read + rebuild + list, none graded"),
                       ("report", "run_report, one run (grades 20, bootstrap)"),
                       ("compare", "two run_reports + compare_report")):
        print(f"  {label:<44}{spread(r[key])}")


def profile(size: int) -> None:
    """Share of the time of rebuild + grade all by source file, from cProfile (own time per function)."""
    import cProfile
    import pstats

    from pyapp.evaluation.rebuild import rebuild
    from pyapp.presentation.report import runs_overview

    entries = json.loads(json.dumps(synthetic_log(size)))  # as stored: plain strings, not the vocabulary's enums
    rebuild(entries[:40])
    profiler = cProfile.Profile()
    profiler.runcall(lambda: runs_overview(rebuild(entries)))
    stats = pstats.Stats(profiler).stats
    by_file: dict[str, float] = {}
    for (filename, _, _name), (_, _, own, _, _) in stats.items():
        if filename == "~":
            key = "built-in functions (called from the files above)"
        elif filename == "<string>":
            key = "answer schema validator (fastjsonschema)"
        else:
            key = "/".join(Path(filename).parts[-2:])
        by_file[key] = by_file.get(key, 0.0) + own
    total = sum(by_file.values())
    print(f"rebuild + grade all, {size:,} calls, {total:.2f} s under cProfile; own time by file:")
    for key, own in sorted(by_file.items(), key=lambda kv: -kv[1])[:14]:
        print(f"  {key:<44}{own / total:7.1%}")


# --------------------------------------------------------------------------- the page, reopened

STORE_ENTRIES = """async (texts) => {
  const db = await new Promise((ok, fail) => { const r = indexedDB.open("kd-tree-explorer", 1);
    r.onupgradeneeded = () => r.result.createObjectStore("audit", { keyPath: "seq", autoIncrement: true });
    r.onsuccess = () => ok(r.result); r.onerror = () => fail(r.error); });
  const t = db.transaction("audit", "readwrite");
  for (const json of texts) t.objectStore("audit").add({ json });
  await new Promise((ok, fail) => { t.oncomplete = ok; t.onerror = () => fail(t.error); });
  db.close();
}"""
# Notes when the runs list and the run detail first hold something, and when each call to the worker was
# sent and answered, on the page's clock.
WATCH_RUNS = """new MutationObserver((_, observer) => {
  const shown = (selector) => document.querySelector(selector);
  if (shown("#runs tbody tr") && !window.runsShown) window.runsShown = performance.now();
  if (shown("#run-detail[data-run]") && !window.detailShown) window.detailShown = performance.now();
  if (shown("#configurations .configuration") && !window.configurationsShown) {
    window.configurationsShown = performance.now();
  }
  if (window.runsShown && window.detailShown && window.configurationsShown) observer.disconnect();
}).observe(document, { childList: true, subtree: true, attributes: true });
window.workerCalls = {};
const post = Worker.prototype.postMessage;
Worker.prototype.postMessage = function (message, ...rest) {
  if (!this.callsWatched) {
    this.callsWatched = true;
    this.addEventListener("message", (event) => {
      const call = window.workerCalls[event.data.id];
      if (event.data.type === "result" && call) call.done = performance.now();
    });
  }
  if (message && message.type === "call") window.workerCalls[message.id] = { op: message.op, sent: performance.now() };
  return post.call(this, message, ...rest);
};"""


# Whether the browser keeps record ``name`` (DR-006: "audit-log", the worker's read of the log, or "audit-view",
# the evaluation page's opening view); with ``drop`` true, it is deleted first.
KEPT = """async ([name, drop]) => {
  const db = await new Promise((ok, fail) => { const r = indexedDB.open("kd-tree-explorer-snapshot", 1);
    r.onupgradeneeded = () => r.result.createObjectStore("snapshot");
    r.onsuccess = () => ok(r.result); r.onerror = () => fail(r.error); });
  const store = db.transaction("snapshot", drop ? "readwrite" : "readonly").objectStore("snapshot");
  const found = await new Promise((ok) => { const g = store.get(name); g.onsuccess = () => ok(g.result); });
  if (drop) store.delete(name);
  await new Promise((ok) => { store.transaction.oncomplete = ok; });
  db.close();
  return Boolean(found) && !drop;
}"""


def kept(context, url: str, names: tuple[str, ...], drop: bool = False) -> bool:
    """Whether the site at ``url`` keeps every record of ``names``; ``drop`` deletes them (from its home page)."""
    page = context.new_page()
    page.goto(url.removesuffix("ai-eval/"))
    found = [page.evaluate(KEPT, [name, drop]) for name in names]
    page.close()
    return all(found)


# How a reopened tab starts, and the records of the browser's keeping it may not use.
STARTS = {"log read in full": ("audit-log", "audit-view"), "from the kept read": ("audit-view",),
          "from the kept opening view": ()}


def site_at(ref: str, folder: Path) -> str:
    """The site as git commit ``ref`` built it, served on 127.0.0.1; its URL (for a side-by-side run)."""
    import subprocess
    import threading

    from sitegen.serve import make_server

    tree = folder / "tree"
    tree.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    (tree / "node_modules").symlink_to(ROOT / "node_modules")
    subprocess.run([sys.executable, str(tree / "build.py")], check=True, cwd=tree, capture_output=True)
    server = make_server(tree / "dist")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/"


def page_reopen(sizes: list[int], repeats: int, against: str | None = None) -> None:
    """Ms from "Python ready" to the runs list and to the run detail, /ai-eval/ reopened on a stored log.

    With ``against`` (a git commit), the site that commit built is measured too, its tabs taking turns
    with this tree's on the same log, so both see the same load.
    """

    from playwright.sync_api import sync_playwright

    from conftest import CHROMIUM, CHROMIUM_ARGS
    from served_site import build_and_serve

    with tempfile.TemporaryDirectory() as tmp:
        sites = {"this tree": build_and_serve(Path(tmp)) + "ai-eval/"}
        if against:
            (Path(tmp) / "against").mkdir()
            sites[against] = site_at(against, Path(tmp) / "against") + "ai-eval/"
        print("\n/ai-eval/ reopened on a stored log, ms from 'Python ready' (min / median / max of "
              f"{repeats} new tabs; goals: runs list within 1,500 ms for 10,000 entries; runs list and "
              "configurations within 3,000 ms for 100,000 from the kept read, the list within 10,000 ms in full); "
              f"load average {os.getloadavg()[0]:.1f}")
        with sync_playwright() as playwright:
            for size in sizes:
                texts = [json.dumps(entry) for entry in synthetic_log(size)]
                contexts = {}
                for name, url in sites.items():
                    context = playwright.chromium.launch_persistent_context(
                        str(Path(tmp) / f"profile-{len(contexts)}-{size}"), executable_path=CHROMIUM, headless=True,
                        args=CHROMIUM_ARGS)
                    context.add_init_script(WATCH_RUNS)
                    page = context.new_page()
                    page.goto(url)
                    for start in range(0, len(texts), 5000):
                        page.evaluate(STORE_ENTRIES, texts[start:start + 5000])
                    page.close()
                    contexts[name] = context
                times: dict[tuple[str, str], dict[str, list[float]]] = {}
                for _ in range(repeats):
                    for name, url in sites.items():
                        for how, unused in STARTS.items():
                            kept(contexts[name], url, unused, drop=True)
                            # A commit compared may keep neither, or keep them only once its tab is idle.
                            measured = reopen_once(contexts[name], url, wait_s=120 if name == "this tree" else 30)
                            started = measured.pop("started")
                            if started != how:
                                how = f"{started} (as it keeps no more)"
                            for key, value in measured.items():
                                times.setdefault((name, how), {}).setdefault(key, []).append(value)
                for context in contexts.values():
                    context.close()
                for (name, how), measured in times.items():
                    print(f"  {size:>7,} entries, {name}, {how}: runs list {spread(measured['runs list'])}   "
                          f"configurations {spread(measured['configurations shown'])}   "
                          f"newest run's detail {spread(measured['detail'])}")
                    calls = ", ".join(f"{key} {statistics.median(values):,.0f}" for key, values in measured.items()
                                      if key not in ("runs list", "configurations shown", "detail"))
                    print(f"      worker calls, median ms after ready (sent → answered): {calls}")
        print(f"  load average at the end {os.getloadavg()[0]:.1f}")


def reopen_once(context, url: str, wait_s: float) -> dict:
    """One new tab of ``url``: ms after "Python ready" for the runs list, the configurations, the detail and
    each call's answer, and how the worker started (``STARTS``). The tab stays open until the browser keeps
    both the worker's read and the opening view (in the background), for the next tab, or ``wait_s``."""
    page = context.new_page()
    page.goto(url)
    # Polled from here: the site's CSP forbids the eval that wait_for_function would need.
    while not page.evaluate("() => Boolean(window.runsShown && window.detailShown && window.configurationsShown)"):
        time.sleep(0.05)
    ready = page.evaluate("performance.getEntriesByName('python-ready')[0].startTime")
    marks = page.workers[0].evaluate("['audit-view-used', 'audit-log-restored'].map((name) => "
                                     "performance.getEntriesByName(name).length)")
    out = {"runs list": page.evaluate("window.runsShown") - ready,
           "configurations shown": page.evaluate("window.configurationsShown") - ready,
           "detail": page.evaluate("window.detailShown") - ready,
           "started": list(STARTS)[2 if marks[0] else 1 if marks[1] else 0]}
    for made in page.evaluate("Object.values(window.workerCalls)"):
        if "done" in made and made["op"] not in out:
            out[f"{made['op']} sent"] = made["sent"] - ready
            out[made["op"]] = made["done"] - ready
    waited = time.monotonic()
    while not kept(context, url, STARTS["log read in full"]) and time.monotonic() - waited < wait_s:
        time.sleep(0.5)
    page.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 10000, 100000])
    parser.add_argument("--pyodide-sizes", type=int, nargs="*", default=[1000, 10000])
    parser.add_argument("--browser-sizes", type=int, nargs="*", default=[1000, 10000])
    parser.add_argument("--page-sizes", type=int, nargs="*", default=[10000, 100000])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--page-against", metavar="COMMIT",
                        help="also reopen the page as COMMIT built it, tabs taking turns (before/after)")
    parser.add_argument("--profile", type=int, metavar="N",
                        help="instead: where rebuild + grade all spends its time, N-call log, CPython")
    args = parser.parse_args()
    if args.profile:
        profile(args.profile)
        return
    print(f"Python {platform.python_version()} ({platform.machine()}); {args.repeats} repeats")
    namespace: dict = {}
    exec(WORK, namespace)
    browser = None
    if args.browser_sizes:
        try:
            from pyodide_harness import BrowserPython

            browser = BrowserPython().__enter__()
        except Exception as exc:  # no Chromium or Playwright here: say so and go on
            print(f"Chromium: skipped ({type(exc).__name__}: {exc})")
    try:
        run_sizes(args, namespace, browser)
    finally:
        if browser is not None:
            browser.__exit__(None, None, None)
    if args.page_sizes:
        page_reopen(args.page_sizes, min(args.repeats, 3), args.page_against)


def run_sizes(args: argparse.Namespace, namespace: dict, browser: object | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for size in sorted(set(args.sizes) | set(args.pyodide_sizes) | set(args.browser_sizes)):
            start = time.perf_counter()
            text = export_json(synthetic_log(size))
            print(f"\n--- {size:,} calls (log built in {time.perf_counter() - start:.1f} s)")
            if size in args.sizes:
                print_result("CPython", namespace["measure"](text, args.repeats))
            if size in args.pyodide_sizes and not pyodide_available():
                print("Pyodide in node: skipped (needs node and node_modules/pyodide)")
            elif size in args.pyodide_sizes:
                path = work / f"export-{size}.json"
                path.write_text(text, encoding="utf-8")
                script = (WORK + f"\nwith open('export.json', encoding='utf-8') as f:\n    TEXT = f.read()\n"
                          f"json.dumps(measure(TEXT, {args.repeats}))\n")
                out = run_in_node(script, work, {"export.json": path}, timeout=3600)
                print_result("Pyodide (node)", json.loads(out))
            if size in args.browser_sizes and browser is not None:
                # The benchmark site is served from its folder on disk, so a file put there is fetchable.
                (browser.folder / "bench-export.json").write_text(text, encoding="utf-8")
                script = (WORK + "\nfrom pyodide.http import pyfetch\n"
                          "TEXT = await (await pyfetch('bench-export.json')).string()\n"
                          f"json.dumps(measure(TEXT, {args.repeats}))\n")
                print_result("Pyodide (Chromium worker)", json.loads(browser.run(script, timeout_ms=3_600_000)))


if __name__ == "__main__":
    main()
