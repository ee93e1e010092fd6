"""A 2-d tree over the businesses, built one insertion at a time (DR-004).

Rules the searches, the trace and the explorer page all rely on:

- The splitting axis alternates with depth: axis = depth % 2, 0 = longitude, 1 = latitude.
- Each node splits at its own point's coordinate on its axis. A point whose
  coordinate is smaller than the split goes to the ``low`` child; equal or larger
  goes to the ``high`` child. So the low subtree holds coordinates strictly below
  the split and the high subtree coordinates at or above it.
- Depth: the root has depth 0. A tree's ``depth`` is the largest node depth (the
  number of edges on its longest root-to-node path); ``average_depth`` is the mean
  node depth.
- Every node carries its region: the rectangle of the plane, clipped to the data's
  bounding box, that its subtree covers. The page draws a node's splitting line
  across its region.

The five insertion orders are named in ``ORDERS``; each is reproducible.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from pyapp.core.formatting import fmt_fixed
from pyapp.kdtree.geodata import BBox, Business, bounding_box, load_businesses

ORDERS = ("file", "lon-sorted", "lat-sorted", "shuffled", "median-first")
SHUFFLE_SEED = 2026
LOW = "low"
HIGH = "high"


def coordinate(point: Business, axis: int) -> float:
    return point.lon if axis == 0 else point.lat


def axis_key(axis: int):
    """Sort key: the coordinate on ``axis``, then the other coordinate, then the id."""
    if axis == 0:
        return lambda p: (p.lon, p.lat, p.id)
    return lambda p: (p.lat, p.lon, p.id)


class Node:
    """A tree node: one point, its split, its children and its region."""

    __slots__ = ("point", "depth", "axis", "split", "low", "high", "region", "parent_id", "side")

    def __init__(self, point: Business, depth: int, region: BBox, parent_id: int | None, side: str | None):
        self.point = point
        self.depth = depth
        self.axis = depth % 2
        self.split = coordinate(point, self.axis)
        self.low: Node | None = None
        self.high: Node | None = None
        self.region = region
        self.parent_id = parent_id
        self.side = side

    @property
    def node_id(self) -> int:
        return self.point.id

    def child_region(self, side: str) -> BBox:
        r = self.region
        if self.axis == 0:
            if side == LOW:
                return BBox(r.min_lon, r.min_lat, self.split, r.max_lat)
            return BBox(self.split, r.min_lat, r.max_lon, r.max_lat)
        if side == LOW:
            return BBox(r.min_lon, r.min_lat, r.max_lon, self.split)
        return BBox(r.min_lon, self.split, r.max_lon, r.max_lat)


@dataclass(frozen=True)
class TreeStats:
    """Size, depth (root = 0, deepest node's depth) and mean node depth."""

    size: int
    depth: int
    average_depth: float

    def to_json(self) -> dict:
        return {"size": self.size, "depth": self.depth, "average_depth": self.average_depth}

    def shown(self) -> dict[str, str]:
        """The figures as the explorer and ``python -m pyapp trace`` print them."""
        return {"size": str(self.size), "depth": str(self.depth), "average_depth": fmt_fixed(self.average_depth, 3)}


@dataclass(frozen=True)
class NodeInfo:
    """A node as the page draws it: its point, split, children and region."""

    id: int
    lon: float
    lat: float
    depth: int
    axis: int
    split: float
    parent: int | None
    side: str | None
    low: int | None
    high: int | None
    region: BBox

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "lon": self.lon,
            "lat": self.lat,
            "depth": self.depth,
            "axis": self.axis,
            "split": self.split,
            "parent": self.parent,
            "side": self.side,
            "low": self.low,
            "high": self.high,
            "region": self.region.to_json(),
        }


