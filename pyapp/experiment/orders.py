"""The experiment: the five insertion orders searched with the same seeded queries (DR-010).

Queries: for each kind of the evaluation set (``pyapp.evaluation.evalset.CASE_KINDS``: nearest
beside a business, nearest anywhere, radius 0.0005°, radius 0.003°) ``per_kind``
points drawn by that set's rules (``draw_points``) from the kind's own generator
``random.Random(f"experiment:{seed}:{kind}")``. Ids run E001… over the kinds in
that order (as many digits as the count needs, at least two). Every order answers
every query.

Per order and query the search's own counts are kept (nodes visited, distances
computed, subtrees pruned, results); the answer is checked against brute force (every
point's distance). Per order and kind: mean and median with 95% percentile bootstrap
intervals (``pyapp.evaluation.stats``, 2,000 resamples, seed 20003). Each order against
median-first: the per-query difference in nodes visited, its mean with the paired
bootstrap interval of DR-008, and how many queries got better (fewer nodes), worse
or stayed the same.

The work is a generator (:func:`experiment_steps`) that yields its progress, so the
browser can show it and stop between steps; :func:`run_experiment` runs it through.
Every number the page shows is formatted here.
"""

from __future__ import annotations

import hashlib
import json
import random
import statistics
from collections.abc import Generator
from dataclasses import dataclass

from pyapp.core.formatting import fmt_count, fmt_fixed, fmt_signed
from pyapp.core.vocabulary import SearchKind
from pyapp.evaluation.evalset import CASE_KINDS, CaseKind, draw_points
from pyapp.evaluation.stats import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, bootstrap_mean_ci, bootstrap_median_ci
from pyapp.kdtree.geodata import load_businesses
from pyapp.kdtree.search import distance, nearest, within_radius
from pyapp.kdtree.tree import ORDERS, build_tree

EXPERIMENT_VERSION = "orders-v1"
DEFAULT_SEED = 2026
DEFAULT_PER_KIND = 200
MAX_PER_KIND = 500
MAX_SEED = 2**31 - 1
BASELINE = "median-first"
LARGEST_PER_KIND = 5
METRICS = ("nodes_visited", "distances_computed", "subtrees_pruned", "results")
METRIC_LABELS = {
    "nodes_visited": "nodes visited",
    "distances_computed": "distances computed",
    "subtrees_pruned": "subtrees pruned",
    "results": "results",
}
ORDER_LABELS = {
    "file": "data file order",
    "lon-sorted": "longitude order",
    "lat-sorted": "latitude order",
    "shuffled": "shuffled (seed 2026)",
    "median-first": "median first",
}
SEARCHES_PER_STEP = 100


@dataclass(frozen=True)
class Query:
    """One query of the experiment; ``radius`` is None for a nearest search."""

    query_id: str
    kind: str
    lon: float
    lat: float
    radius: float | None

    def to_json(self) -> dict:
        return {"id": self.query_id, "kind": self.kind, "lon": self.lon, "lat": self.lat, "radius": self.radius}


def query_seed(seed: int, kind: str) -> str:
    """The seed text of ``kind``'s generator in the experiment with ``seed``."""
    return f"experiment:{seed}:{kind}"


def check_settings(seed: object, per_kind: object) -> tuple[int, int]:
    """The seed and per-kind count as integers, or a ValueError a visitor can read."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"The seed must be a whole number from 0 to {MAX_SEED}.")
    if isinstance(per_kind, bool) or not isinstance(per_kind, int) or not 1 <= per_kind <= MAX_PER_KIND:
        raise ValueError(f"The number of queries per kind must be a whole number from 1 to {MAX_PER_KIND}.")
    return seed, per_kind


def parse_settings(seed: str, per_kind: str) -> tuple[int, int]:
    """The page's two fields, as text, read as whole numbers (then checked as :func:`check_settings` does)."""
    values = []
    for text, name in ((seed, "seed"), (per_kind, "number of queries per kind")):
        text = str(text).strip()
        if not text.isascii() or not text.isdigit() or len(text) > 10:
            limit = MAX_SEED if name == "seed" else MAX_PER_KIND
            raise ValueError(f"The {name} must be a whole number from {0 if name == 'seed' else 1} to {limit}.")
        values.append(int(text))
    return check_settings(values[0], values[1])


def draw_queries(seed: int = DEFAULT_SEED, per_kind: int = DEFAULT_PER_KIND) -> tuple[Query, ...]:
    """The experiment's queries, kind after kind (module doc gives the rules)."""
    seed, per_kind = check_settings(seed, per_kind)
    width = max(2, len(str(per_kind * len(CASE_KINDS))))
    queries = []
    for kind in CASE_KINDS:
        for draw in draw_points(kind, random.Random(query_seed(seed, kind.name)), per_kind):
            queries.append(Query(f"E{len(queries) + 1:0{width}d}", kind.name, draw.lon, draw.lat, kind.radius))
    return tuple(queries)


