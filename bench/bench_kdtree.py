"""Benchmark the k-d tree: build time per insertion order, and traced searches against scipy (DR-004).

Usage: ``python3 bench/bench_kdtree.py [--queries 1000] [--repeats 3] [--seed 2026]``

Prints min / median / max over the repeats. The pure-Python search loop lives in
``bench/kdtree_workload.py`` so the same work can be timed under Pyodide;
``scipy.spatial.KDTree`` answers the same queries as a native reference (one call
per query, as the page makes them, and one vectorised call for all queries).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "support"), str(ROOT / "bench")]

import numpy as np  # noqa: E402
from scipy.spatial import KDTree as ScipyKDTree  # noqa: E402

from kdtree_workload import WORKLOADS, run_workload, workload_queries  # noqa: E402
from pyapp.kdtree.geodata import bounding_box, load_businesses  # noqa: E402
from pyapp.kdtree.tree import ORDERS, KdTree, insertion_sequence  # noqa: E402
from pyodide_harness import BrowserPython  # noqa: E402

BALANCED = "median-first"  # the balanced tree, which the scipy comparison is about


def spread(values: list[float]) -> str:
    return f"{min(values):9.1f} {statistics.median(values):9.1f} {max(values):9.1f}"


def ratio_spread(values: list[float]) -> str:
    return f"{min(values):.1f}x / {statistics.median(values):.1f}x / {max(values):.1f}x (min / median / max)"


def bench_build(repeats: int) -> None:
    points = load_businesses()
    box = bounding_box(points)
    print(f"tree build, ms (min / median / max of {repeats})")
    for order in ORDERS:
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            tree = KdTree(order, insertion_sequence(order, points), box)
            times.append((time.perf_counter() - start) * 1e3)
        stats = tree.stats()
        print(f"  {order:<13} {spread(times)}   depth {stats.depth:3d}  "
              f"average depth {stats.average_depth:.2f}")


def scipy_reference(
    queries: list[tuple[float, float]], radius: float | None, repeats: int
) -> tuple[list[float], list[float]]:
    """µs per query for scipy: one call per query, and one batch call (each over the repeats)."""
    points = load_businesses()
    tree = ScipyKDTree(np.array([[b.lon, b.lat] for b in points]))
    q = np.array(queries)
    loop, batch = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        for row in q:
            tree.query(row) if radius is None else tree.query_ball_point(row, radius)
        loop.append((time.perf_counter() - start) / len(q) * 1e6)
        start = time.perf_counter()
        tree.query(q) if radius is None else tree.query_ball_point(q, radius)
        batch.append((time.perf_counter() - start) / len(q) * 1e6)
    return loop, batch


def in_pyodide(browser, order: str, kind: str, n_queries: int, seed: int, radius: float | None) -> dict:
    """The same workload once in the site's Pyodide, in a Chromium worker."""
    code = ("import json\nfrom kdtree_workload import run_workload\n"
            f"json.dumps(run_workload({order!r}, {kind!r}, {n_queries}, {seed}, {radius!r}))")
    return json.loads(browser.run(code))


def bench_search(n_queries: int, repeats: int, seed: int, browser=None) -> None:
    queries = workload_queries(n_queries, seed)
    print(f"\nsearches: {n_queries} random queries in the data bounding box, seed {seed}")
    print(f"  µs per query (min / median / max of {repeats} runs); "
          "nodes, pruned, steps and results are medians over the queries")
    for label, kind, radius in WORKLOADS:
        balanced_runs: list[dict] = []
        print(f"\n  {label}")
        print(f"    {'':<22} {'min':>9} {'median':>9} {'max':>9}   nodes  pruned  steps  results"
              "   mean/max nodes")
        for order in ORDERS:
            # CPython and Pyodide take turns, so load on the machine falls on both alike.
            runs, pyodide = [], []
            balanced_runs = runs if order == BALANCED else balanced_runs
            for _ in range(repeats):
                runs.append(run_workload(order, kind, n_queries, seed, radius))
                if browser is not None:
                    pyodide.append(in_pyodide(browser, order, kind, n_queries, seed, radius))
            r = runs[0]
            print(f"    {order:<22} {spread([x['us_per_query'] for x in runs])}   "
                  f"{r['median_nodes_visited']:5.0f}  {r['median_subtrees_pruned']:6.0f}  "
                  f"{r['median_trace_steps']:5.0f}  {r['median_result_size']:7.0f}"
                  f"   {r['mean_nodes_visited']:6.1f} / {r['max_nodes_visited']}")
            if pyodide:
                if pyodide[0]["result_ids"] != r["result_ids"]:
                    raise SystemExit(f"Pyodide found other results than CPython for {order} {label}")
                ratio = statistics.median(x["us_per_query"] for x in pyodide) / statistics.median(
                    x["us_per_query"] for x in runs)
                print(f"    {'  in Pyodide (worker)':<22} {spread([x['us_per_query'] for x in pyodide])}"
                      f"   same results; Pyodide / CPython = {ratio:.2f}")
        loop, batch = scipy_reference(queries, radius, repeats)
        print(f"    {'scipy, one call each':<22} {spread(loop)}")
        print(f"    {'scipy, one batch call':<22} {spread(batch)}")
        # Repeat i of the traced search against repeat i of scipy; the goal (DR-004) is within 10x.
        ratios = [run["us_per_query"] / ref for run, ref in zip(balanced_runs, loop, strict=True)]
        print(f"    {BALANCED} traced / scipy one call: {ratio_spread(ratios)}"
              + ("   (goal: at most 10x)" if kind == "nearest" else ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="k-d tree benchmark")
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--no-pyodide", action="store_true", help="skip the same searches in Chromium")
    args = parser.parse_args(argv)
    print(f"python {sys.version.split()[0]}, {len(load_businesses())} points")
    bench_build(max(args.repeats, 5))
    if args.no_pyodide:
        bench_search(args.queries, args.repeats, args.seed)
        return 0
    with BrowserPython({"kdtree_workload.py": ROOT / "bench" / "kdtree_workload.py"}) as browser:
        bench_search(args.queries, args.repeats, args.seed, browser)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
