"""``python -m pyapp compare``: two runs, or two configurations, compared pair by pair (DR-006, DR-008)."""

from __future__ import annotations

import argparse
import json

from pyapp.cli.inputs import UsageError, configuration_ids_named, read_entries, read_runs, run_ids_named
from pyapp.evaluation.configurations import group_runs
from pyapp.evaluation.plans import plans_in
from pyapp.evaluation.rebuild import rebuild
from pyapp.presentation.repeat_report import (
    configuration_compare_report,
    format_configuration_compare_report,
)
from pyapp.presentation.run_comparison import SAME_RUN, compare_report, format_compare_report


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compare", help="the paired comparison of two runs, or of two configurations, of an export")
    p.add_argument("export", metavar="EXPORT.json", help="a JSON export holding both runs")
    p.add_argument("--run", dest="run_ids", action="append", metavar="ID",
                   help="a run's id or short id; give it twice, first run then second: the difference is the "
                        "second minus the first")
    p.add_argument("--config", dest="configs", action="append", metavar="NAME",
                   help="a configuration's letter or id (see report --configurations) or the id or short id of "
                        "one of its runs; give it twice, X then Y: the difference is Y minus X")
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")
    p.set_defaults(run=run, parser=p)


def run(args: argparse.Namespace) -> int:
    if args.configs:
        return _compare_configurations(args)
    if not args.run_ids or len(args.run_ids) != 2:
        raise UsageError("compare needs --run exactly twice: --run FIRST --run SECOND")
    built = read_runs(args.export)
    first, second = run_ids_named(list(built), args.run_ids)
    if first == second:
        raise UsageError(SAME_RUN)
    report = compare_report(built.run(first), built.run(second), group_runs(list(built)))
    print(json.dumps(report) if args.json else format_compare_report(report))
    return 0


def _compare_configurations(args: argparse.Namespace) -> int:
    if args.run_ids:
        raise UsageError("give either --run twice or --config twice, not both")
    if len(args.configs) != 2:
        raise UsageError("compare needs --config exactly twice: --config X --config Y")
    entries = read_entries(args.export)
    runs = list(rebuild(entries, validated=True))
    x, y = configuration_ids_named(runs, args.configs)
    report = configuration_compare_report(group_runs(runs), x, y, plans_in(entries))
    print(json.dumps(report) if args.json else format_configuration_compare_report(report))
    return 0
