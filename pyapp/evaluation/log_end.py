"""The end of a JSON-lines log that a write left unfinished (DR-008): where its whole lines stop.

``run`` writes each entry and its line break in one write, so a write that stops partway (a crash, a
power cut) leaves the log's last line unfinished and every line before it whole. Two ends are told
apart, both from the file's bytes alone, so the command line and the page can say the same:

- a line **cut off** mid-write: the last line that holds anything but white space is not a whole
  JSON text (its syntax stops or breaks; a character cut in two or the zero bytes a file system
  leaves after a crash count too), with or without a line break after it;
- a whole entry that **lacks its line break**: the last line is a whole JSON text and the file does
  not end with a line break. Its bytes are all there (an entry's closing brace is its last
  character), but an entry appended after it would join it on one line.

Only the last line is looked at: a bad line before it is the reader's own error, never a cut.
"""

from __future__ import annotations

import json
import re
from codecs import BOM_UTF8
from dataclasses import dataclass
from typing import BinaryIO

from pyapp.core import strict_json
from pyapp.evaluation.export import MAX_IMPORT_DEPTH, MAX_LOG_LINE_PROBE, is_log

_SPACE = b" \t\r\n\x0b\x0c"  # what bytes.strip() strips
_LEADING_SPACE = re.compile(rb"[ \t\r\n\x0b\x0c]*")
_TAIL_BLOCK = 65_536  # bytes read from a log's end to find its last line, four times more until it is found
# How every entry's line starts (``pyapp.auditlog.entries`` puts the format first); an export's first
# line has a space after the colon. Tells a log whose only line is cut from any other file.
_ENTRY_START = re.compile(rb'\{"format":[0-9]')


@dataclass(frozen=True)
class UnfinishedEnd:
    """The last line of a log that a write left unfinished."""

    line: int  # its number, counted from 1 as an editor does
    start: int  # the offset of its first byte: every byte before it belongs to a whole line
    cut: bool  # True: cut off inside its entry; False: a whole entry that lacks only its line break


def unfinished_end(data: bytes) -> UnfinishedEnd | None:
    """How the log ``data`` (a file's bytes) ends when a write left it unfinished (module doc); None when its
    last line is whole and a line break ends the file, when it holds nothing, or when it is not a log."""
    end = len(data)
    while end and data[end - 1] in _SPACE:
        end -= 1
    if end == 0:
        return None
    start = data.rfind(b"\n", 0, end) + 1
    first = _LEADING_SPACE.match(data, len(BOM_UTF8) if data.startswith(BOM_UTF8) else 0).end()
    only_line = first >= start
    # A log is told by its first line before the last is parsed, so an export on one long line is never parsed here.
    if not (_ENTRY_START.match(data, first) if only_line else is_log(_text(data[first:data.find(b"\n", first)]))):
        return None
    whole = is_whole_json(data[max(start, first):end])
    if whole and only_line and not is_log(_text(data[first:end])):
        return None
    if whole and data.endswith(b"\n"):
        return None
    return UnfinishedEnd(line=data.count(b"\n", 0, start) + 1, start=start, cut=not whole)


def ends_whole(handle: BinaryIO) -> bool:
    """True when the log open in ``handle`` (binary) starts with a whole entry on its own line and ends with a
    whole last line and its line break, told from those two lines alone; then :func:`unfinished_end` finds
    nothing. False means only that the whole file must be read to say what, if anything, is wrong with it.
    Leaves the handle at the file's start."""
    try:
        return _ends_whole(handle)
    finally:
        handle.seek(0)


def _ends_whole(handle: BinaryIO) -> bool:
    size = handle.seek(0, 2)
    handle.seek(0)
    first = handle.readline(MAX_LOG_LINE_PROBE + 1)
    if not first.endswith(b"\n") or not is_log(_text(first.removeprefix(BOM_UTF8))):
        return False
    _, line = last_line(handle, size)
    handle.seek(size - 1)
    return handle.read(1) == b"\n" and is_whole_json(line.rstrip(_SPACE))


def last_line(handle: BinaryIO, size: int) -> tuple[int, bytes]:
    """The offset and the bytes (with its line break, if it has one) of the last line of the file open in
    ``handle``, of ``size`` bytes, that holds anything but white space, read from the end in growing blocks;
    ``(size, b"")`` when no line does. Leaves the handle anywhere."""
    block = _TAIL_BLOCK
    while True:
        start = max(0, size - block)
        handle.seek(start)
        tail = handle.read(size - start)
        end = len(tail.rstrip(_SPACE))
        line_start = tail.rfind(b"\n", 0, end) + 1
        if line_start or start == 0:
            if end == 0 and start == 0:
                return size, b""
            line_end = tail.find(b"\n", end) + 1 or len(tail)
            return start + line_start, tail[line_start:line_end]
        block *= 4


def is_whole_json(line: bytes) -> bool:
    """False when ``line`` stops or breaks before its JSON text ends; a whole text refused for another reason
    (a key twice, too deep) is whole here, and its reader says what is wrong with it."""
    try:
        strict_json.loads(_text(line), MAX_IMPORT_DEPTH)
    except json.JSONDecodeError:
        return False
    except (ValueError, RecursionError):
        return True
    return True


def _text(line: bytes) -> str:
    # A character cut in two decodes to U+FFFD, which breaks the JSON it ends: the cut is found there.
    return line.decode("utf-8", errors="replace")
