"""``python -m pyapp evalset``: a set's cases, their trace lengths and how many are cut (DR-006, DR-009)."""

from __future__ import annotations

import argparse
import json

from pyapp.cli.inputs import add_set_option, resolve_set
from pyapp.evaluation.evalset import (
    evalset_summary,
    evalset_table,
    is_own_set,
)
from pyapp.evaluation.own_cases import set_label


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("evalset", help="list the cases of an evaluation set")
    add_set_option(p)
    p.add_argument("--json", action="store_true", help="print the summary and the table as JSON")
    p.set_defaults(run=run, parser=p)


def run(args: argparse.Namespace) -> int:
    args.set_version = resolve_set(args)
    table = evalset_table(args.set_version)
    summary = evalset_summary(table, args.set_version)
    if args.json:
        print(json.dumps({"summary": summary, "cases": table}))
    else:
        print(format_evalset(table, summary))
    return 0


def format_evalset(table: list[dict], summary: dict) -> str:
    """The set as text: one block per case, then how many traces are cut."""
    version = summary["eval_set_version"]
    drawn = f"{set_label(version)}: {summary['cases']} cases" if is_own_set(version) else (
        f"{version}, seed {summary['seed']}: {summary['cases']} cases")
    lines = [drawn]
    for row in table:
        radius = "" if row["radius"] is None else f"  radius {row['radius']:g}"
        cut = f"  cut to {row['steps_sent']}" if row["over_limit"] else ""
        lines.append(
            f"{row['case_id']}  {row['kind']:<13} {row['order']:<12} ({row['lon']:.7f}, {row['lat']:.7f})"
            f"{radius}  {row['steps']} steps{cut}, {row['results']} result(s)"
        )
        lines.append(f"     {row['why_it_matters']}")
    lines.append(
        f"{summary['over_limit']} of {summary['cases']} traces are longer than the {summary['max_steps']} "
        f"steps a prompt sends; one run sends {summary['prompt_chars']:,} characters of prompts."
    )
    return "\n".join(lines)
