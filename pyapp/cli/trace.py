"""``python -m pyapp trace``: one search, its result and its trace."""

from __future__ import annotations

import argparse
import json

from pyapp.cli.inputs import UsageError
from pyapp.core.vocabulary import Action, SearchKind
from pyapp.explanation.prompt import format_number
from pyapp.kdtree.geodata import businesses_by_id
from pyapp.kdtree.search import SearchResult, search
from pyapp.kdtree.trace import AXIS_NAMES, Step
from pyapp.kdtree.tree import ORDERS


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("trace", help="run one search and print its result and trace")
    p.add_argument("--order", required=True, choices=ORDERS, help="insertion order of the tree")
    p.add_argument("--kind", required=True, choices=[kind.value for kind in SearchKind],
                   help="nearest neighbour or radius search")
    p.add_argument("--radius", type=float, help="radius in degrees (radius searches only)")
    p.add_argument("--lon", type=float, required=True, help="query longitude in degrees")
    p.add_argument("--lat", type=float, required=True, help="query latitude in degrees")
    p.add_argument("--json", action="store_true", help="print the search as JSON")
    p.set_defaults(run=run, parser=p)


def run(args: argparse.Namespace) -> int:
    if args.kind == SearchKind.RADIUS and args.radius is None:
        raise UsageError("--radius is required with --kind radius")
    if args.kind == SearchKind.NEAREST and args.radius is not None:
        raise UsageError("--radius applies only to --kind radius")
    result = search(args.order, args.kind, args.lon, args.lat, args.radius)
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print(format_search(result))
    return 0


def readable_step(step: Step) -> str:
    """One trace step as a line for a person (the prompt's own line is ``pyapp.explanation.prompt.trace_line``)."""
    head = f"{step.index:5d}  {step.action:<9}  node {step.node_id} (depth {step.depth})"
    if step.action == Action.VISIT:
        axis = AXIS_NAMES[step.axis]
        point = f"({format_number(step.lon)}, {format_number(step.lat)})"
        return f"{head}  point {point}  splits {axis} at {format_number(step.split)}"
    if step.action in (Action.DISTANCE, Action.BEST, Action.REPORT):
        return f"{head}  distance {format_number(step.distance)}"
    if step.action == Action.NEAR:
        return f"{head}  side {step.side}"
    relation = "<=" if step.action == Action.FAR_VISIT else ">"
    return f"{head}  side {step.side}  gap {format_number(step.gap)} {relation} bound {format_number(step.bound)}"


def format_search(result: SearchResult) -> str:
    """A readable account of one search: what was asked, found and counted, then every step."""
    names = businesses_by_id()
    stats = result.tree.shown()
    lon, lat = result.query
    asked = f"{result.kind} search, order {result.order}, query ({format_number(lon)}, {format_number(lat)})"
    if result.radius is not None:
        asked += f", radius {result.radius:g}"
    lines = [
        asked,
        f"tree: {stats['size']} points, depth {stats['depth']}, average depth {stats['average_depth']}",
        f"result: {len(result.result)} point(s)",
    ]
    for n in result.result:
        b = names.get(n.id)
        label = f"  {b.name} [{b.category}]" if b is not None else ""
        lines.append(f"  {n.id}  distance {format_number(n.distance)}{label}")
    c = result.counts
    lines.append(
        f"nodes visited {c.nodes_visited}, subtrees pruned {c.subtrees_pruned}, "
        f"distances computed {c.distances_computed}"
    )
    lines.append(f"trace: {len(result.trace)} steps")
    lines.extend(readable_step(step) for step in result.trace)
    return "\n".join(lines)
