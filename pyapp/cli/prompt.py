"""``python -m pyapp prompt``: the exact prompt the site sends for one case (DR-005)."""

from __future__ import annotations

import argparse
import json
import sys

from pyapp.cli.inputs import add_set_option, resolve_set
from pyapp.evaluation.evalset import (
    case,
    case_prompt,
)
from pyapp.explanation.prompt import Prompt


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("prompt", help="print the exact prompt the site sends for one case")
    p.add_argument("case", metavar="CASE", help="case id, C01 to C20 (C80 in the larger set)")
    add_set_option(p)
    p.add_argument("--json", action="store_true", help="print version, hash, system and user text as JSON")
    p.set_defaults(run=run, parser=p)


def run(args: argparse.Namespace) -> int:
    prompt = case_prompt(case(args.case, resolve_set(args)))
    if args.json:
        print(json.dumps({"case_id": args.case, **prompt.to_json()}))
    else:
        sys.stdout.write(format_prompt(args.case, prompt))
    return 0


def format_prompt(case_id: str, prompt: Prompt) -> str:
    """A header line, then the system text and the user text, each under a marker line of its own.

    Both texts are printed exactly; a line break is added after one only if it lacks one.
    """
    parts = [f"# {case_id}: prompt {prompt.version}, sha256 {prompt.hash}\n"]
    for marker, text in (("=== system ===", prompt.system), ("=== user ===", prompt.user)):
        parts.append(marker + "\n" + text + ("" if text.endswith("\n") else "\n"))
    return "".join(parts)
