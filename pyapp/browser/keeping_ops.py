"""Operations that keep the audit log beyond the browser's storage (DR-015): the storage line, a finished run's
entries as a JSON-lines download, and a file the visitor chose that every entry is written to.

Every file made here is the JSON-lines log ``python -m pyapp run`` writes (``pyapp.evaluation.export.log_line``),
so the command line reads it and the page's import merges it back, skipping the entries it holds.
"""

from __future__ import annotations

import json

from pyapp.browser import log_cache, opening_view
from pyapp.browser.dispatch import op
from pyapp.browser.log_cache import over_the_log, read_entries


def lines_of(entries: list[dict]) -> str:
    """``entries`` as a JSON-lines log, one entry a line."""
    from pyapp.evaluation.export import log_line

    return "".join(log_line(entry) for entry in entries)


def ids_in(kept: bytes) -> set[str]:
    """The entry ids a kept file holds. Read leniently: a line that is not an entry of this site is passed over,
    since the file is the visitor's and only its missing entries are wanted."""
    ids = set()
    for line in kept.decode("utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("id"), str):
            ids.add(entry["id"])
    return ids


def is_log_of_this_site(kept: bytes) -> bool:
    """Whether a file may take the log's lines: empty, or its first line that is not blank is an audit entry."""
    from pyapp.auditlog.validation import validate_entry

    for line in kept.removeprefix(b"\xef\xbb\xbf").split(b"\n"):
        if line.strip():
            try:
                entry = json.loads(line)
            except ValueError:
                return False
            return isinstance(entry, dict) and not validate_entry(entry)
    return True


@op
@over_the_log
async def storage_line(usage: int | None, quota: int | None, persisted: bool | None, last_export: str | None,
                       engine: str, kept_file: str | None) -> dict:
    """The storage line (``pyapp.presentation.storage_line``) with the records the store holds and their size
    as JSON lines, which the log's read keeps summed; while nothing is read, from the kept opening view if the
    log is as it was then, so opening a view with the line reads nothing more (DR-013)."""
    from pyapp.presentation.storage_line import StorageFacts
    from pyapp.presentation.storage_line import storage_line as line

    size = None if log_cache.LOG.restored else await opening_view.VIEW.kept_size()  # nothing read yet
    if size is None:
        log = await log_cache.LOG.refresh()
        if log.text_bytes is None:  # started from a checkpoint, which keeps no texts: serialised once, then kept
            log.text_bytes = len(lines_of(log.entries).encode())
        size = (len(log.entries) + log.corrupt, log.text_bytes)
    return line(StorageFacts(entries=size[0], entry_bytes=size[1], usage=usage, quota=quota, persisted=persisted,
                             last_export=last_export, engine=engine, kept_file=kept_file))


@op
@over_the_log
async def run_lines(run_ids: list[str]) -> dict:
    """The entries of the runs ``run_ids`` as an export of each takes them, as one JSON-lines log: ``text`` and
    the number of ``entries``."""
    from pyapp.evaluation.export import select_entries

    entries, _ = await read_entries()
    chosen = {entry["id"] for run_id in run_ids for entry in select_entries(entries, run_id)}
    kept = [entry for entry in entries if entry["id"] in chosen]
    return {"text": lines_of(kept), "entries": len(kept)}


@op
@over_the_log
async def keep_in_file() -> dict:
    """Start writing every entry to the file the page chose (its handle is in the worker's keeping store): first
    what the log holds that the file lacks, then each entry as it is logged. Answers the file's ``name`` and how
    many entries were ``written`` now."""
    from kdt_log_keeping import kept_bytes, start

    from pyapp.core.formatting import counted

    try:
        kept = (await kept_bytes()).to_bytes()
    except Exception as exc:
        raise RuntimeError(f"The file could not be read ({_reason(exc)}); nothing was written to it.") from None
    if not is_log_of_this_site(kept):
        raise RuntimeError("The file you chose is not a log of this site (its first line is not an audit entry), "
                           "so nothing was written to it; the log is kept in this browser as before.")
    there = ids_in(kept)
    entries, _ = await read_entries()
    missing = [entry for entry in entries if entry["id"] not in there]
    # A last line without its line break is ended first, as ``repair`` would, so no entry joins it.
    text = ("\n" if kept and not kept.endswith(b"\n") else "") + lines_of(missing)
    try:
        name = await start(text)
    except Exception as exc:
        raise RuntimeError(f"The file could not be written ({_reason(exc)}); the log is kept in this browser "
                           "as before.") from None
    return {"name": name, "written": len(missing),
            "text": f"Every entry is now also written to {name} as it is logged "
                    f"({counted(len(missing), 'entry', 'entries')} written to it just now)."}


@op
def kept_file_lost(name: str, reason: str) -> str:
    """What the page says once when the kept file ``name`` could no longer be written (``reason``)."""
    from pyapp.presentation.storage_line import kept_file_lost as said

    return said(name, reason)


def _reason(exc: Exception) -> str:
    return str(exc).removeprefix("Error: ").strip().split("\n")[-1]
