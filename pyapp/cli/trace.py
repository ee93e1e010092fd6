"""``python -m pyapp trace``: one search, its result and its trace."""

from __future__ import annotations

import argparse
import json

from pyapp.cli.inputs import UsageError
from pyapp.core.vocabulary import SearchKind
from pyapp.kdtree.search import search
from pyapp.kdtree.tree import ORDERS
from pyapp.presentation.terminal_text import format_search


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
