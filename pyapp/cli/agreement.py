"""``python -m pyapp agreement``: raters' agreement on the rubric, and with the checks (DR-009); each model
judge's against the people, on one judging (DR-012)."""

from __future__ import annotations

import argparse
import json

from pyapp.cli.inputs import read_entries
from pyapp.evaluation.agreement import agreement_report
from pyapp.presentation.agreement_text import format_agreement_report


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("agreement", help="how far raters agree on the rubric, and with the mechanical grade")
    p.add_argument("export", metavar="EXPORT.json", help="a JSON export holding runs and their ratings")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument("--judging", metavar="ID", action="append", default=[],
                   help="the judging a judge's figures rest on (default: its first complete one); once per judge")
    p.set_defaults(run=run, parser=p)


def run(args: argparse.Namespace) -> int:
    entries = read_entries(args.export)
    report = agreement_report(entries, judgings=args.judging)
    print(json.dumps(report) if args.json else format_agreement_report(report))
    return 0
