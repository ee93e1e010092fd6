"""Time the configuration view of repeated runs inside a 10,000-entry log, on CPython and Pyodide (DR-008).

Usage: ``python3 bench/bench_repeats.py [--entries 10000] [--repeats 5]``

The log is ``bench_rebuild``'s synthetic one (two configurations, runs of the twenty
cases with wrong claims, failures and repeats) with two more configurations of ten
full runs each appended (400 calls, designed flips), the case the page meets when a
visitor has repeated two configurations on a long log. Timed, from the parsed entries:

- the configuration view: rebuild (already validated, as after an import) and
  :func:`pyapp.presentation.repeat_report.configurations_report` of every run (grading included);
- the comparison of the two ten-run configurations,
  :func:`pyapp.presentation.repeat_report.configuration_compare_report` (the 2,000-resample bootstrap).

Each runtime's timings start from a fresh rebuild, so no grade is cached. Times are
min / median / max milliseconds; the ratio is Pyodide's median over CPython's.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "support"), str(ROOT / "bench")]

from eval_helpers import full_run  # noqa: E402
from pyapp.evaluation.evalset import FIXED_SETS  # noqa: E402
from pyapp.evaluation.export import export_json  # noqa: E402
from pyodide_harness import pyodide_available, run_in_node  # noqa: E402
from synthetic_logs import synthetic_log  # noqa: E402

REPEATED = ({"provider": "anthropic", "model": "claude-repeat", "max_tokens": 4000, "temperature": 0.0,
             "base_url": None},
            {"provider": "openai", "model": "gpt-repeat", "max_tokens": 4000, "temperature": 0.0, "base_url": None})
RUNS = 10

WORK = r'''
import gc, json, time
from pyapp.evaluation.configurations import group_runs
from pyapp.evaluation.export import parse_import
from pyapp.presentation.repeat_report import configuration_compare_report, configurations_report
from pyapp.evaluation.rebuild import rebuild


def measure(text, x, y, repeats):
    entries = parse_import(text)
    view, compare = [], []
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        runs = list(rebuild(entries, validated=True))
        report = configurations_report(runs)
        view.append((time.perf_counter() - start) * 1000.0)
        start = time.perf_counter()
        figures = configuration_compare_report(group_runs(runs), x, y)
        compare.append((time.perf_counter() - start) * 1000.0)
    return {"entries": len(entries), "runs": len(runs), "configurations": len(report["configurations"]),
            "difference": figures["display"]["difference"], "view": view, "compare": compare}
'''


def repeated_log(entries: int) -> list[dict]:
    """The synthetic log with two configurations of ten runs each appended (one flipping case per run)."""
    ids = list(FIXED_SETS.case_ids())
    extra = []
    for side, settings in enumerate(REPEATED):
        for run in range(RUNS):
            flip = ids[(run + 5 * side) % len(ids)]
            grounded = set(ids[: 16 + 2 * side]) - {flip}
            extra += full_run(f"repeat-{side}-{run:02d}", grounded, start=10_000_000.0 + 1_000 * (RUNS * side + run),
                              settings=settings)
    return synthetic_log(entries - len(extra)) + extra


def spread(values: list[float]) -> str:
    return f"{min(values):9.1f} {statistics.median(values):9.1f} {max(values):9.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    text = export_json(repeated_log(args.entries))
    namespace: dict = {}
    exec(WORK, namespace)
    x, y = "repeat-0-00", "repeat-1-00"  # a configuration is named by any of its runs
    results = {"CPython " + platform.python_version(): namespace["measure"](text, x, y, args.repeats)}
    if pyodide_available():
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "export.json"
            path.write_text(text, encoding="utf-8")
            script = (WORK + "\nwith open('export.json', encoding='utf-8') as f:\n    TEXT = f.read()\n"
                      f"json.dumps(measure(TEXT, {x!r}, {y!r}, {args.repeats}))\n")
            results["Pyodide (node)"] = json.loads(run_in_node(script, Path(tmp), {"export.json": path},
                                                               timeout=3600))
    else:
        print("Pyodide in node: skipped (needs node and node_modules/pyodide)")
    first = next(iter(results.values()))
    print(f"{first['entries']:,} entries, {first['runs']:,} runs, {first['configurations']} configurations; "
          f"{RUNS} runs against {RUNS}: {first['difference']}")
    print(f"{'ms (min / median / max)':<56}{'min':>9} {'median':>9} {'max':>9}")
    for runtime, r in results.items():
        assert r["difference"] == first["difference"], "the runtimes disagree"
        print(f"{runtime + ': configuration view (rebuild + report)':<56}{spread(r['view'])}")
        print(f"{runtime + ': two 10-run configurations compared':<56}{spread(r['compare'])}")
    if len(results) == 2:
        cpython, pyodide = results.values()
        for key, label in (("view", "configuration view"), ("compare", "comparison")):
            ratio = statistics.median(pyodide[key]) / statistics.median(cpython[key])
            print(f"Pyodide / CPython, {label} (medians): {ratio:.2f}")


if __name__ == "__main__":
    main()
