"""Every insertion order's searches agree with scipy.spatial.KDTree on the real data (DR-004)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.spatial import KDTree as ScipyKDTree

from pyapp.kdtree.geodata import Business, bounding_box, load_businesses
from pyapp.kdtree.search import RADIUS_PRESETS, distance, nearest, search, within_radius
from pyapp.kdtree.tree import ORDERS, build_tree

DATA = load_businesses()
IDS = np.array([b.id for b in DATA])
COORDS = np.array([[b.lon, b.lat] for b in DATA])
ORACLE = ScipyKDTree(COORDS)
BOX = bounding_box()
PAD = 0.01
TOL = 1e-12
SPLITS = sorted({(n.axis, n.split) for order in ORDERS for n in build_tree(order).walk()})

inside = st.tuples(st.floats(BOX.min_lon, BOX.max_lon), st.floats(BOX.min_lat, BOX.max_lat))
around = st.tuples(
    st.floats(BOX.min_lon - PAD, BOX.max_lon + PAD), st.floats(BOX.min_lat - PAD, BOX.max_lat + PAD)
)
on_data_point = st.sampled_from(DATA).map(lambda b: (b.lon, b.lat))


@st.composite
def on_split_line(draw):
    axis, split = draw(st.sampled_from(SPLITS))
    other = draw(st.floats(BOX.min_lat, BOX.max_lat) if axis == 0 else st.floats(BOX.min_lon, BOX.max_lon))
    return (split, other) if axis == 0 else (other, split)


queries = st.one_of(inside, around, on_data_point, on_split_line())
SETTINGS = settings(
    max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


def expected_nearest(lon: float, lat: float) -> tuple[int, float]:
    """scipy finds the minimum; the tie rule picks the smallest id among exact equals."""
    d_min, _ = ORACLE.query([lon, lat])
    candidates = ORACLE.query_ball_point([lon, lat], d_min * (1 + 1e-9) + TOL)
    exact = sorted((distance(lon, lat, DATA[i].lon, DATA[i].lat), DATA[i].id) for i in candidates)
    assert abs(exact[0][0] - d_min) <= TOL
    return exact[0][1], float(d_min)


def check_radius(result, lon: float, lat: float, radius: float) -> None:
    got = {n.id: n.distance for n in result.result}
    want = {int(IDS[i]) for i in ORACLE.query_ball_point([lon, lat], radius)}
    # Points within rounding of the boundary may fall either way between the two implementations.
    for pid in set(got) ^ want:
        b = next(x for x in DATA if x.id == pid)
        assert abs(distance(lon, lat, b.lon, b.lat) - radius) <= TOL
    order = [(n.distance, n.id) for n in result.result]
    assert order == sorted(order)
    for n in result.result:
        b = COORDS[np.searchsorted(IDS, n.id)]
        assert n.distance <= radius
        assert abs(n.distance - float(np.hypot(b[0] - lon, b[1] - lat))) <= TOL


@pytest.mark.parametrize("order", ORDERS)
@SETTINGS
@given(q=queries)
def test_nearest_matches_scipy(order, q):
    lon, lat = q
    res = nearest(build_tree(order), lon, lat)
    want_id, want_d = expected_nearest(lon, lat)
    assert len(res.result) == 1
    assert res.result[0].id == want_id
    assert abs(res.result[0].distance - want_d) <= TOL


radii = st.one_of(st.sampled_from(RADIUS_PRESETS), st.floats(0.0, 0.006), st.just(0.0))


@pytest.mark.parametrize("order", ORDERS)
@SETTINGS
@given(q=queries, radius=radii)
def test_radius_matches_scipy(order, q, radius):
    lon, lat = q
    check_radius(within_radius(build_tree(order), lon, lat, radius), lon, lat, radius)


@pytest.mark.parametrize("order", ORDERS)
@settings(max_examples=60, deadline=None, derandomize=True)
@given(q=on_data_point, k=st.integers(1, 5))
def test_radius_exactly_at_a_data_distance(order, q, k):
    # The radius equals the k-th smallest distance: that point must be inside (d <= r).
    lon, lat = q
    ds, idx = ORACLE.query([lon, lat], k=k + 1)
    radius = distance(lon, lat, DATA[idx[-1]].lon, DATA[idx[-1]].lat)
    res = within_radius(build_tree(order), lon, lat, radius)
    assert DATA[idx[-1]].id in {n.id for n in res.result}
    check_radius(res, lon, lat, radius)


@pytest.mark.parametrize("order", ORDERS)
def test_duplicate_location_tie_takes_smallest_id(order):
    # Several businesses share a location; querying there must give the smallest id at distance 0.
    by_place: dict[tuple[float, float], list[int]] = {}
    for b in DATA:
        by_place.setdefault((b.lon, b.lat), []).append(b.id)
    shared = sorted((place, ids) for place, ids in by_place.items() if len(ids) > 1)
    assert shared, "the data has co-located businesses"
    for (lon, lat), ids in shared:
        res = search(order, "nearest", lon, lat)
        assert res.result[0].id == min(ids) and res.result[0].distance == 0.0


def test_tie_rule_on_hand_example():
    # Four points at the same distance from the origin, inserted in an order that finds the largest id first.
    pts = [Business(40, "d", "shop=x", 1.0, 0.0), Business(30, "c", "shop=x", 0.0, 1.0),
           Business(10, "a", "shop=x", -1.0, 0.0), Business(20, "b", "shop=x", 0.0, -1.0)]
    for order in ORDERS:
        res = nearest(build_tree(order, pts), 0.0, 0.0)
        assert (res.result[0].id, res.result[0].distance) == (10, 1.0)
        inside_r = within_radius(build_tree(order, pts), 0.0, 0.0, 1.0)
        assert [n.id for n in inside_r.result] == [10, 20, 30, 40]


def test_search_rejects_bad_input():
    with pytest.raises(ValueError, match="needs a radius"):
        search("file", "radius", 24.94, 60.17)
    with pytest.raises(ValueError, match="takes no radius"):
        search("file", "nearest", 24.94, 60.17, 0.001)
    with pytest.raises(ValueError, match="unknown search kind"):
        search("file", "knn", 24.94, 60.17)
    with pytest.raises(ValueError, match="finite"):
        search("file", "nearest", float("nan"), 60.17)
    with pytest.raises(ValueError, match="radius must be"):
        search("file", "radius", 24.94, 60.17, -1.0)
