"""A JSON-lines log read a line at a time, through the checks an import makes of the whole file
(:func:`pyapp.evaluation.export.parse_import`), so that a reader holds a batch of its lines at once, never the
file. The lines of a batch need nothing from each other, so the batches may be read anywhere, in any order, and
are taken in file order (:func:`log_lines`).

The command line reads logs of any length this way (DR-008): the entries go on to whatever keeps what it needs
of them, and the file is refused, as a whole, for the first thing its whole reading would have refused. A last
line that a write left unfinished is said as :class:`CutOff`, with where it starts, so the reader can name the
line, the byte and the command that repairs it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import BinaryIO

from pyapp.auditlog.validation import validate_entry
from pyapp.core.strict_json import nesting_exceeds
from pyapp.evaluation.entry_checks import EntryChecks, ImportFileError
from pyapp.evaluation.export import (
    MAX_IMPORT_CHARS,
    MAX_IMPORT_DEPTH,
    MAX_IMPORT_ENTRIES,
    MAX_LOG_LINE_PROBE,
    TOO_DEEP,
    UTF8_ONLY,
    is_log,
    parse_log_line,
    too_big,
)
from pyapp.evaluation.log_end import UnfinishedEnd, is_whole_json

_BOM = b"\xef\xbb\xbf"


class CutOff(Exception):
    """The log's last line was cut off mid-write; every line before it was read and found whole and valid."""

    def __init__(self, end: UnfinishedEnd, entries_before: int) -> None:
        super().__init__(f"line {end.line} was cut off mid-write")
        self.end = end
        self.entries_before = entries_before


def opens_a_log(handle: BinaryIO) -> bool:
    """True when the file open in ``handle`` starts with a whole log entry on its own line (an export never
    does); the handle is left at the file's start."""
    first = handle.readline(MAX_LOG_LINE_PROBE + 1)
    handle.seek(0)
    return is_log(first.decode("utf-8-sig", errors="replace"))


def log_entries(handle: BinaryIO) -> Iterator[dict]:
    """Every entry of the log open in ``handle`` (binary, at its start), in file order, each once it is checked.

    Nothing the file holds is yielded after its first refusal is known; the refusal (``ImportFileError``, or
    :class:`CutOff`) is raised when it is, at the latest after the last line: a caller keeps nothing it took
    from a file that raised.
    """
    return (entry for entry, _ in log_lines(handle))


# A line as read (read_line): its value, or the ImportFileError that refuses the file at it; the problems it
# has as an audit entry; and whatever else the reader made of it.
Read = tuple[object, list[str] | None, object]
# Lines are read in batches of this many, each batch by one call of the reader's map.
BATCH_LINES = 500


def read_line(number: int, start: int, raw: bytes) -> Read:
    """Line ``number`` (its bytes ``raw``, from byte ``start``) parsed and validated as an entry."""
    try:
        value = _entry(number, start, raw)
    except ImportFileError as exc:
        return exc, None, None
    return value, validate_entry(value), None


def log_lines(handle: BinaryIO, read: Callable[[int, int, bytes], Read] = read_line,
              batches: Callable[..., Iterable[list[Read]]] = map) -> Iterator[tuple[dict, object]]:
    """Every entry of the log open in ``handle``, as :func:`log_entries` gives them, each with what ``read``
    made of its line beyond the entry.

    The lines are read by ``read`` (:func:`read_line`, or a function that calls it), in batches that ``batches``
    maps as ``map`` does: the command line passes a map that reads batches in other processes (DR-008). The
    reads are taken in file order, so the file is refused at the same line whichever map read it.
    """
    size = handle.seek(0, 2)
    handle.seek(0)
    if size > MAX_IMPORT_CHARS:
        raise ImportFileError(too_big(size))
    checks = EntryChecks()
    last: list[tuple[int, int, bytes]] = []
    for reads in batches(partial(_read_batch, read), _batched(_lines_but_last(handle, last))):
        for value, problems, made in reads:
            if _take(checks, value, problems):
                yield value, made
    if last:
        number, start, raw = last[0]
        if not is_whole_json(raw.removeprefix(_BOM) if number == 1 else raw):
            checks.finish()  # a bad line before a cut one is said first: a repair would not mend it
            raise CutOff(UnfinishedEnd(line=number, start=start, cut=True), checks.taken)
        value, problems, made = read(number, start, raw)
        if _take(checks, value, problems):
            yield value, made
    checks.finish()


def _lines_but_last(handle: BinaryIO, last: list) -> Iterator[tuple[int, int, bytes] | ImportFileError]:
    """Each line of the file that holds more than white space, numbered and with its first byte's offset, but
    the last, which is left in ``last``: whether it is whole is known only once it is known to be the last. A
    file of too many lines yields the refusal in place of the line past the limit."""
    held = None
    number = offset = lines = 0
    for raw in handle:
        number += 1
        start, offset = offset, offset + len(raw)
        if raw.isspace():
            continue
        lines += 1
        if lines > MAX_IMPORT_ENTRIES:
            yield ImportFileError(f"The log has more than {MAX_IMPORT_ENTRIES:,} entries; an import takes at most "
                                  f"{MAX_IMPORT_ENTRIES:,}. Nothing was imported.")
            return
        if held is not None:
            yield held
        held = (number, start, raw)
    if held is not None:
        last.append(held)


def _batched(lines: Iterator) -> Iterator[list]:
    batch = []
    for line in lines:
        batch.append(line)
        if len(batch) == BATCH_LINES:
            yield batch
            batch = []
    if batch:
        yield batch


def _read_batch(read: Callable[[int, int, bytes], Read], batch: list) -> list[Read]:
    return [(line, None, None) if isinstance(line, ImportFileError) else read(*line) for line in batch]


def _take(checks: EntryChecks, value: object, problems: list[str] | None) -> bool:
    """``checks.take`` of the entry ``value``, whose ``problems`` are known; the file refused first if the line
    was (``value`` is then the refusal) or if the entry nests too deeply, as a whole file's check refuses that
    before any other. Only an invalid entry can (a valid one nests three levels at most), so a valid entry's
    nesting is never walked."""
    if isinstance(value, ImportFileError):
        raise value
    if checks.take(value, problems):
        return True
    if problems and _deeper_than(value, MAX_IMPORT_DEPTH):
        raise ImportFileError(TOO_DEEP)
    return False


def _entry(number: int, start: int, raw: bytes) -> object:
    """Line ``number`` (its bytes ``raw``, from byte ``start``) parsed with the whole file's checks of text,
    nesting and JSON."""
    if b"\x00" in raw:
        raise ImportFileError(UTF8_ONLY)
    try:
        text = raw.decode("utf-8-sig" if start == 0 else "utf-8")
    except UnicodeDecodeError:
        raise ImportFileError(UTF8_ONLY) from None
    try:
        return parse_log_line(number, text, last=False)
    except ImportFileError:
        # What the whole file's check says first (export.parse_import): it measures the nesting before parsing.
        if nesting_exceeds(text, MAX_IMPORT_DEPTH):
            raise ImportFileError(TOO_DEEP) from None
        raise


def _deeper_than(value: object, limit: int) -> bool:
    """True when ``value`` nests lists or objects more than ``limit`` inside each other (itself the first)."""
    level = [value]
    depth = 0
    while level:
        containers = [v for v in level if isinstance(v, (dict, list))]
        if not containers:
            return False
        depth += 1
        if depth > limit:
            return True
        level = [item for c in containers for item in (c.values() if isinstance(c, dict) else c)]
    return False
