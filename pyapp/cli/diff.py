"""``python -m pyapp diff``: runs against a baseline; exits 3 when a rule rejects (DR-008)."""

from __future__ import annotations

import argparse
import json

from pyapp.auditlog.rules import DIFFERENCE_BELOW, LOWER_BOUND_BELOW, NO_NEW_FAIL, parse_rule
from pyapp.cli.baseline import read_baseline
from pyapp.cli.exit_status import OK, REJECTED
from pyapp.cli.inputs import UsageError, read_runs, runs_named
from pyapp.presentation.baseline_diff import diff_report, format_diff_report


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("diff", help="runs against a baseline, per case and paired; exits 3 when a rule rejects")
    p.add_argument("baseline", metavar="BASELINE", help="a file written by baseline")
    p.add_argument("export", metavar="LOG", help="a JSON export or a log written by run")
    p.add_argument("--run", dest="run_ids", action="append", required=True, metavar="ID",
                   help="a run to check, by its id or short id; repeat for several runs of the same configuration")
    p.add_argument("--rule", dest="rules", action="append", metavar="RULE",
                   help=f"reject when: {NO_NEW_FAIL} (a case went from grounded to not grounded), "
                        f"{DIFFERENCE_BELOW}:D (the difference is below +D points), {LOWER_BOUND_BELOW}:D (the "
                        f"95%% interval's lower bound is below +D points); repeatable; default {NO_NEW_FAIL}")
    p.add_argument("--accept-edited", action="store_true",
                   help="go on with a baseline edited after it was written, or one of an older format whose "
                        "edits cannot be seen (the report names what was edited)")
    p.add_argument("--json", action="store_true", help="print the diff as JSON")
    p.set_defaults(run=run, parser=p)


def run(args: argparse.Namespace) -> int:
    try:
        rules = [parse_rule(text) for text in args.rules or [NO_NEW_FAIL]]
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    baseline = read_baseline(args.baseline)
    report = diff_report(baseline, runs_named(read_runs(args.export), args.run_ids), rules, args.accept_edited)
    print(json.dumps(report) if args.json else format_diff_report(report))
    return REJECTED if report["rejected"] else OK
