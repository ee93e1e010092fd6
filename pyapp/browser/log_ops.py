"""Operations on the audit log as a whole: the list of calls, export and import (DR-006)."""

from __future__ import annotations

from pyapp.browser.dispatch import op
from pyapp.browser.log_cache import append_entries, grade_ahead, over_the_log, read_entries
from pyapp.core.vocabulary import EntryType


@op
@over_the_log
async def audit_log() -> dict:
    """The calls in the log, newest first, without their answer texts (the list shows no answers)."""
    from pyapp.core.formatting import fmt_whole

    entries, corrupt = await read_entries()
    calls = [{**{key: value for key, value in entry.items() if key != "answer"},
              "answer_ms_text": "–" if entry["answer_ms"] is None else fmt_whole(entry["answer_ms"]),
              "total_ms_text": fmt_whole(entry["total_ms"])}
             for entry in reversed(entries) if entry["type"] == EntryType.CALL]
    return {"calls": calls, "corrupt": corrupt}


@op
@over_the_log
async def export_audit(format: str, run_id: str | None = None, explorer: bool = False) -> str:  # noqa: A002
    from pyapp.evaluation.export import export_csv, export_json

    entries, _ = await read_entries()
    if format == "json":
        return export_json(entries, run_id, explorer=explorer)
    return export_csv(entries, run_id)


@op
@over_the_log
async def import_audit(file: bytes) -> dict:
    """Import a JSON export or a JSON-lines log from the file's bytes, which Python decodes as the command line does.

    Every entry is checked before anything is written, and the entries are written in one
    transaction: a refused file appends nothing. Every refusal says so, in the command line's words.
    """
    from pyapp.evaluation.export import merge, parse_import

    imported = parse_import(file)
    new = merge((await read_entries())[0], imported)
    if new:  # a refused write says that nothing was imported (pyapp.browser.worker_io.unstored_sentence)
        await append_entries(new, while_stored=lambda: grade_ahead(new), from_file=True)
    return {"added": len(new), "skipped": len(imported) - len(new)}
