"""``python -m pyapp experiment``: the experiments page's figures (DR-010)."""

from __future__ import annotations

import argparse
import json

from pyapp.experiment.orders import DEFAULT_PER_KIND, DEFAULT_SEED, run_experiment
from pyapp.presentation.experiment_report import format_experiment


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("experiment", help="the five insertion orders on the same seeded queries (the experiments page)")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"seed of the queries (default {DEFAULT_SEED})")
    p.add_argument("--queries", type=int, default=DEFAULT_PER_KIND, metavar="N",
                   help=f"queries per kind of search (default {DEFAULT_PER_KIND})")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.set_defaults(run=run, parser=p)


def run(args: argparse.Namespace) -> int:
    figures = run_experiment(args.seed, args.queries)
    print(json.dumps(figures) if args.json else format_experiment(figures))
    return 0
