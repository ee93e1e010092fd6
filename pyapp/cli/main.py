"""``python -m pyapp``: the command line, the same functions as the page (DR-002).

Each command is a module of this package with ``add(sub)``, which declares its arguments, and
``run(args)``, which does the work and returns the exit status.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from contextlib import nullcontext

from pyapp.cli import (
    agreement,
    baseline,
    compare,
    diff,
    evalset,
    exit_status,
    experiment,
    export,
    judge,
    prompt,
    repair,
    report,
    run,
    trace,
)
from pyapp.cli.inputs import UsageError
from pyapp.core.collector import gc_paused

# In the order ``--help`` lists them.
COMMANDS = (trace, evalset, prompt, report, compare, agreement, experiment, baseline, diff, export, run, repair, judge)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m pyapp", description="K-d Tree Explorer command line")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.add(sub)
    return parser



def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (default: sys.argv[1:]), run the subcommand, return its exit status (``exit_status``).

    A reader that stops early (``| head``) ends the command quietly with status 141,
    as Python's documentation advises in its note on SIGPIPE.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    # Reading, rebuilding and grading a log make many small objects and no cycles, so the collector's passes
    # only cost time (pyapp.core.collector); ``run`` and ``judge`` wait on a provider for hours and keep it running.
    paused = nullcontext() if args.command in ("run", "judge") else gc_paused()
    try:
        with paused:
            status = args.run(args)
        sys.stdout.flush()  # a closed pipe shows up here, not at exit where it cannot be caught
        return status
    except BrokenPipeError:
        # Point stdout at devnull so the interpreter's final flush does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return exit_status.BROKEN_PIPE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return exit_status.INTERRUPTED
    except UsageError as exc:
        args.parser.error(str(exc))  # exits with status 2, exit_status.USAGE
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exit_status.LOCAL_IO if isinstance(exc, exit_status.LocalIOError) else exit_status.BAD_INPUT
    return exit_status.BAD_INPUT
