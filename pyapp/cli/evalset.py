"""``python -m pyapp evalset``: a set's cases, their trace lengths and how many are cut (DR-006, DR-009)."""

from __future__ import annotations

import argparse
import json

from pyapp.cli.inputs import add_set_option, resolve_set
from pyapp.evaluation.evalset import (
    evalset_summary,
    evalset_table,
)
from pyapp.presentation.terminal_text import format_evalset


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("evalset", help="list the cases of an evaluation set")
    add_set_option(p)
    p.add_argument("--json", action="store_true", help="print the summary and the table as JSON")
    p.set_defaults(run=run, parser=p)


def run(args: argparse.Namespace) -> int:
    args.set_version, sets = resolve_set(args)
    table = evalset_table(args.set_version, sets)
    summary = evalset_summary(table, args.set_version)
    if args.json:
        print(json.dumps({"summary": summary, "cases": table}))
    else:
        print(format_evalset(table, summary))
    return 0
