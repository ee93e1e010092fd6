"""A JSON-lines log read a line at a time, through the checks an import makes of the whole file
(:func:`pyapp.evaluation.export.parse_import`), so that a reader holds one line of it at once, never the file.

The command line reads logs of any length this way (DR-008): the entries go on to whatever keeps what it needs
of them, and the file is refused, as a whole, for the first thing its whole reading would have refused. A last
line that a write left unfinished is said as :class:`CutOff`, with where it starts, so the reader can name the
line, the byte and the command that repairs it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

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
    size = handle.seek(0, 2)
    handle.seek(0)
    if size > MAX_IMPORT_CHARS:
        raise ImportFileError(too_big(size))
    checks = EntryChecks()
    held: tuple[int, int, bytes] | None = None  # a line read, checked once the next shows whether it is the last
    number = offset = lines = 0
    for raw in handle:
        number += 1
        start, offset = offset, offset + len(raw)
        if raw.isspace():
            continue
        lines += 1
        if lines > MAX_IMPORT_ENTRIES:
            raise ImportFileError(f"The log has more than {MAX_IMPORT_ENTRIES:,} entries; an import takes at most "
                                  f"{MAX_IMPORT_ENTRIES:,}. Nothing was imported.")
        if held is not None:
            entry = _entry(*held)
            if checks.take(entry):
                yield entry
        held = (number, start, raw)
    if held is not None:
        number, start, raw = held
        if not is_whole_json(raw.removeprefix(_BOM) if number == 1 else raw):
            checks.finish()  # a bad line before a cut one is said first: a repair would not mend it
            raise CutOff(UnfinishedEnd(line=number, start=start, cut=True), checks.taken)
        entry = _entry(number, start, raw)
        if checks.take(entry):
            yield entry
    checks.finish()


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
        value = parse_log_line(number, text, last=False)
    except ImportFileError as exc:
        if isinstance(exc.__context__, RecursionError):
            raise ImportFileError(TOO_DEEP) from None
        raise
    if _deeper_than(value, MAX_IMPORT_DEPTH):
        raise ImportFileError(TOO_DEEP)
    return value


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