def brute_force(query: Query) -> tuple[int, ...]:
    """The answer from every point's distance: the nearest (smallest distance, then id), or every id in the radius."""
    points = load_businesses()
    if query.radius is None:
        best = min((distance(query.lon, query.lat, p.lon, p.lat), p.id) for p in points)
        return (best[1],)
    return tuple(sorted(p.id for p in points if distance(query.lon, query.lat, p.lon, p.lat) <= query.radius))


def measure(order: str, query: Query) -> tuple[int, int, int, int, tuple[int, ...]]:
    """(nodes visited, distances computed, subtrees pruned, results, result ids) of one search."""
    tree = build_tree(order)
    if query.radius is None:
        result = nearest(tree, query.lon, query.lat)
    else:
        result = within_radius(tree, query.lon, query.lat, query.radius)
    c = result.counts
    return c.nodes_visited, c.distances_computed, c.subtrees_pruned, len(result.result), result.result_ids


def summarise(values: list[int]) -> dict:
    """Mean and median of ``values`` with their 95% bootstrap intervals, raw and as text."""
    mean, mean_low, mean_high = bootstrap_mean_ci(values)
    median, median_low, median_high = bootstrap_median_ci(values)
    return {
        "mean": mean, "mean_ci": [mean_low, mean_high], "median": median, "median_ci": [median_low, median_high],
        "min": min(values), "max": max(values),
        "quartiles": statistics.quantiles(values, n=4, method="inclusive") if len(values) > 1 else [values[0]] * 3,
        "text": {
            "mean": fmt_fixed(mean, 1), "mean_ci": f"{fmt_fixed(mean_low, 1)} to {fmt_fixed(mean_high, 1)}",
            "median": fmt_fixed(median, 1), "median_ci": f"{fmt_fixed(median_low, 1)} to {fmt_fixed(median_high, 1)}",
        },
    }


def compare_to_baseline(order: str, ids: list[str], counts: list[int], baseline: list[int]) -> dict:
    """Nodes visited by ``order`` minus by the baseline, query by query, with the paired bootstrap (DR-008)."""
    diffs = [c - b for c, b in zip(counts, baseline, strict=True)]
    mean, low, high = bootstrap_mean_ci(diffs)
    better = sum(1 for d in diffs if d < 0)
    worse = sum(1 for d in diffs if d > 0)
    return {
        "order": order, "baseline": BASELINE, "difference": mean, "interval": [low, high],
        "better": better, "worse": worse, "same": len(diffs) - better - worse,
        "text": {"difference": fmt_signed(mean, 1), "interval": f"{fmt_signed(low, 1)} to {fmt_signed(high, 1)}"},
        "diffs": dict(zip(ids, diffs, strict=True)),
    }


def explorer_query(order: str, query: Query) -> str:
    """The explorer's query string for this search (DR-010): order, kind, lon, lat and radius."""
    kind = SearchKind.NEAREST if query.radius is None else SearchKind.RADIUS
    text = f"order={order}&kind={kind}&lon={query.lon!r}&lat={query.lat!r}"
    return text if query.radius is None else f"{text}&radius={query.radius!r}"


def _largest(kind_queries: list[Query], paired: list[dict], nodes: dict[str, dict[str, int]]) -> list[dict]:
    """The queries of one kind with the largest |difference| from the baseline, over every order."""
    rows = []
    for comparison in paired:
        order = comparison["order"]
        for q in kind_queries:
            d = comparison["diffs"][q.query_id]
            rows.append((-abs(d), q.query_id, ORDERS.index(order), d, order, q))
    rows.sort(key=lambda r: r[:3])
    out = []
    for _, query_id, _, d, order, q in rows[:LARGEST_PER_KIND]:
        out.append({
            "query_id": query_id, "order": order, "lon": q.lon, "lat": q.lat, "radius": q.radius,
            "nodes": nodes[order][query_id], "baseline_nodes": nodes[BASELINE][query_id], "difference": d,
            "text": {"difference": f"{d:+d}", "where": f"({q.lon:.7f}, {q.lat:.7f})"},
            "explorer": explorer_query(order, q),
            "baseline_explorer": explorer_query(BASELINE, q),
        })
    return out


