"""The explorer's teaching text and its refusals, computed by pyapp.presentation.explorer on CPython."""

from __future__ import annotations

import re

import pytest

from pyapp.cli.main import main
from pyapp.core.vocabulary import Action
from pyapp.kdtree.tree import ORDERS, build_tree
from pyapp.presentation.explorer import degrees, map_area, search_view, tree_view

SEARCHES = [
    ("median-first", "radius", 24.945, 60.17, 0.003),
    ("shuffled", "radius", 24.9412, 60.1665, 0.0005),
    ("median-first", "nearest", 24.9445, 60.1705, None),
    ("lon-sorted", "nearest", 24.95, 60.175, None),
]
IDS = ["radius-large", "radius-small", "nearest-balanced", "nearest-chain"]


def captions_with_steps(order, kind, lon, lat, radius):
    shown = search_view(order, kind, lon, lat, radius)
    return list(zip(shown["trace"], [s["caption"] for s in shown["steps"]], strict=True)), build_tree(order)


@pytest.mark.parametrize("search", [s for s in SEARCHES if s[1] == "radius"], ids=IDS[:2])
def test_radius_captions_never_speak_of_a_closer_point(search):
    pairs, _ = captions_with_steps(*search)
    assert any(step["action"] == Action.FAR_VISIT for step, _ in pairs), "the case must reach across a line"
    assert [text for _, text in pairs if "closer" in text or "nearest" in text] == []


@pytest.mark.parametrize("search", SEARCHES, ids=IDS)
def test_sides_are_west_east_for_longitude_and_south_north_for_latitude(search):
    pairs, tree = captions_with_steps(*search)
    checked = 0
    for step, text in pairs:
        if step["action"] not in (Action.NEAR, Action.FAR_VISIT, Action.FAR_PRUNE):
            continue
        axis = tree.node(step["node_id"]).axis
        expected = {"low": ("west", "south"), "high": ("east", "north")}[step["side"]][axis]
        wrong = {"west", "east", "south", "north", "lower", "upper"} - {expected}
        assert expected in text
        assert not any(re.search(rf"\b{word}\b", text) for word in wrong), text
        checked += 1
    assert checked > 0


@pytest.mark.parametrize("search", SEARCHES, ids=IDS)
def test_every_number_is_fixed_point_degrees(search):
    shown = search_view(*search)
    texts = [s["caption"] for s in shown["steps"]] + [shown["result_text"]]
    texts += [s["best"]["text"] for s in shown["steps"] if s["best"]]
    assert [t for t in texts if re.search(r"\d[eE][-+]?\d", t)] == []
    assert all(re.search(r"\d°", t) for t in texts if "at " in t or "away" in t)


@pytest.mark.parametrize(("value", "text"), [(6.26e-05, "0.0000626"), (0.0005011, "0.0005011"), (0.003, "0.003"),
                                             (24.94, "24.94"), (1e-9, "0"), (-1e-9, "0")],
                         ids=["tiny", "small", "radius", "coordinate", "rounds-to-zero", "negative-zero"])
def test_degrees_is_one_format(value, text):
    assert degrees(value) == text


def test_best_so_far_is_known_only_from_the_first_best_step():
    shown = search_view("median-first", "nearest", 24.9445, 60.1705)
    first_best = next(i for i, s in enumerate(shown["trace"]) if s["action"] == Action.BEST)
    assert first_best > 0
    assert [s["best"] for s in shown["steps"][:first_best]] == [None] * first_best
    assert shown["steps"][first_best]["best"]["distance"] == shown["trace"][first_best]["distance"]


def test_decisions_are_prunes_new_bests_and_reports():
    shown = search_view("median-first", "radius", 24.945, 60.17, 0.003)
    marked = {s["action"] for s, v in zip(shown["trace"], shown["steps"], strict=True) if v["decision"]}
    unmarked = {s["action"] for s, v in zip(shown["trace"], shown["steps"], strict=True) if not v["decision"]}
    assert marked == {Action.FAR_PRUNE, Action.REPORT}
    assert marked.isdisjoint(unmarked)


@pytest.mark.parametrize(("lon", "lat", "words"), [
    (200.0, 60.17, "longitude is outside the map"),
    (24.94, -91.0, "latitude is outside the map"),
    (24.94, 1e300, "latitude is outside the map"),
    (float("nan"), 60.17, "longitude must be a number"),
    (None, 60.17, "longitude must be a number"),
], ids=["lon-200", "lat-minus-91", "lat-huge", "lon-nan", "lon-missing"])
def test_a_query_off_the_map_is_refused_in_words(lon, lat, words):
    with pytest.raises(ValueError, match=words) as refused:
        search_view("median-first", "nearest", lon, lat)
    message = str(refused.value)
    assert "1e+300" not in message and "Error" not in message and len(message) < 160


def test_the_map_area_holds_every_business_and_is_what_the_page_draws():
    area = map_area("file")
    view = tree_view("file")
    assert view["area"] == area
    assert len(view["nodes"]) == 1188 and view["stats"]["size"] == "1188"
    assert all(0 < n["x"] < view["width"] and 0 < n["y"] < view["height"] for n in view["nodes"])
    # One degree is the same length on both axes: the map's aspect is the area's.
    aspect = (area["max_lat"] - area["min_lat"]) / (area["max_lon"] - area["min_lon"])
    assert view["height"] == pytest.approx(view["width"] * aspect, abs=0.1)
    corner = search_view("file", "nearest", area["min_lon"], area["max_lat"])
    assert corner["result"] is not None


@pytest.mark.parametrize("search", SEARCHES, ids=IDS)
def test_touched_tree_is_the_visited_nodes_and_one_stub_per_skipped_subtree(search):
    shown = search_view(*search)
    touched = shown["touched"]
    visits = {s["node_id"]: s["index"] for s in shown["trace"] if s["action"] == "visit"}
    prunes = {(s["node_id"], s["side"]): s["index"] for s in shown["trace"] if s["action"] == Action.FAR_PRUNE}
    assert {n["id"]: n["step"] for n in touched["nodes"]} == visits
    assert {(p["parent"], p["side"]): p["step"] for p in touched["pruned"]} == prunes
    # Visited nodes and skipped subtrees partition the whole tree.
    assert len(visits) + sum(p["size"] for p in touched["pruned"]) == shown["tree"]["size"]
    columns = sorted([n["column"] for n in touched["nodes"]] + [p["column"] for p in touched["pruned"]])
    assert columns == list(range(touched["columns"]))
    tree = build_tree(search[0])
    for node in touched["nodes"]:
        assert node["depth"] == tree.node(node["id"]).depth
        if node["parent"] is not None:
            parent = next(n for n in touched["nodes"] if n["id"] == node["parent"])
            assert (node["column"] < parent["column"]) == (node["side"] == "low")


@pytest.mark.parametrize("order", ORDERS)
def test_tree_figures_are_the_strings_the_command_line_prints(order, capsys):
    shown = tree_view(order)["stats"]
    main(["trace", "--order", order, "--kind", "nearest", "--lon", "24.9445", "--lat", "60.1705"])
    printed = capsys.readouterr().out.splitlines()[1]
    assert printed == f"tree: {shown['size']} points, depth {shown['depth']}, average depth {shown['average_depth']}"
