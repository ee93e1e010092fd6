"""``python -m pyapp baseline``: a baseline file of runs of one configuration (DR-008)."""

from __future__ import annotations

import argparse
import sys

from pyapp.cli.inputs import check_writable, read_runs, runs_named
from pyapp.evaluation.baseline import baseline_of, baseline_text


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("baseline", help="write a baseline file of runs of one configuration, to gate later runs")
    p.add_argument("export", metavar="LOG", help="a JSON export or a log written by run")
    p.add_argument("--run", dest="run_ids", action="append", required=True, metavar="ID",
                   help="a run of the baseline, by its id or short id; repeat for several runs of the same "
                        "configuration")
    p.add_argument("--output", metavar="FILE", help="write the baseline here (default: print it)")
    p.set_defaults(run=run, parser=p)


def run(args: argparse.Namespace) -> int:
    if args.output is not None:
        check_writable(args.output)
    text = baseline_text(baseline_of(runs_named(read_runs(args.export), args.run_ids)))
    if args.output is None:
        sys.stdout.write(text)
        return 0
    try:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise ValueError(f"cannot write {args.output}: {exc.strerror}") from None
    return 0
