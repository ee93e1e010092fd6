"""``python -m pyapp prompt``: the exact prompt the site sends for one case (DR-005)."""

from __future__ import annotations

import argparse
import json
import sys

from pyapp.cli.inputs import add_set_option, resolve_set
from pyapp.evaluation.evalset import case_prompt
from pyapp.presentation.terminal_text import format_prompt


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("prompt", help="print the exact prompt the site sends for one case")
    p.add_argument("case", metavar="CASE", help="case id, C01 to C20 (C80 in the larger set)")
    add_set_option(p)
    p.add_argument("--json", action="store_true", help="print version, hash, system and user text as JSON")
    p.set_defaults(run=run, parser=p)


def run(args: argparse.Namespace) -> int:
    version, sets = resolve_set(args)
    prompt = case_prompt(sets.case(args.case, version))
    if args.json:
        print(json.dumps({"case_id": args.case, **prompt.to_json()}))
    else:
        sys.stdout.write(format_prompt(args.case, prompt))
    return 0
