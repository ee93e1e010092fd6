"""``python -m pyapp repair``: mend a log whose last line a write left unfinished, losing no byte (DR-008).

A line cut off mid-write is moved, byte for byte, to a new file beside the log (``LOG.cut-`` and the time in
UTC, never a file that exists), and the log is cut back to its last whole line; a whole last entry that
lacks only its line break gets one. The moved bytes are written and synced before the log is shortened,
so a crash during the repair leaves them in one of the two files at least. Any other problem of the log
is refused and the log is left as it is: the repair mends an unfinished end, nothing else.
"""

from __future__ import annotations

import argparse
import contextlib
import os
from datetime import UTC, datetime

from pyapp.cli.exit_status import OK, LocalIOError
from pyapp.core.formatting import counted, fmt_count
from pyapp.evaluation.export import ImportFileError, is_log, parse_import
from pyapp.evaluation.log_end import unfinished_end


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("repair", help="move a last line cut off mid-write to a file beside the log, so the log "
                                      "reads again")
    p.add_argument("log", metavar="LOG", help="a JSON-lines log written by run")
    p.set_defaults(run=run, parser=p)


def run(args: argparse.Namespace) -> int:
    path = args.log
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
    end = unfinished_end(data)
    if end is None:
        print(_nothing_to_repair(path, data))
        return OK
    line = fmt_count(end.line)
    if not end.cut:
        kept = _entries(path, data)
        _append(path, data, b"\n")
        print(f"added the line break {path} lacked after its last line (line {line}); nothing was moved, and "
              f"{path} keeps its {counted(len(kept), 'entry', 'entries')}")
        return OK
    kept = _entries(path, data[:end.start])
    moved_to = _move_tail(path, data, end.start, datetime.now(UTC))
    print(f"moved the line cut off mid-write at the end of {path} (line {line}: "
          f"{counted(len(data) - end.start, 'byte')} from byte {fmt_count(end.start)}) to {moved_to}; "
          f"{path} keeps {counted(len(kept), 'whole entry', 'whole entries')}")
    return OK


def _nothing_to_repair(path: str, data: bytes) -> str:
    """What a log that ends whole holds; ``ValueError`` for a file that is not a log, or a log that is
    bad elsewhere."""
    if not data.strip():
        return f"{path} is empty: nothing to repair"
    if not is_log(data.decode("utf-8-sig", errors="replace")):
        raise ValueError(f"{path} is not a log written by run (one entry a line); it was not changed")
    entries = _entries(path, data)
    return f"{path} ends with a whole line: nothing to repair ({counted(len(entries), 'entry', 'entries')})"


def _entries(path: str, whole_lines: bytes) -> list[dict]:
    """The entries of the part of log ``path`` a repair keeps; ``ValueError`` when they would not read."""
    if not whole_lines.strip():
        return []
    try:
        return parse_import(whole_lines)
    except ImportFileError as exc:
        raise ValueError(f"{path} was not changed, as a repair mends only a last line a write left unfinished: "
                         f"{exc}") from None


def _move_tail(path: str, data: bytes, start: int, now: datetime) -> str:
    """Write ``data[start:]`` to a new file beside log ``path`` and sync it, then cut the log back to ``start``
    bytes and sync it; the new file's name. ``LocalIOError`` when a step fails, saying what was kept where."""
    log = _open_unchanged(path, len(data))
    try:
        fd, name = _create_beside(path, now)
        try:
            _write_all(fd, data[start:])
            os.fsync(fd)
        except OSError as exc:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.remove(name)
            raise LocalIOError(f"cannot write {name}: {exc.strerror or exc}; {path} was not changed") from None
        os.close(fd)
        _sync_folder(name)
        try:
            os.ftruncate(log, start)
            os.fsync(log)
        except OSError as exc:
            raise LocalIOError(f"cannot cut {path} back to its whole lines: {exc.strerror or exc}; its cut line is "
                               f"kept in {name} too") from None
    finally:
        os.close(log)
    return name


def _append(path: str, data: bytes, more: bytes) -> None:
    """Append ``more`` to log ``path`` (read as ``data``) and sync it."""
    fd = _open_unchanged(path, len(data))
    try:
        os.lseek(fd, 0, os.SEEK_END)
        _write_all(fd, more)
        os.fsync(fd)
    except OSError as exc:
        raise LocalIOError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def _open_unchanged(path: str, size: int) -> int:
    """Log ``path`` opened for writing, after checking it still has the ``size`` bytes that were read."""
    try:
        fd = os.open(path, os.O_RDWR)
    except OSError as exc:
        raise LocalIOError(f"cannot write {path}: {exc.strerror or exc}; it was not changed") from None
    if os.fstat(fd).st_size != size:
        os.close(fd)
        raise ValueError(f"{path} changed while it was read (is a run writing to it?); it was not changed")
    return fd


def _create_beside(path: str, now: datetime) -> tuple[int, str]:
    """A new file beside ``path``, named after it and ``now``, opened for writing; never a file that exists."""
    stem = f"{path}.cut-{now:%Y%m%dT%H%M%SZ}"
    number = 1
    while True:
        name = stem if number == 1 else f"{stem}-{number}"
        try:
            return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644), name
        except FileExistsError:
            number += 1
        except OSError as exc:
            raise LocalIOError(f"cannot write {name}: {exc.strerror or exc}; {path} was not changed") from None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _sync_folder(path: str) -> None:
    """Sync the folder of the new file ``path``, so that its name lasts before the log is shortened. Where a
    folder cannot be opened (Windows), the file system keeps names by itself."""
    with contextlib.suppress(OSError):
        fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
