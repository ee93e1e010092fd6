"""The exit statuses of ``python -m pyapp``: one table for every command, so a CI job can tell what failed.

The README's "Exit statuses" lists the same table; ``tests/cli/test_exit_status.py`` reaches each
status from a real command.
"""

from __future__ import annotations

from pyapp.core.vocabulary import ErrorClass, Outcome

OK = 0
BAD_INPUT = 1  # a file given is not what the command reads (a log, an export, a baseline, a plan), or a name unknown
USAGE = 2  # the arguments (argparse's own status), or what the environment must give (the API key)
REJECTED = 3  # the gate: a rule of diff rejects the runs
PROVIDER_REFUSED = 4  # the provider refused: the key, the quota or the request
PROVIDER_SILENT = 5  # the provider did not answer: the network, its server errors, time-outs
LOCAL_IO = 6  # this machine: the log cannot be written, the disk is full
INTERRUPTED = 130  # Ctrl-C (128 + SIGINT), as a shell reports it
BROKEN_PIPE = 141  # the reader stopped early (128 + SIGPIPE)


class LocalIOError(ValueError):
    """A file this command must write cannot be: said in words, exit :data:`LOCAL_IO`."""


# The errors of a call the provider answered with a refusal; every other error class is an answer not given.
_REFUSALS = {ErrorClass.AUTH, ErrorClass.QUOTA, ErrorClass.BAD_REQUEST}


def of_provider_error(error: str | None) -> int:
    """The status of a run or judging that stopped on, or ended after, a call failed with error class ``error``."""
    if error == Outcome.CANCELLED:
        return INTERRUPTED
    return PROVIDER_REFUSED if error in _REFUSALS else PROVIDER_SILENT
