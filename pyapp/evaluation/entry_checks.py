"""What an import checks of each entry once it is parsed (:func:`pyapp.evaluation.export.parse_import`), entry by
entry, so that a log read a line at a time (:mod:`pyapp.evaluation.log_stream`) is checked as the same file read
whole."""

from __future__ import annotations

from pyapp.auditlog.validation import valid_id, validate_entry
from pyapp.core.vocabulary import EntryType

MAX_PROBLEMS_SHOWN = 3
# Entries that say something about an earlier call and belong wherever that call goes.
ON_A_CALL = (EntryType.DECISION, EntryType.RATING, EntryType.JUDGEMENT)


class ImportFileError(ValueError):
    """A file that cannot be imported; the message says why in words a visitor can act on, and that
    nothing was imported, so the page and the command line show it as it is."""


class EntryChecks:
    """The import's checks of each entry, fed the entries in file order.

    ``take`` checks one entry; ``finish`` raises what a whole file's check would have raised first: the invalid
    entries (counted, the first few named), else an id repeated, else an entry that names a call not in the
    file or, in a one-run export (``run_id``), another run. A log read a line at a time
    (:mod:`pyapp.evaluation.log_stream`) is so refused exactly as the same file read whole.
    """

    def __init__(self, run_id: str | None = None) -> None:
        self.run_id = run_id
        self.taken = 0
        self.invalid = 0  # entries that are not valid audit entries
        self._shown: list[str] = []
        self._seen: set[str] = set()
        self._repeated: str | None = None
        self._calls: set[str] = set()
        self._on_a_call: list[tuple[int, str, str, str]] = []  # index, label, type, the call's id
        self._other_run: tuple[int, str] | None = None  # the first entry of another run, and why

    def take(self, entry: object, problems: list[str] | None = None) -> bool:
        """Check ``entry``, the next of the file (its ``problems`` as an audit entry, when they are known); True
        when it is valid and nothing before it was not."""
        index = self.taken
        self.taken += 1
        if problems is None:
            problems = validate_entry(entry)
        if problems:
            self.invalid += 1
            if len(self._shown) < MAX_PROBLEMS_SHOWN:
                self._shown.append(f"{_label(index, entry)}: {'; '.join(problems)}")
            return False
        if self.invalid or self._repeated is not None:
            return False
        if entry["id"] in self._seen:
            self._repeated = _label(index, entry)
            return False
        self._seen.add(entry["id"])
        kind = entry["type"]
        if kind == EntryType.CALL:
            self._calls.add(entry["id"])
        if kind in ON_A_CALL:
            self._on_a_call.append((index, _label(index, entry), kind, entry["call_id"]))
        elif (kind not in (EntryType.PLAN, EntryType.OWN_CASE) and self.run_id is not None
              and entry["run_id"] != self.run_id and self._other_run is None):
            where = "outside any run" if entry["run_id"] is None else f"of run {entry['run_id']}"
            self._other_run = (index, f"{_label(index, entry)} is {where}, but the export holds run "
                                      f"{self.run_id} only; nothing was imported.")
        return True

    def finish(self) -> None:
        """``ImportFileError`` for the first thing wrong with the entries taken (class doc); nothing if none."""
        if self.invalid:
            raise ImportFileError(
                f"{self.invalid} of {self.taken} entries are not valid audit entries, so nothing was imported. "
                + " | ".join(self._shown)
            )
        if self._repeated is not None:
            raise ImportFileError(f"{self._repeated} repeats an id used earlier in the file; nothing was imported.")
        stray = next((item for item in self._on_a_call if item[3] not in self._calls), None)
        found = [found for found in (
            None if stray is None else (stray[0], f"{stray[1]} is a {stray[2]} on a call that is not in the file; "
                                                  "nothing was imported."),
            self._other_run) if found is not None]
        if found:
            raise ImportFileError(min(found)[1])


def _label(index: int, entry: object) -> str:
    ident = entry.get("id") if isinstance(entry, dict) else None
    shown = f" (id {ident})" if isinstance(ident, str) and valid_id(ident) else ""
    return f"entry {index + 1}{shown}"
