"""``python -m pyapp baseline``: a baseline file of runs of one configuration, or a file checked against the
baseline its log gives (DR-008)."""

from __future__ import annotations

import argparse
import sys

from pyapp.cli.exit_status import BAD_INPUT, OK
from pyapp.cli.inputs import UsageError, check_writable, read_runs, runs_named
from pyapp.evaluation.baseline import MAX_BASELINE_CHARS, baseline_of, baseline_text, parse_baseline
from pyapp.presentation.baseline_verify import format_verify_report, verify_report


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("baseline", help="write a baseline file of runs of one configuration, to gate later runs; "
                                        "or --verify one against the log its runs are in")
    p.add_argument("export", metavar="LOG", help="a JSON export or a log written by run")
    p.add_argument("--run", dest="run_ids", action="append", metavar="ID",
                   help="a run of the baseline, by its id or short id; repeat for several runs of the same "
                        "configuration (needed unless --verify)")
    p.add_argument("--output", metavar="FILE", help="write the baseline here (default: print it)")
    p.add_argument("--verify", metavar="BASELINE",
                   help="rebuild the baseline from the runs of LOG that BASELINE names and print every header "
                        "field and case line that differs; exit 0 when none does, 1 otherwise")
    p.set_defaults(run=run, parser=p)


def read_baseline(path: str) -> dict:
    """The baseline file at ``path``, checked whole by :func:`pyapp.evaluation.baseline.parse_baseline`."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BASELINE_CHARS + 1)
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}") from None
    return parse_baseline(data)


def run(args: argparse.Namespace) -> int:
    if args.verify is not None:
        if args.run_ids or args.output is not None:
            raise UsageError("--verify takes the runs the baseline names; give no --run or --output with it")
        return verify(args.verify, args.export)
    if not args.run_ids:
        raise UsageError("the following arguments are required: --run (or --verify BASELINE)")
    if args.output is not None:
        check_writable(args.output)
    text = baseline_text(baseline_of(runs_named(read_runs(args.export), args.run_ids)))
    if args.output is None:
        sys.stdout.write(text)
        return OK
    try:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise ValueError(f"cannot write {args.output}: {exc.strerror}") from None
    return OK


def verify(path: str, log: str) -> int:
    """Print every difference between the baseline at ``path`` and the one the runs it names in ``log`` give."""
    baseline = read_baseline(path)
    report = verify_report(baseline, read_runs(log))
    print(format_verify_report(report))
    return OK if report["identical"] else BAD_INPUT
