"""The timed search loop of the benchmark, pure Python so it runs under Pyodide too (DR-004).

``run_workload`` needs only ``pyapp`` and the standard library: the command-line
benchmark (``bench/bench_kdtree.py``) calls it on CPython, and the same function
can be called in the browser to compare the two runtimes on identical queries.
"""

from __future__ import annotations

import random
import statistics
import time

from pyapp.kdtree.geodata import bounding_box
from pyapp.kdtree.search import nearest, within_radius
from pyapp.kdtree.tree import build_tree

# (label, kind, radius): the three workloads the benchmark reports.
WORKLOADS = (
    ("nearest", "nearest", None),
    ("radius-0.0005", "radius", 0.0005),
    ("radius-0.003", "radius", 0.003),
)


def workload_queries(n_queries: int, seed: int) -> list[tuple[float, float]]:
    """``n_queries`` points drawn uniformly from the data's bounding box with ``random.Random(seed)``."""
    box = bounding_box()
    rng = random.Random(seed)
    queries = []
    for _ in range(n_queries):
        lon = rng.uniform(box.min_lon, box.max_lon)
        queries.append((lon, rng.uniform(box.min_lat, box.max_lat)))
    return queries


def run_workload(order: str, kind: str, n_queries: int, seed: int, radius: float | None = None) -> dict:
    """Run ``n_queries`` traced searches on the data tree for ``order``; return timings and counts.

    ``kind`` is ``nearest`` or ``radius`` (then ``radius`` is required), or one of the
    labels in ``WORKLOADS`` such as ``radius-0.003``. Only the searches are timed; the
    tree is built (and cached) before the clock starts.
    """
    for label, label_kind, label_radius in WORKLOADS:
        if kind == label:
            kind, radius = label_kind, label_radius
    if kind == "radius" and radius is None:
        raise ValueError("a radius workload needs a radius")
    tree = build_tree(order)
    queries = workload_queries(n_queries, seed)
    start = time.perf_counter()
    if kind == "nearest":
        results = [nearest(tree, lon, lat) for lon, lat in queries]
    else:
        results = [within_radius(tree, lon, lat, radius) for lon, lat in queries]
    seconds = time.perf_counter() - start
    visited = [r.counts.nodes_visited for r in results]
    pruned = [r.counts.subtrees_pruned for r in results]
    return {
        "order": order,
        "kind": kind,
        "radius": radius,
        "n_queries": n_queries,
        "seed": seed,
        "seconds": seconds,
        "us_per_query": seconds / n_queries * 1e6 if n_queries else 0.0,
        "median_nodes_visited": statistics.median(visited) if visited else 0,
        "mean_nodes_visited": statistics.fmean(visited) if visited else 0.0,
        "max_nodes_visited": max(visited, default=0),
        "median_subtrees_pruned": statistics.median(pruned) if pruned else 0,
        "median_trace_steps": statistics.median(len(r.trace) for r in results) if results else 0,
        "median_result_size": statistics.median(len(r.result) for r in results) if results else 0,
        # Same queries, same tree: identical on every runtime, so it checks the two ran the same work.
        "result_ids": [[n.id for n in r.result] for r in results],
    }
