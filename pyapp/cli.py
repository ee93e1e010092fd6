"""Command line: ``python -m pyapp <subcommand>`` (same functions as the page, §9).

Each subcommand is one ``_add_<name>`` function that declares its arguments and one
``_run_<name>`` function that does the work and returns the exit status.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from pyapp.geodata import businesses_by_id
from pyapp.kdtree import ORDERS
from pyapp.search import KINDS, SearchResult, search
from pyapp.trace import Step


def _add_trace(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("trace", help="run one search and print its result and trace")
    p.add_argument("--order", required=True, choices=ORDERS, help="insertion order of the tree")
    p.add_argument("--kind", required=True, choices=KINDS, help="nearest neighbour or radius search")
    p.add_argument("--radius", type=float, help="radius in degrees (radius searches only)")
    p.add_argument("--lon", type=float, required=True, help="query longitude in degrees")
    p.add_argument("--lat", type=float, required=True, help="query latitude in degrees")
    p.add_argument("--json", action="store_true", help="print the search as JSON")
    p.set_defaults(run=_run_trace, parser=p)


def _run_trace(args: argparse.Namespace) -> int:
    if args.kind == "radius" and args.radius is None:
        raise _UsageError("--radius is required with --kind radius")
    if args.kind == "nearest" and args.radius is not None:
        raise _UsageError("--radius applies only to --kind radius")
    result = search(args.order, args.kind, args.lon, args.lat, args.radius)
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print(format_search(result))
    return 0


def _fmt(x: float) -> str:
    return f"{x:.9f}"


def format_step(step: Step) -> str:
    """One trace step as a line of text."""
    head = f"{step.index:5d}  {step.action:<9}  node {step.node_id} (depth {step.depth})"
    if step.action == "visit":
        axis = ("lon", "lat")[step.axis]
        return f"{head}  point ({_fmt(step.lon)}, {_fmt(step.lat)})  splits {axis} at {_fmt(step.split)}"
    if step.action in ("distance", "best", "report"):
        return f"{head}  distance {_fmt(step.distance)}"
    if step.action == "near":
        return f"{head}  side {step.side}"
    relation = "<=" if step.action == "far_visit" else ">"
    return f"{head}  side {step.side}  gap {_fmt(step.gap)} {relation} bound {_fmt(step.bound)}"


def format_search(result: SearchResult) -> str:
    """A readable account of one search: what was asked, found and counted, then every step."""
    names = businesses_by_id()
    stats = result.tree
    lon, lat = result.query
    asked = f"{result.kind} search, order {result.order}, query ({_fmt(lon)}, {_fmt(lat)})"
    if result.radius is not None:
        asked += f", radius {result.radius:g}"
    lines = [
        asked,
        f"tree: {stats.size} points, depth {stats.depth}, average depth {stats.average_depth:.3f}",
        f"result: {len(result.result)} point(s)",
    ]
    for n in result.result:
        b = names.get(n.id)
        label = f"  {b.name} [{b.category}]" if b is not None else ""
        lines.append(f"  {n.id}  distance {_fmt(n.distance)}{label}")
    c = result.counts
    lines.append(
        f"nodes visited {c.nodes_visited}, subtrees pruned {c.subtrees_pruned}, "
        f"distances computed {c.distances_computed}"
    )
    lines.append(f"trace: {len(result.trace)} steps")
    lines.extend(format_step(step) for step in result.trace)
    return "\n".join(lines)


class _UsageError(Exception):
    """A combination of arguments argparse cannot express; reported like an argparse error.

    Subcommands raise it only when they set ``parser`` in their defaults.
    """


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m pyapp", description="K-d Tree Explorer command line")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_trace(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (default: sys.argv[1:]), run the subcommand, return its exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except _UsageError as exc:
        args.parser.error(str(exc))  # exits with status 2
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 1
