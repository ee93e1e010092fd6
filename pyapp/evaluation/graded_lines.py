"""A log's line read with its answer graded, by whichever process reads it (DR-008): what the command line's
reading processes (:mod:`pyapp.cli.reading_processes`) make of each line of a long log, for
:meth:`pyapp.evaluation.rebuild.RunIndex.add_read`."""

from __future__ import annotations

from pyapp.core.vocabulary import EntryType
from pyapp.evaluation.evalset import FIXED_SETS
from pyapp.evaluation.grader import Grader
from pyapp.evaluation.log_stream import Read, read_line
from pyapp.evaluation.rebuild import grade_fields

_GRADER_AHEAD = Grader(remember=False)


def read_graded(number: int, start: int, raw: bytes) -> Read:
    """Line ``number`` of a log read as :func:`pyapp.evaluation.log_stream.read_line` reads it, with the
    answer of a valid call in a run of today's sets graded (:func:`pyapp.evaluation.rebuild.grade_fields`).
    A set of the visitor's own cases is known only from the log read so far, so its answers are graded by the
    index. A graded answer's text is dropped from the entry, which is then only for an index that keeps calls
    lean (``RunIndex`` with ``lean``)."""
    value, problems, _ = read_line(number, start, raw)
    if problems or problems is None or value["type"] != EntryType.CALL or value["run_id"] is None \
            or value["answer"] is None:
        return value, problems, None
    graded = grade_fields(_GRADER_AHEAD, FIXED_SETS, value)
    if graded is not None:
        value["answer"] = None  # the grade is all the lean index keeps of it: the text need not travel on
    return value, problems, graded
