"""A log's line read with its answer graded, by whichever process reads it (DR-008): what the command line's
reading processes (:mod:`pyapp.cli.reading_processes`) make of each line of a long log, for
:meth:`pyapp.evaluation.rebuild.RunIndex.add_read`."""

from __future__ import annotations

from pyapp.core.vocabulary import EntryType
from pyapp.evaluation.evalset import FIXED_SETS
from pyapp.evaluation.grader import Grader
from pyapp.evaluation.log_stream import Read, read_line
from pyapp.evaluation.rebuild import grade_fields, lean_fields

_GRADER_AHEAD = Grader(remember=False)
_IN_A_RUN = (EntryType.CALL, EntryType.CANCEL)


def read_graded(number: int, start: int, raw: bytes) -> Read:
    """Line ``number`` of a log read as :func:`pyapp.evaluation.log_stream.read_line` reads it, with the
    answer of a valid call in a run of today's sets graded (:func:`pyapp.evaluation.rebuild.grade_fields`).
    A set of the visitor's own cases is known only from the log read so far, so its answers are graded by the
    index. A valid call or cancel of a run is cut to what a lean index keeps of it
    (:func:`pyapp.evaluation.rebuild.lean_fields`), without a graded answer's text: it is then only for an index
    that keeps calls lean (``RunIndex.add_read``), and crosses from a reading process to the command in half the
    bytes."""
    value, problems, _ = read_line(number, start, raw)
    if problems or problems is None or value["type"] not in _IN_A_RUN or value["run_id"] is None:
        return value, problems, None
    graded = None
    if value["type"] == EntryType.CALL and value["answer"] is not None:
        graded = grade_fields(_GRADER_AHEAD, FIXED_SETS, value)
    lean = lean_fields(value)
    if graded is not None:
        lean["answer"] = None  # the grade is all the lean index keeps of it: the text need not travel on
    return lean, problems, graded
