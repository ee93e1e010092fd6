"""Nearest-neighbour and radius searches that record every step they take (DR-004).

Distances are Euclidean in degree space, ``math.sqrt(dx*dx + dy*dy)`` with
dx on longitude and dy on latitude (DR-003 says what a degree is in metres).

Tie rules, so results never depend on traversal order:

- nearest: the answer is the point with the smallest (distance, id). A far side
  is therefore searched when ``gap <= best distance``: a point at exactly the best
  distance but with a smaller id could lie beyond the line.
- radius: every point with ``distance <= radius``, sorted by (distance, id).

The trace (``pyapp.kdtree.trace``) lists, per node: ``visit``, ``distance``, then
``best`` (nearest, when the node improves on the best) or ``report`` (radius,
when the point is inside), then ``near`` if the child on the query's side exists
(that subtree follows), then ``far_visit`` or ``far_prune`` if the other child
exists. Missing children produce no step. Searches use an explicit stack because
a tree built from sorted input is hundreds of levels deep.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from pyapp.core.vocabulary import Action, SearchKind
from pyapp.kdtree.trace import Step, Trace
from pyapp.kdtree.tree import HIGH, LOW, KdTree, Node, TreeStats, build_tree

RADIUS_PRESETS = (0.0005, 0.003)

VISIT, DISTANCE, BEST, REPORT = Action.VISIT, Action.DISTANCE, Action.BEST, Action.REPORT
NEAR, FAR_VISIT, FAR_PRUNE = Action.NEAR, Action.FAR_VISIT, Action.FAR_PRUNE


@dataclass(frozen=True)
class Neighbour:
    id: int
    distance: float

    def to_json(self) -> dict:
        return {"id": self.id, "distance": self.distance}


@dataclass(frozen=True)
class SearchCounts:
    """Counts read off the trace: ``visit``, ``far_prune`` and ``distance`` steps."""

    nodes_visited: int
    subtrees_pruned: int
    distances_computed: int

    def to_json(self) -> dict:
        return {
            "nodes_visited": self.nodes_visited,
            "subtrees_pruned": self.subtrees_pruned,
            "distances_computed": self.distances_computed,
        }


@dataclass(frozen=True)
class SearchResult:
    """One search: what was asked, what was found, and every step on the way.

    The facts an explanation is checked against (``counts``, ``result_ids``,
    ``reported_distance``) are read off the result and the trace here, once, and
    the prompt and the checks both use them.
    """

    kind: str
    order: str
    query: tuple[float, float]
    radius: float | None
    result: tuple[Neighbour, ...]
    trace: Sequence[Step]  # a Trace from a search; any sequence of Steps will do
    tree: TreeStats

    @cached_property
    def counts(self) -> SearchCounts:
        visits = prunes = distances = 0
        trace = self.trace
        for action in trace.actions() if isinstance(trace, Trace) else (step.action for step in trace):
            if action == Action.VISIT:
                visits += 1
            elif action == Action.FAR_PRUNE:
                prunes += 1
            elif action == Action.DISTANCE:
                distances += 1
        return SearchCounts(visits, prunes, distances)

    @cached_property
    def result_ids(self) -> tuple[int, ...]:
        """The one nearest id, or every radius id in ascending order."""
        ids = tuple(n.id for n in self.result)
        return tuple(sorted(ids)) if self.kind == SearchKind.RADIUS else ids

    @cached_property
    def reported_distance(self) -> float | None:
        """Nearest: the distance to the result. Radius: the largest reported distance, None if none."""
        if not self.result:
            return None
        if self.kind == SearchKind.NEAREST:
            return self.result[0].distance
        return max(n.distance for n in self.result)

    def to_json(self) -> dict:
        """JSON form; ``result`` is one {id, distance} (or null) for nearest, a list for radius."""
        if self.kind == SearchKind.NEAREST:
            result: dict | list | None = self.result[0].to_json() if self.result else None
        else:
            result = [n.to_json() for n in self.result]
        return {
            "kind": self.kind,
            "order": self.order,
            "query": {"lon": self.query[0], "lat": self.query[1]},
            "radius": self.radius,
            "result": result,
            "counts": self.counts.to_json(),
            "tree": self.tree.to_json(),
            "trace": [step.to_dict() for step in self.trace],
        }


def distance(lon1: float, lat1: float, lon2: float, lat2: float) -> float:
    dx = lon1 - lon2
    dy = lat1 - lat2
    return math.sqrt(dx * dx + dy * dy)


def _sides(node: Node, query: tuple[float, float]) -> tuple[str, Node | None, str, Node | None, float]:
    q = query[node.axis]
    if q < node.split:
        return LOW, node.low, HIGH, node.high, node.split - q
    return HIGH, node.high, LOW, node.low, q - node.split


def _run(tree: KdTree, query: tuple[float, float], radius: float | None) -> tuple[list[Neighbour], list[tuple]]:
    """Shared traversal; ``radius`` None means nearest neighbour.

    Steps are rows of ``pyapp.kdtree.trace.ROW_FIELDS``.
    """
    rows: list[tuple] = []
    record = rows.append
    best: tuple[float, int] | None = None
    found: list[Neighbour] = []
    # Frames: (node, False) enters a node; (node, True) decides its far side after the near side.
    stack: list[tuple[Node, bool]] = [(tree.root, False)] if tree.root is not None else []
    while stack:
        node, after_near = stack.pop()
        near_side, near, far_side, far, gap = _sides(node, query)
        node_id, depth = node.node_id, node.depth
        if not after_near:
            p = node.point
            record((VISIT, node_id, depth, node.axis, node.split, p.lon, p.lat, None, None, None, None))
            d = distance(query[0], query[1], p.lon, p.lat)
            record((DISTANCE, node_id, depth, None, None, None, None, d, None, None, None))
            if radius is None:
                if best is None or (d, p.id) < best:
                    best = (d, p.id)
                    record((BEST, node_id, depth, None, None, None, None, d, None, None, None))
            elif d <= radius:
                found.append(Neighbour(p.id, d))
                record((REPORT, node_id, depth, None, None, None, None, d, None, None, None))
            stack.append((node, True))
            if near is not None:
                record((NEAR, node_id, depth, None, None, None, None, None, near_side, None, None))
                stack.append((near, False))
            continue
        if far is None:
            continue
        bound = radius if radius is not None else best[0]
        if gap <= bound:
            record((FAR_VISIT, node_id, depth, None, None, None, None, None, far_side, gap, bound))
            stack.append((far, False))
        else:
            record((FAR_PRUNE, node_id, depth, None, None, None, None, None, far_side, gap, bound))
    if radius is None:
        found = [] if best is None else [Neighbour(best[1], best[0])]
    else:
        found.sort(key=lambda n: (n.distance, n.id))
    return found, rows


def _check_query(lon: float, lat: float) -> tuple[float, float]:
    lon, lat = float(lon), float(lat)
    if not (math.isfinite(lon) and math.isfinite(lat)):
        raise ValueError("query coordinates must be finite numbers")
    return lon, lat


def nearest(tree: KdTree, lon: float, lat: float) -> SearchResult:
    """The point closest to (lon, lat), smallest id on a tie, found by branch and bound."""
    query = _check_query(lon, lat)
    found, rows = _run(tree, query, None)
    return SearchResult(SearchKind.NEAREST, tree.order, query, None, tuple(found), Trace(rows), tree.stats())


def within_radius(tree: KdTree, lon: float, lat: float, radius: float) -> SearchResult:
    """Every point at distance <= radius from (lon, lat), sorted by (distance, id)."""
    query = _check_query(lon, lat)
    radius = float(radius)
    if not (math.isfinite(radius) and radius >= 0):
        raise ValueError("radius must be a finite number >= 0")
    found, rows = _run(tree, query, radius)
    return SearchResult(SearchKind.RADIUS, tree.order, query, radius, tuple(found), Trace(rows), tree.stats())


def search(order: str, kind: str, lon: float, lat: float, radius: float | None = None) -> SearchResult:
    """Run one search on the data tree for ``order``; the entry point of the page and the CLI."""
    tree = build_tree(order)
    if kind == SearchKind.NEAREST:
        if radius is not None:
            raise ValueError("a nearest-neighbour search takes no radius")
        return nearest(tree, lon, lat)
    if kind == SearchKind.RADIUS:
        if radius is None:
            raise ValueError("a radius search needs a radius")
        return within_radius(tree, lon, lat, radius)
    raise ValueError(f"unknown search kind {kind!r}; expected one of {', '.join(SearchKind)}")
