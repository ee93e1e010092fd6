"""What the explorer page draws: the tree's lines and points, and each trace step explained.

The page only renders these structures; every caption, region, running best and
number shown is computed here, so the page and ``python -m pyapp trace`` cannot
disagree. The map is drawn in degrees on both axes, the space the search measures
in, so the search's circle is a circle on the map (DR-007).
"""

from __future__ import annotations

import math

from pyapp.core.formatting import counted
from pyapp.core.vocabulary import Action, SearchKind
from pyapp.kdtree.geodata import businesses_by_id
from pyapp.kdtree.search import SearchResult, search
from pyapp.kdtree.touched_tree import touched_tree
from pyapp.kdtree.trace import Step
from pyapp.kdtree.tree import HIGH, LOW, build_tree

AXIS_LABEL = ("longitude", "latitude")
SIDE_LABEL = ({LOW: "west", HIGH: "east"}, {LOW: "south", HIGH: "north"})
# The steps "next decision" stops at: a subtree skipped, a new best, a point found inside the radius.
DECISIONS = (Action.FAR_PRUNE, Action.BEST, Action.REPORT)
# The map shows the data's bounding box and this fraction of its size around it; queries must fall on the map.
MARGIN = 0.02
MAP_WIDTH = 1000
# Splits this deep and deeper share one line style on the map.
DEEPEST_SPLIT_CLASS = 6


def degrees(x: float) -> str:
    """A coordinate or distance in degrees: fixed-point to 7 decimals (about a centimetre), zeros dropped.

    One format for every number on the page (DR-007), never scientific notation.
    """
    text = f"{x:.7f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def map_area(order: str) -> dict:
    """The area the map shows, in degrees: the data's bounding box with a small margin."""
    box = build_tree(order).bbox
    dx = (box.max_lon - box.min_lon) * MARGIN
    dy = (box.max_lat - box.min_lat) * MARGIN
    return {"min_lon": box.min_lon - dx, "max_lon": box.max_lon + dx,
            "min_lat": box.min_lat - dy, "max_lat": box.max_lat + dy}


def tree_view(order: str) -> dict:
    """The map of the tree built in ``order``: each business's point, the split lines, and statistics.

    In map units: ``MAP_WIDTH`` across the area, one degree the same length on both axes (DR-007),
    rounded to a tenth of a unit. The split lines come as one SVG path per depth class, so the
    page draws a handful of elements rather than one per node. The page draws these as they are,
    and the build embeds them so the map shows before Python starts (DR-002).
    """
    tree = build_tree(order)
    names = businesses_by_id()
    area = map_area(order)
    scale = MAP_WIDTH / (area["max_lon"] - area["min_lon"])

    def x(lon: float) -> float:
        return round((lon - area["min_lon"]) * scale, 1)

    def y(lat: float) -> float:
        return round((area["max_lat"] - lat) * scale, 1)

    nodes = []
    lines: dict[int, list[str]] = {}
    for node in tree.to_json()["nodes"]:
        r, split = node["region"], node["split"]
        lines.setdefault(min(node["depth"], DEEPEST_SPLIT_CLASS), []).append(
            f"M{x(split)},{y(r['min_lat'])}V{y(r['max_lat'])}" if node["axis"] == 0
            else f"M{x(r['min_lon'])},{y(split)}H{x(r['max_lon'])}")
        business = names[node["id"]]
        nodes.append({"id": node["id"], "x": x(node["lon"]), "y": y(node["lat"]),
                      "title": f"{business.name} ({business.category})"})
    splits = [{"depth": depth, "path": "".join(lines[depth])} for depth in sorted(lines)]
    return {"order": order, "stats": tree.stats().shown(), "area": area, "width": MAP_WIDTH,
            "height": y(area["min_lat"]), "nodes": nodes, "splits": splits}


def caption(step: Step, kind: str, names: dict, axis: int) -> str:
    """One sentence describing ``step`` for a learner; ``axis`` is the splitting axis of the step's node."""
    name = names[step.node_id].name if step.node_id in names else str(step.node_id)
    side = SIDE_LABEL[axis].get(step.side or "", "")
    if step.action == Action.VISIT:
        return (f"Visit {name} (depth {step.depth}); its line splits on {AXIS_LABEL[step.axis]} "
                f"at {degrees(step.split)}°.")
    if step.action == Action.DISTANCE:
        return f"Distance from the query to {name}: {degrees(step.distance)}°."
    if step.action == Action.BEST:
        return f"{name} is the nearest so far, at {degrees(step.distance)}°."
    if step.action == Action.REPORT:
        return f"{name} lies inside the radius, at {degrees(step.distance)}°."
    if step.action == Action.NEAR:
        return f"The query lies {side} of {name}'s line: search the {side} side first."
    gap = degrees(step.gap)
    bound = degrees(step.bound)
    if step.action == Action.FAR_VISIT:
        if kind == SearchKind.NEAREST:
            return (f"The line is {gap}° away, not more than the best distance so far ({bound}°): "
                    f"the {side} side of {name} may hold a closer point, so search it too.")
        return (f"The line is {gap}° away, not more than the radius ({bound}°): the circle reaches across it, "
                f"so the {side} side of {name} may hold points inside the radius; search it too.")
    if step.action == Action.FAR_PRUNE:
        bound_name = "the best distance so far" if kind == SearchKind.NEAREST else "the radius"
        return (f"The line is {gap}° away, more than {bound_name} ({bound}°): "
                f"skip the {side} side of {name} entirely.")
    raise ValueError(f"unknown action {step.action!r}")


def _check_on_map(order: str, lon: float, lat: float) -> None:
    """Refuse a query off the map, in words (DR-007)."""
    area = map_area(order)
    for value, label in ((lon, "longitude"), (lat, "latitude")):
        low, high = area[f"min_{label[:3]}"], area[f"max_{label[:3]}"]
        if not (isinstance(value, (int, float)) and math.isfinite(value)):
            raise ValueError(f"The query's {label} must be a number.")
        if not low <= value <= high:
            raise ValueError(f"The query's {label} is outside the map, which spans {label} "
                             f"{degrees(low)}° to {degrees(high)}°. Pick a point on the map.")


def search_view(order: str, kind: str, lon: float, lat: float, radius: float | None = None) -> dict:
    """The search as the page steps through it: the CLI's JSON plus captions and drawing state."""
    _check_on_map(order, lon, lat)
    result: SearchResult = search(order, kind, lon, lat, radius)
    tree = build_tree(order)
    names = businesses_by_id()

    def described(node_id: int, distance: float) -> dict:
        return {"id": node_id, "distance": distance, "text": f"{names[node_id].name} at {degrees(distance)}°"}

    steps = []
    best = None
    for step in result.trace:
        node = tree.node(step.node_id)
        if step.action == Action.BEST:
            best = described(step.node_id, step.distance)
        view = {"caption": caption(step, kind, names, node.axis), "best": best,
                "decision": step.action in DECISIONS}
        if step.action == Action.FAR_PRUNE:
            view["pruned_region"] = node.child_region(step.side).to_json()
        steps.append(view)
    data = result.to_json()
    if kind == SearchKind.NEAREST:
        summary = described(data["result"]["id"], data["result"]["distance"])["text"] if data["result"] else "none"
    else:
        count = len(data["result"])
        summary = (f"{counted(count, 'business', 'businesses')} within {degrees(radius)}°"
                   if count else "no business in range")
    return {**data, "steps": steps, "result_text": summary, "touched": touched_tree(tree, result.trace)}
