"""``python -m pyapp report``: a run's numbers as the page shows them, the runs by configuration, or the matrix of
cases against runs (DR-006, DR-008)."""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
from functools import partial

from pyapp.cli.inputs import UsageError, read_runs, run_ids_named
from pyapp.cli.reading_processes import batch_map
from pyapp.evaluation.runs import Run
from pyapp.presentation.case_matrix import case_matrix, format_case_matrix
from pyapp.presentation.repeat_report import (
    configurations_report,
    format_configurations_report,
)
from pyapp.presentation.report import format_run_report, run_report

# A batch of reports takes a worker about a tenth of a second.
RUNS_PER_BATCH = 100


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
    # The reports are printed a batch at a time, as they are made, so a log of thousands of runs never holds them
    # all; a long log's are made by a process on each core, as its lines were read (DR-008).
    if args.run_id:
        report = run_report(runs[0])
        print(json.dumps(report) if args.json else format_run_report(report))
        return 0
    batches = [range(start, min(start + RUNS_PER_BATCH, len(runs))) for start in range(0, len(runs), RUNS_PER_BATCH)]
    with batch_map(os.path.getsize(args.export)) as in_turn:
        texts = (text for batch in in_turn(partial(_reports, runs, args.json), batches) for text in batch)
        if args.json:
            sys.stdout.write("[" + ", ".join(itertools.islice(texts, 1)))
            for text in texts:
                sys.stdout.write(", " + text)
            sys.stdout.write("]\n")
            return 0
        # Every run, then the runs grouped by configuration with the figures of repeats (DR-008).
        for text in texts:
            sys.stdout.write(text + "\n\n")
    print("runs by configuration:\n" + format_configurations_report(configurations_report(runs)))
    return 0


def _reports(runs: list[Run], as_json: bool, indexes: range) -> list[str]:
    """The reports of ``runs[i]`` for each of ``indexes``, as text or JSON."""
    return [json.dumps(run_report(runs[i])) if as_json else format_run_report(run_report(runs[i])) for i in indexes]