class KdTree:
    """A 2-d tree built by inserting ``points`` in the given sequence."""

    def __init__(self, order: str, points: Sequence[Business], bbox: BBox):
        self.order = order
        self.bbox = bbox
        self.root: Node | None = None
        self.size = 0
        self._by_id: dict[int, Node] = {}
        self._stats: TreeStats | None = None
        for point in points:
            self.insert(point)

    def insert(self, point: Business) -> Node:
        """Add one point below the existing nodes (iterative: sorted orders make deep trees)."""
        if point.id in self._by_id:
            raise ValueError(f"duplicate id {point.id}")
        if self.root is None:
            node = Node(point, 0, self.bbox, None, None)
            self.root = node
        else:
            parent = self.root
            while True:
                side = LOW if coordinate(point, parent.axis) < parent.split else HIGH
                child = parent.low if side == LOW else parent.high
                if child is None:
                    node = Node(point, parent.depth + 1, parent.child_region(side), parent.node_id, side)
                    if side == LOW:
                        parent.low = node
                    else:
                        parent.high = node
                    break
                parent = child
        self._by_id[point.id] = node
        self.size += 1
        self._stats = None
        return node

    def node(self, node_id: int) -> Node:
        return self._by_id[node_id]

    def walk(self) -> list[Node]:
        """Every node in pre-order (node, low subtree, high subtree)."""
        out: list[Node] = []
        stack = [self.root] if self.root is not None else []
        while stack:
            node = stack.pop()
            out.append(node)
            if node.high is not None:
                stack.append(node.high)
            if node.low is not None:
                stack.append(node.low)
        return out

    def stats(self) -> TreeStats:
        """Size, depth and average depth (computed once per tree shape)."""
        if self._stats is None:
            depths = [node.depth for node in self.walk()]
            if not depths:
                self._stats = TreeStats(0, 0, 0.0)
            else:
                self._stats = TreeStats(len(depths), max(depths), sum(depths) / len(depths))
        return self._stats

    def nodes(self) -> tuple[NodeInfo, ...]:
        """Every node in pre-order with its region, for drawing the splitting lines."""
        return tuple(
            NodeInfo(
                id=n.node_id,
                lon=n.point.lon,
                lat=n.point.lat,
                depth=n.depth,
                axis=n.axis,
                split=n.split,
                parent=n.parent_id,
                side=n.side,
                low=None if n.low is None else n.low.node_id,
                high=None if n.high is None else n.high.node_id,
                region=n.region,
            )
            for n in self.walk()
        )

    def to_json(self) -> dict:
        return {
            "order": self.order,
            "bbox": self.bbox.to_json(),
            "stats": self.stats().to_json(),
            "root": None if self.root is None else self.root.node_id,
            "nodes": [info.to_json() for info in self.nodes()],
        }


def median_first(points: Sequence[Business], axis: int = 0) -> list[Business]:
    """Points ordered so that inserting them gives a balanced tree.

    The median on ``axis`` comes first, then the lower half, then the upper half,
    each ordered the same way on the next axis. Among points sharing the median
    coordinate the first in sort order is taken, so every point of the lower half
    is strictly below it and lands on its low side, as insertion requires.
    """
    out: list[Business] = []
    stack: list[tuple[list[Business], int]] = [(list(points), axis)]
    while stack:
        group, ax = stack.pop()
        if not group:
            continue
        group.sort(key=axis_key(ax))
        m = len(group) // 2
        while m > 0 and coordinate(group[m - 1], ax) == coordinate(group[m], ax):
            m -= 1
        out.append(group[m])
        # Upper half pushed first so the lower half is emitted first (pre-order).
        stack.append((group[m + 1 :], 1 - ax))
        stack.append((group[:m], 1 - ax))
    return out


def insertion_sequence(order: str, points: Sequence[Business]) -> list[Business]:
    """The points in the sequence ``order`` inserts them (DR-004)."""
    if order == "file":
        return list(points)
    if order == "lon-sorted":
        return sorted(points, key=axis_key(0))
    if order == "lat-sorted":
        return sorted(points, key=axis_key(1))
    if order == "shuffled":
        shuffled = list(points)
        random.Random(SHUFFLE_SEED).shuffle(shuffled)
        return shuffled
    if order == "median-first":
        return median_first(points)
    raise ValueError(f"unknown insertion order {order!r}; expected one of {', '.join(ORDERS)}")


def build_tree(order: str, points: Sequence[Business] | None = None) -> KdTree:
    """The tree for ``order`` over ``points`` (default: the data set, built once and cached)."""
    if points is None:
        return _data_tree(order)
    pts = list(points)
    box = bounding_box(pts) if pts else BBox(0.0, 0.0, 0.0, 0.0)
    return KdTree(order, insertion_sequence(order, pts), box)


@lru_cache(maxsize=len(ORDERS))
def _data_tree(order: str) -> KdTree:
    points = load_businesses()
    return KdTree(order, insertion_sequence(order, points), bounding_box(points))
