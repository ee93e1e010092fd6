"""``python -m pyapp report``: a run's numbers as the page shows them, the runs by configuration, or the matrix of
cases against runs (DR-006, DR-008)."""

from __future__ import annotations

import argparse
import json
import sys

from pyapp.cli.inputs import UsageError, read_runs, run_ids_named
from pyapp.presentation.case_matrix import case_matrix, format_case_matrix
from pyapp.presentation.repeat_report import (
    configurations_report,
    format_configurations_report,
)
from pyapp.presentation.report import format_run_report, run_report


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="the numbers the evaluation page shows for the runs of an export")
    p.add_argument("export", metavar="EXPORT.json", help="a JSON export from the evaluation page")
    p.add_argument("--run", dest="run_id", metavar="ID",
                   help="report this run only, named by its id or its short id (default: every run in the file)")
    p.add_argument("--json", action="store_true",
                   help="print JSON: one report with --run, else a list of reports")
    p.add_argument("--configurations", action="store_true",
                   help="print only the runs grouped by configuration, with the figures of repeated runs")
    p.add_argument("--matrix", action="store_true",
                   help="print only the matrix of every case against every run, the runs grouped by configuration")
    p.set_defaults(run=run, parser=p)


def run(args: argparse.Namespace) -> int:
    if args.configurations and args.matrix:
        raise UsageError("choose one of --configurations and --matrix")
    for flag in ("configurations", "matrix"):
        if getattr(args, flag) and args.run_id:
            raise UsageError(f"--{flag} reports every run of the file; leave out --run")
    built = read_runs(args.export)
    runs = list(built)
    if args.run_id:
        runs = [built.run(run_ids_named(runs, [args.run_id])[0])]
    if not runs:
        raise ValueError(f"{args.export} holds no runs")
    if args.matrix:
        matrix = case_matrix(runs)
        print(json.dumps(matrix) if args.json else format_case_matrix(matrix))
        return 0
    if args.configurations:
        grouped = configurations_report(runs)
        print(json.dumps(grouped) if args.json else format_configurations_report(grouped))
        return 0
    # Each run's report is printed as it is made, so a log of thousands of runs never holds them all.
    if args.run_id:
        report = run_report(runs[0])
        print(json.dumps(report) if args.json else format_run_report(report))
    elif args.json:
        sys.stdout.write("[" + ", ".join(json.dumps(run_report(r)) for r in runs[:1]))
        for r in runs[1:]:
            sys.stdout.write(", " + json.dumps(run_report(r)))
        sys.stdout.write("]\n")
    else:
        # Every run, then the runs grouped by configuration with the figures of repeats (DR-008).
        for r in runs:
            sys.stdout.write(format_run_report(run_report(r)) + "\n\n")
        print("runs by configuration:\n" + format_configurations_report(configurations_report(runs)))
    return 0
