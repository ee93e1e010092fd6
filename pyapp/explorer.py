"""What the explorer page draws: the tree's lines and points, and each trace step explained.

The page only renders these structures; every caption, region and running best
is computed here, so the page and ``python -m pyapp trace`` cannot disagree.
"""

from __future__ import annotations

import math

from .geodata import businesses_by_id
from .kdtree import HIGH, build_tree
from .search import SearchResult, search
from .trace import Step
from .vocabulary import Action, SearchKind

AXIS_LABEL = ("longitude", "latitude")


def tree_view(order: str) -> dict:
    """Points, splitting segments and statistics of the tree built in ``order``."""
    tree = build_tree(order)
    names = businesses_by_id()
    data = tree.to_json()
    bbox = tree.bbox
    middle_lat = (bbox.min_lat + bbox.max_lat) / 2
    for node in data["nodes"]:
        business = names[node["id"]]
        node["name"] = business.name
        node["category"] = business.category
    return {
        **data,
        # Degrees of longitude are shorter than degrees of latitude here; the page
        # scales x by this factor so the map is not stretched.
        "x_scale": math.cos(math.radians(middle_lat)),
    }


def _degrees(x: float) -> str:
    return f"{x:.7f}".rstrip("0").rstrip(".") if abs(x) >= 1e-4 else f"{x:.3g}"


def caption(step: Step, kind: str, names: dict) -> str:
    """One sentence describing ``step`` for a learner."""
    name = names[step.node_id].name if step.node_id in names else str(step.node_id)
    side = {"low": "lower", "high": "upper"}.get(step.side or "", "")
    if step.action == Action.VISIT:
        return (f"Visit {name} (depth {step.depth}); it splits on {AXIS_LABEL[step.axis]} "
                f"at {_degrees(step.split)}.")
    if step.action == Action.DISTANCE:
        return f"Distance from the query to {name}: {_degrees(step.distance)}°."
    if step.action == Action.BEST:
        return f"{name} is the nearest so far, at {_degrees(step.distance)}°."
    if step.action == Action.REPORT:
        return f"{name} lies inside the radius, at {_degrees(step.distance)}°."
    if step.action == Action.NEAR:
        return f"The query is on the {side} side of {name}'s line: search that side first."
    bound = "the best distance so far" if kind == SearchKind.NEAREST else "the radius"
    if step.action == Action.FAR_VISIT:
        return (f"The line is {_degrees(step.gap)}° away, not more than {bound} ({_degrees(step.bound)}°): "
                f"the {side} side of {name} may hold a closer point, so search it too.")
    if step.action == Action.FAR_PRUNE:
        return (f"The line is {_degrees(step.gap)}° away, more than {bound} ({_degrees(step.bound)}°): "
                f"skip the {side} side of {name} entirely.")
    raise ValueError(f"unknown action {step.action!r}")


def search_view(order: str, kind: str, lon: float, lat: float, radius: float | None = None) -> dict:
    """The search as the page steps through it: the CLI's JSON plus captions and drawing state."""
    result: SearchResult = search(order, kind, lon, lat, radius)
    tree = build_tree(order)
    names = businesses_by_id()
    steps = []
    best = None
    for step in result.trace:
        if step.action == Action.BEST:
            best = {"id": step.node_id, "distance": step.distance}
        view = {"caption": caption(step, kind, names), "best": best}
        if step.action == Action.FAR_PRUNE:
            node = tree.node(step.node_id)
            view["pruned_region"] = node.child_region(step.side).to_json()
            view["pruned_side_is_high"] = step.side == HIGH
        steps.append(view)
    return {**result.to_json(), "steps": steps}
