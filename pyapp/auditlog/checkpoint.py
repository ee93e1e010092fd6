"""The worker's read of the audit log, kept as bytes so that a reopened page need not read it again (DR-006).

A checkpoint holds what the worker made of the stored log: the entries it parsed and
validated, how many records it skipped as unreadable, the last record it read (its
sequence number and text), how many records it read, and the outcome of every answer it
graded. On a later visit the worker starts from it and reads only the records stored
since, checked the way each read is checked: if the last record is no longer as it was,
the log is read again from the start.

The page keeps a checkpoint under the key of the build that made it (Pyodide, its standard
library and the wheels, as for the start-up snapshot, DR-002), so a new version of the
site, whose validation or grading may differ, reads the log afresh.

The bytes are ``marshal``'s: loading 10,000 entries takes about a tenth of the time of
parsing and validating their JSON again. ``marshal`` is not meant for bytes made to
deceive; these are written only by the worker into the site's own storage, and whatever
can rewrite them there can already run script in the site's origin. Damage is caught
before they reach Python, by the gzip check where the page keeps them, and a checkpoint
of the wrong shape is refused here.
"""

from __future__ import annotations

import marshal
from dataclasses import dataclass

from pyapp.core.vocabulary import ANSWERED, Outcome

FORMAT = 1
# A checkpoint is written once the log holds at least this many records it does not cover:
# below that, reading the records again costs less than writing one.
EVERY = 1_000


@dataclass
class Checkpoint:
    entries: list[dict]
    corrupt: int
    last: list  # [sequence number, text] of the last record read
    records: int  # how many records it had read
    # by (prompt hash, answer, stop), as pyapp.evaluation.grader.Grader keeps them
    outcomes: dict[tuple[str, str, str], Outcome]


def dumps(checkpoint: Checkpoint) -> bytes:
    outcomes = {key: str(outcome) for key, outcome in checkpoint.outcomes.items()}  # marshal takes plain strings
    return marshal.dumps((FORMAT, checkpoint.entries, checkpoint.corrupt, checkpoint.last, checkpoint.records,
                          outcomes))


def loads(data: bytes) -> Checkpoint | None:
    """The checkpoint in ``data``, or None when it is not one this module wrote."""
    try:
        fmt, entries, corrupt, last, records, outcomes = marshal.loads(data)
    except (ValueError, EOFError, TypeError):
        return None
    if fmt != FORMAT or not _well_formed(entries, corrupt, last, records, outcomes):
        return None
    return Checkpoint(entries, corrupt, last, records, {key: Outcome(value) for key, value in outcomes.items()})


def _well_formed(entries: object, corrupt: object, last: object, records: object, outcomes: object) -> bool:
    if not (type(entries) is list and all(type(entry) is dict for entry in entries)):
        return False
    if not (type(corrupt) is int and type(records) is int and 0 <= corrupt and len(entries) + corrupt == records):
        return False
    if not (type(last) is list and len(last) == 2 and type(last[0]) is int and last[0] > 0
            and (last[1] is None or type(last[1]) is str)):
        return False
    return type(outcomes) is dict and all(
        type(key) is tuple and len(key) == 3 and all(type(part) is str for part in key) and value in ANSWERED
        for key, value in outcomes.items())
