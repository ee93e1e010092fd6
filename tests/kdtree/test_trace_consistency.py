"""The trace tells the truth about the search it records (pyapp.kdtree.trace, DR-004)."""

from __future__ import annotations

import json
import random

import pytest

from pyapp.core.vocabulary import Action
from pyapp.kdtree.geodata import bounding_box, load_businesses
from pyapp.kdtree.search import RADIUS_PRESETS, search
from pyapp.kdtree.trace import ROW_FIELDS, Step, Trace
from pyapp.kdtree.tree import ORDERS, build_tree

BOX = bounding_box()


def seeded_queries(n: int = 25, seed: int = 11) -> list[tuple[float, float]]:
    rng = random.Random(seed)
    pad = 0.004
    out = [
        (rng.uniform(BOX.min_lon - pad, BOX.max_lon + pad), rng.uniform(BOX.min_lat - pad, BOX.max_lat + pad))
        for _ in range(n)
    ]
    data = load_businesses()
    out += [(b.lon, b.lat) for b in rng.sample(data, 5)]
    root = build_tree("median-first").root
    out.append((root.split, rng.uniform(BOX.min_lat, BOX.max_lat)))  # on the first splitting line
    return out


CASES = [("nearest", None)] + [("radius", r) for r in RADIUS_PRESETS]


def subtree_size(node) -> int:
    count, stack = 0, [node]
    while stack:
        n = stack.pop()
        if n is not None:
            count += 1
            stack.extend((n.low, n.high))
    return count


def check_trace(res, tree) -> None:
    steps = res.trace
    assert [s.index for s in steps] == list(range(1, len(steps) + 1))
    assert all(s.action in tuple(Action) for s in steps)
    q = res.query
    best = None
    visited: list[int] = []
    reported: list[tuple[int, float]] = []
    pruned_nodes = 0
    for i, s in enumerate(steps):
        node = tree.node(s.node_id)
        assert s.depth == node.depth
        nxt = steps[i + 1] if i + 1 < len(steps) else None
        if s.action == Action.VISIT:
            assert (s.axis, s.split, s.lon, s.lat) == (node.axis, node.split, node.point.lon, node.point.lat)
            assert nxt is not None and nxt.action == Action.DISTANCE and nxt.node_id == s.node_id
            visited.append(s.node_id)
        elif s.action == Action.DISTANCE:
            assert steps[i - 1].action == Action.VISIT and steps[i - 1].node_id == s.node_id
        elif s.action == Action.BEST:
            assert res.kind == "nearest"
            assert steps[i - 1].action == Action.DISTANCE and steps[i - 1].distance == s.distance
            candidate = (s.distance, s.node_id)
            assert best is None or candidate < best
            best = candidate
        elif s.action == Action.REPORT:
            assert res.kind == "radius"
            assert steps[i - 1].action == Action.DISTANCE and s.distance <= res.radius
            reported.append((s.node_id, s.distance))
        elif s.action == Action.NEAR:
            child = node.low if s.side == "low" else node.high
            assert s.side == ("low" if q[node.axis] < node.split else "high")
            assert nxt is not None and nxt.action == Action.VISIT and nxt.node_id == child.node_id
        else:  # far_visit / far_prune
            child = node.low if s.side == "low" else node.high
            assert child is not None
            assert s.side == ("high" if q[node.axis] < node.split else "low")
            assert s.gap == abs(q[node.axis] - node.split)
            assert s.bound == (best[0] if res.kind == "nearest" else res.radius)
            if s.action == Action.FAR_VISIT:
                assert s.gap <= s.bound
                assert nxt is not None and nxt.action == Action.VISIT and nxt.node_id == child.node_id
            else:
                assert s.gap > s.bound
                pruned_nodes += subtree_size(child)
    assert len(visited) == len(set(visited))
    # Every node is either visited or inside a pruned subtree.
    assert len(visited) + pruned_nodes == tree.size
    actions = [s.action for s in steps]
    assert res.counts.nodes_visited == actions.count(Action.VISIT)
    assert res.counts.subtrees_pruned == actions.count(Action.FAR_PRUNE)
    assert res.counts.distances_computed == actions.count(Action.DISTANCE)
    if res.kind == "nearest":
        assert [(n.distance, n.id) for n in res.result] == [best]
    else:
        assert sorted((d, i) for i, d in reported) == [(n.distance, n.id) for n in res.result]


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize(("kind", "radius"), CASES, ids=["nearest", "radius-0.0005", "radius-0.003"])
def test_trace_is_consistent(order, kind, radius):
    tree = build_tree(order)
    for lon, lat in seeded_queries():
        check_trace(search(order, kind, lon, lat, radius), tree)


def test_json_form_round_trips():
    res = search("shuffled", "radius", 24.944, 60.170, 0.0005)
    data = json.loads(json.dumps(res.to_json()))
    assert set(data) == {"kind", "order", "query", "radius", "result", "counts", "tree", "trace"}
    assert tuple(Step.from_dict(d) for d in data["trace"]) == res.trace
    assert data["result"] == [{"id": n.id, "distance": n.distance} for n in res.result]
    assert data["counts"]["nodes_visited"] == sum(1 for d in data["trace"] if d["action"] == "visit")
    average = build_tree("shuffled").stats().average_depth
    assert data["tree"] == {"size": 1188, "depth": 24, "average_depth": average}
    near = search("shuffled", "nearest", 24.944, 60.170).to_json()
    assert near["radius"] is None and set(near["result"]) == {"id", "distance"}
    assert near["query"] == {"lon": 24.944, "lat": 60.170}


def test_visit_step_fields_in_json():
    data = search("file", "nearest", 24.944, 60.170).to_json()["trace"]
    assert set(data[0]) == {"index", "action", "node_id", "depth", "axis", "split", "lon", "lat"}
    far = next(d for d in data if d["action"] in ("far_visit", "far_prune"))
    assert set(far) == {"index", "action", "node_id", "depth", "side", "gap", "bound"}


def test_same_search_same_trace():
    a = search("lon-sorted", "radius", 24.95, 60.175, 0.003)
    b = search("lon-sorted", "radius", 24.95, 60.175, 0.003)
    assert a == b and json.dumps(a.to_json()) == json.dumps(b.to_json())


def test_search_records_plain_rows_and_builds_steps_on_reading():
    """DR-004: a search records tuples, not a dataclass per step; reading gives the same Steps as before."""
    res = search("median-first", "radius", 24.944, 60.170, 0.003)
    trace = res.trace
    assert isinstance(trace, Trace) and len(trace.rows) == len(trace) > 10
    assert all(type(row) is tuple and len(row) == len(ROW_FIELDS) for row in trace.rows)
    steps = tuple(trace)
    assert all(type(step) is Step for step in steps)
    assert tuple(trace)[5] is steps[5] and trace[5] is steps[5]  # built once, however often read
    assert [step.index for step in steps] == list(range(1, len(steps) + 1))
    assert steps == trace and trace == list(steps) and trace != steps[:-1]
    assert trace[-1] == steps[-1] and trace[3:7] == steps[3:7] and trace[:14] == steps[:14]
    with pytest.raises(IndexError):
        trace[len(steps)]
    for step, row in zip(steps, trace.rows, strict=True):
        assert tuple(getattr(step, name) for name in ROW_FIELDS) == row
    assert list(trace.actions()) == [step.action for step in steps]
