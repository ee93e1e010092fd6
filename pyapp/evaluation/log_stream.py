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

import io
from codecs import BOM_UTF8
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
from pyapp.evaluation.log_end import UnfinishedEnd, is_whole_json, last_line


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
# Lines are read in blocks of whole lines of about this many bytes (about 400 entries), each by one call of the
# reader's map, which reads the block's lines itself.
BLOCK_BYTES = 1_000_000


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

    The lines are read by ``read`` (:func:`read_line`, or a function that calls it), in blocks that ``batches``
    maps as ``map`` does: the command line passes a map that reads blocks in other processes (DR-008). The
    reads are taken in file order, so the file is refused at the same line whichever map read it. The last line
    that holds anything is read here, once the rest is: whether it is whole is asked only of the last.
    """
    size = handle.seek(0, 2)
    if size > MAX_IMPORT_CHARS:
        raise ImportFileError(too_big(size))
    last_start, last = last_line(handle, size)
    checks = EntryChecks()
    number = [1]  # the number of the line after the blocks read so far
    for reads in batches(partial(_read_block, read), _blocks(handle, last_start, number)):
        for value, problems, made in reads:
            if _take(checks, value, problems):
                yield value, made
    if last:
        if not is_whole_json(last.removeprefix(BOM_UTF8) if last_start == 0 else last):
            _room_for_one(checks)
            checks.finish()  # a bad line before a cut one is said first: a repair would not mend it
            raise CutOff(UnfinishedEnd(line=number[0], start=last_start, cut=True), checks.taken)
        value, problems, made = read(number[0], last_start, last)
        if _take(checks, value, problems):
            yield value, made
    checks.finish()


def _blocks(handle: BinaryIO, end: int, number: list[int]) -> Iterator[tuple[int, int, bytes]]:
    """The file's bytes before offset ``end`` (where a line starts) in blocks of whole lines of about
    :data:`BLOCK_BYTES`, each with the number of its first line and its first byte's offset; ``number[0]`` is
    kept the number of the line after the blocks given so far."""
    handle.seek(0)
    offset = 0
    held = b""  # the start of a line whose end is not read yet
    wanted = BLOCK_BYTES
    while offset + len(held) < end:
        data = held + handle.read(min(wanted, end - offset - len(held)))
        cut = data.rfind(b"\n") + 1
        if cut == 0:  # a line longer than a block: read on, twice as much each time, until it ends
            held, wanted = data, 2 * len(data)
            continue
        block, held, wanted = data[:cut], data[cut:], BLOCK_BYTES
        yield number[0], offset, block
        number[0] += block.count(b"\n")
        offset += cut


def _read_block(read: Callable[[int, int, bytes], Read], block: tuple[int, int, bytes]) -> list[Read]:
    """``read`` of each line of ``block`` that holds more than white space."""
    number, start, data = block
    reads = []
    for raw in io.BytesIO(data):
        if not raw.isspace():
            reads.append(read(number, start, raw))
        number += 1
        start += len(raw)
    return reads


def _take(checks: EntryChecks, value: object, problems: list[str] | None) -> bool:
    """``checks.take`` of the entry ``value``, whose ``problems`` are known; the file refused first if the line
    was (``value`` is then the refusal) or if the entry nests too deeply, as a whole file's check refuses that
    before any other. Only an invalid entry can (a valid one nests three levels at most), so a valid entry's
    nesting is never walked."""
    _room_for_one(checks)
    if isinstance(value, ImportFileError):
        raise value
    if checks.take(value, problems):
        return True
    if problems and _deeper_than(value, MAX_IMPORT_DEPTH):
        raise ImportFileError(TOO_DEEP)
    return False


def _room_for_one(checks: EntryChecks) -> None:
    """The file refused if it has an entry more than an import takes, which the next line would be."""
    if checks.taken >= MAX_IMPORT_ENTRIES:
        raise ImportFileError(f"The log has more than {MAX_IMPORT_ENTRIES:,} entries; an import takes at most "
                              f"{MAX_IMPORT_ENTRIES:,}. Nothing was imported.")


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
