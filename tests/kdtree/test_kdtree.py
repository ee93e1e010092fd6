"""The 2-d tree: insertion orders, the split rule, regions and statistics (DR-004)."""

from __future__ import annotations

import math

import pytest

from pyapp.kdtree import tree as kdtree
from pyapp.kdtree.geodata import Business, bounding_box, load_businesses
from pyapp.kdtree.tree import ORDERS, build_tree, insertion_sequence

DATA = load_businesses()
SHUFFLED_FIRST_IDS = [1378007257, 4753386032, 6049453005]

# Measured on the committed data; a change here means the data or the build rule changed.
EXPECTED_STATS = {
    "file": (29, 13.635521885521886),
    "lon-sorted": (51, 22.08164983164983),
    "lat-sorted": (51, 22.42676767676768),
    "shuffled": (24, 12.032828282828282),
    "median-first": (10, 8.286195286195285),
}


def subtree(tree, node):
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        if n is not None:
            out.append(n)
            stack.extend((n.low, n.high))
    return out


@pytest.mark.parametrize("order", ORDERS)
def test_insertion_sequence_is_a_permutation(order):
    seq = insertion_sequence(order, DATA)
    assert sorted(p.id for p in seq) == sorted(p.id for p in DATA)


def test_named_orders():
    assert insertion_sequence("file", DATA) == list(DATA)
    lon = insertion_sequence("lon-sorted", DATA)
    assert [(p.lon, p.lat, p.id) for p in lon] == sorted((p.lon, p.lat, p.id) for p in DATA)
    lat = insertion_sequence("lat-sorted", DATA)
    assert [(p.lat, p.lon, p.id) for p in lat] == sorted((p.lat, p.lon, p.id) for p in DATA)
    shuffled = insertion_sequence("shuffled", DATA)
    assert shuffled != list(DATA) and shuffled == insertion_sequence("shuffled", DATA)


def test_shuffle_is_pinned():
    # random.Random(2026).shuffle must give the same sequence on every Python the site runs on.
    assert [p.id for p in insertion_sequence("shuffled", DATA)[:3]] == SHUFFLED_FIRST_IDS


def test_unknown_order_rejected():
    with pytest.raises(ValueError, match="unknown insertion order"):
        build_tree("random")


@pytest.mark.parametrize("order", ORDERS)
def test_split_rule_and_regions(order):
    tree = build_tree(order)
    for node in tree.walk():
        assert node.axis == node.depth % 2
        assert node.split == (node.point.lon, node.point.lat)[node.axis]
        for p in subtree(tree, node.low):
            assert (p.point.lon, p.point.lat)[node.axis] < node.split
        for p in subtree(tree, node.high):
            assert (p.point.lon, p.point.lat)[node.axis] >= node.split
        assert all(node.region.contains(p.point.lon, p.point.lat) for p in subtree(tree, node))
        for child, side in ((node.low, "low"), (node.high, "high")):
            if child is not None:
                assert child.depth == node.depth + 1
                assert child.parent_id == node.node_id and child.side == side
                assert child.region == node.child_region(side)


@pytest.mark.parametrize("order", ORDERS)
def test_stats_measured_and_recomputed(order):
    tree = build_tree(order)
    infos = tree.nodes()
    depth_of = {}
    for info in infos:  # pre-order: a parent comes before its children
        depth_of[info.id] = 0 if info.parent is None else depth_of[info.parent] + 1
        assert depth_of[info.id] == info.depth
    stats = tree.stats()
    assert stats.size == len(DATA) == len(infos)
    assert stats.depth == max(depth_of.values())
    assert stats.average_depth == pytest.approx(sum(depth_of.values()) / len(depth_of), abs=1e-12)
    assert (stats.depth, stats.average_depth) == pytest.approx(EXPECTED_STATS[order], abs=1e-12)


def test_median_first_is_balanced():
    n = len(DATA)
    assert build_tree("median-first").stats().depth == math.ceil(math.log2(n + 1)) - 1
    assert all(build_tree(o).stats().depth > build_tree("median-first").stats().depth for o in ORDERS[:-1])


def test_median_first_balanced_with_ties():
    # Many points share coordinates: the median moves left so equal values still go high.
    pts = [Business(i, f"p{i}", "shop=test", float(i % 3), float(i % 2)) for i in range(1, 40)]
    tree = build_tree("median-first", pts)
    assert tree.stats().size == 39
    for node in tree.walk():
        for child in subtree(tree, node.low):
            assert (child.point.lon, child.point.lat)[node.axis] < node.split


def test_equal_coordinate_goes_high():
    a = Business(1, "a", "shop=x", 1.0, 1.0)
    b = Business(2, "b", "shop=x", 1.0, 0.0)
    c = Business(3, "c", "shop=x", 0.5, 5.0)
    tree = build_tree("file", [a, b, c])
    assert tree.root.point == a and tree.root.high.point == b and tree.root.low.point == c
    assert tree.root.high.axis == 1
    assert tree.root.high.region == kdtree.BBox(1.0, 0.0, 1.0, 5.0)
    assert tree.root.low.region == kdtree.BBox(0.5, 0.0, 1.0, 5.0)


def test_duplicate_id_rejected():
    a = Business(1, "a", "shop=x", 1.0, 1.0)
    with pytest.raises(ValueError, match="duplicate id"):
        build_tree("file", [a, a])


def test_data_tree_cached_and_root_region_is_bbox():
    tree = build_tree("shuffled")
    assert tree is build_tree("shuffled")
    assert tree.root.region == bounding_box() == tree.bbox


def test_tree_json_lists_every_node():
    data = build_tree("median-first").to_json()
    assert data["stats"]["size"] == len(data["nodes"]) == len(DATA)
    assert data["nodes"][0]["id"] == data["root"]
    assert set(data["nodes"][0]["region"]) == {"min_lon", "min_lat", "max_lon", "max_lat"}


def test_empty_tree():
    tree = build_tree("file", [])
    assert tree.stats() == kdtree.TreeStats(0, 0, 0.0)
    assert tree.nodes() == ()