def _kind_figures(kind: CaseKind, queries: list[Query], table: dict[str, list[tuple]]) -> Generator[int, None, dict]:
    ids = [q.query_id for q in queries]
    orders = []
    for order in ORDERS:
        rows = table[order]
        summary = {}
        for index, metric in enumerate(METRICS):
            if metric == "results" and kind.radius is None:
                continue
            if metric == "distances_computed" and [r[1] for r in rows] == [r[0] for r in rows]:
                summary[metric] = "nodes_visited"  # the same figures: each visited node's distance is computed once
                continue
            summary[metric] = summarise([r[index] for r in rows])
            yield 1
        orders.append({"order": order, "label": ORDER_LABELS[order], **summary})
    nodes = {order: dict(zip(ids, (r[0] for r in table[order]), strict=True)) for order in ORDERS}
    paired = []
    baseline = [r[0] for r in table[BASELINE]]
    for order in ORDERS:
        if order != BASELINE:
            paired.append(compare_to_baseline(order, ids, [r[0] for r in table[order]], baseline))
            yield 1
    largest = _largest(queries, paired, nodes)
    for comparison in paired:
        del comparison["diffs"]
    return {"kind": kind.name, "label": kind.label, "radius": kind.radius, "queries": len(queries),
            "orders": orders, "paired": paired, "largest": largest}


Progress = Generator[tuple[int, int], None, dict]


def experiment_steps(seed: int = DEFAULT_SEED, per_kind: int = DEFAULT_PER_KIND) -> Progress:
    """Run the experiment, yielding (steps done, steps in all) as it goes; return its figures."""
    queries = draw_queries(seed, per_kind)
    points = len(load_businesses())
    searches = len(queries) * len(ORDERS)
    search_steps = -(-searches // SEARCHES_PER_STEP)
    summaries = len(CASE_KINDS) * (len(ORDERS) * 3 + len(ORDERS) - 1)  # at most three metrics each, then pairs
    total = len(ORDERS) + search_steps + len(queries) // SEARCHES_PER_STEP + summaries
    done = 0
    trees = []
    for order in ORDERS:
        stats = build_tree(order).stats()
        trees.append({"order": order, "label": ORDER_LABELS[order], "size": stats.size, "depth": stats.depth,
                      "average_depth": stats.average_depth,
                      "text": {"depth": fmt_count(stats.depth), "average_depth": f"{stats.average_depth:.2f}"}})
        done += 1
        yield done, total
    table: dict[str, list[tuple]] = {order: [] for order in ORDERS}
    answers: dict[str, list[tuple[int, ...]]] = {order: [] for order in ORDERS}
    count = 0
    for order in ORDERS:
        for q in queries:
            nodes, distances, pruned, results, ids = measure(order, q)
            table[order].append((nodes, distances, pruned, results))
            answers[order].append(ids)
            count += 1
            if count % SEARCHES_PER_STEP == 0:
                done += 1
                yield done, total
    agree = 0
    for i, q in enumerate(queries):
        expected = brute_force(q)
        agree += all(answers[order][i] == expected for order in ORDERS)
        if (i + 1) % SEARCHES_PER_STEP == 0:
            done += 1
            yield done, total
    kinds = []
    for kind in CASE_KINDS:
        positions = [i for i, q in enumerate(queries) if q.kind == kind.name]
        kind_table = {order: [table[order][i] for i in positions] for order in ORDERS}
        steps = _kind_figures(kind, [queries[i] for i in positions], kind_table)
        while True:
            try:
                done += next(steps)
            except StopIteration as finished:
                kinds.append(finished.value)
                break
            yield min(done, total - 1), total
    figures = {
        "version": EXPERIMENT_VERSION, "seed": seed, "per_kind": per_kind, "queries": len(queries),
        "first_id": queries[0].query_id, "last_id": queries[-1].query_id,
        "points": points, "bootstrap": {"resamples": BOOTSTRAP_RESAMPLES, "seed": BOOTSTRAP_SEED},
        "trees": trees, "kinds": kinds,
        "agree_with_brute_force": agree,
        "text": {"queries": fmt_count(len(queries)), "points": fmt_count(points),
                 "searches": fmt_count(searches), "agree": f"{fmt_count(agree)} of {fmt_count(len(queries))}"},
    }
    figures["digest"] = figures_digest(figures)
    yield total, total
    return figures


def run_experiment(seed: int = DEFAULT_SEED, per_kind: int = DEFAULT_PER_KIND) -> dict:
    """The experiment's figures (see :func:`experiment_steps`), run to the end."""
    steps = experiment_steps(seed, per_kind)
    while True:
        try:
            next(steps)
        except StopIteration as finished:
            return finished.value


def figures_digest(figures: dict) -> str:
    """sha256 over the figures' canonical JSON (every float by its repr), without the digest itself."""
    body = {key: value for key, value in figures.items() if key != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
