"""``python -m pyapp export``: every run of a log or export as an Inspect eval log, one file per run (DR-014)."""

from __future__ import annotations

import argparse
from pathlib import Path

from pyapp.cli.exit_status import LocalIOError
from pyapp.cli.inputs import read_entries
from pyapp.core.formatting import counted


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export", help="write the runs of a log as Inspect AI eval logs, one per run")
    p.add_argument("log", metavar="LOG", help="a log written by run, or a JSON export from the evaluation page")
    p.add_argument("--format", choices=["inspect"], required=True,
                   help="inspect: Inspect AI's .eval logs (needs pip install '.[inspect]')")
    p.add_argument("--output", metavar="DIR", required=True, help="the folder the logs are written into")
    p.set_defaults(run=run, parser=p)


def run(args: argparse.Namespace) -> int:
    # The bridge is imported here, not with the command line: the site's wheel leaves it out (DR-014), and
    # inspect_ai takes seconds to import.
    from pyapp.bridges.inspect_names import require_inspect

    require_inspect()
    entries = read_entries(args.log)
    from pyapp.bridges.inspect_export import export_runs

    try:
        written, left_out = export_runs(entries, Path(args.output))
    except OSError as exc:
        raise LocalIOError(f"cannot write into {args.output}: {exc.strerror or exc}") from None
    for line in left_out:
        print(line)
    if not written:
        raise ValueError(f"{args.log} holds no runs to export")
    print(f"wrote {counted(len(written), 'Inspect log')} into {args.output}: "
          + ", ".join(path.name for path in written))
    return 0
