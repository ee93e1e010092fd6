"""Time the default experiment (the experiments page's figures, DR-010) on CPython and under the site's Pyodide.

Usage: ``python3 bench/bench_experiment.py [--repeats 5] [--seed 2026] [--queries 200] [--no-pyodide]``

Each repeat starts cold: the trees and the bootstrap's index draws are dropped first, as
in a fresh worker. Pyodide runs in a Web Worker in Debian's Chromium on the built site,
loading the wheels the site loads (``tests/support/pyodide_harness.py``). Prints min / median /
max in seconds, side by side, and checks that both give the same figures (digest).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "support")]

# One function, run the same way by both interpreters: the seconds of each cold run and the figures' digest.
WORKLOAD = """
import json, time
from pyapp.experiment import orders as experiment
from pyapp.kdtree import tree as kdtree
from pyapp.evaluation import stats

def timed_runs(seed, per_kind, repeats):
    seconds = []
    for _ in range(repeats):
        kdtree._data_tree.cache_clear()
        stats.resample_indices.cache_clear()
        start = time.perf_counter()
        figures = experiment.run_experiment(seed, per_kind)
        seconds.append(time.perf_counter() - start)
    return json.dumps({"seconds": seconds, "digest": figures["digest"]})
"""


def spread(values: list[float]) -> str:
    return f"{min(values):6.2f} / {statistics.median(values):6.2f} / {max(values):6.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--queries", type=int, default=200, help="queries per kind")
    parser.add_argument("--no-pyodide", action="store_true", help="time CPython only")
    args = parser.parse_args()
    namespace: dict = {}
    exec(WORKLOAD, namespace)  # noqa: S102 - the same text the Pyodide side runs
    call = f"timed_runs({args.seed}, {args.queries}, {args.repeats})"
    results = {f"CPython {platform.python_version()}": json.loads(eval(call, namespace))}  # noqa: S307
    if not args.no_pyodide:
        from pyodide_harness import BrowserPython

        with BrowserPython() as python:
            python.run(WORKLOAD + "\n'loaded'")
            version = python.run("import platform\nplatform.python_version()")
            results[f"Pyodide (Python {version}, Chromium worker)"] = json.loads(python.run(call))
    print(f"default experiment: seed {args.seed}, {args.queries} queries per kind, {args.repeats} cold runs each")
    print(f"{'interpreter':<42}{'min / median / max s':>24}")
    for name, result in results.items():
        print(f"{name:<42}{spread(result['seconds']):>24}")
    digests = {result["digest"] for result in results.values()}
    print("same figures on both: " + ("yes" if len(digests) == 1 else "NO") + f" (digest {sorted(digests)[0][:16]})")
    if len(results) == 2:
        cpython, pyodide = (statistics.median(r["seconds"]) for r in results.values())
        print(f"Pyodide / CPython, medians: {pyodide / cpython:.2f}")


if __name__ == "__main__":
    main()
