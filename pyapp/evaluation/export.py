"""Export of evaluation runs as JSON and CSV, and import of a JSON export back into the log (DR-006).

A JSON export is one object::

    {"format": "kd-tree-explorer-audit", "format_version": 1, "eval_set_version": "explain-eval-v2",
     "run_id": "<the run>" or null for all runs, "entries": [audit entries, one per line]}

The entries are the audit log's own (``pyapp.auditlog.entries``): every call carries its
prompt version, prompt hash and request settings, and no entry has a field that
could hold the API key. Exporting one run takes its calls, its cancel entries
and the decisions, rubric ratings and model judges' verdicts on its calls; exporting all runs takes
those of every run. The explorer's own calls (no run) are exported on their
own, with the decisions and ratings on them, from the explorer page. Every
export holds the visitor's own cases, which a run of their set is rebuilt from.

:func:`parse_import` checks a file completely before anything is used, and
:func:`merge` returns only what is new, so a bad file changes nothing. The
command line reads exports through the same two steps as the page.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable

from pyapp.auditlog.validation import valid_id, validate_entry
from pyapp.core import strict_json
from pyapp.core.formatting import fmt_fixed
from pyapp.core.jsontypes import hostile_values, is_int, shown
from pyapp.core.vocabulary import CaseStatus, EntryType
from pyapp.evaluation.entry_checks import ON_A_CALL, EntryChecks, ImportFileError
from pyapp.evaluation.evalset import EVAL_SET_VERSION, SET_VERSIONS, is_own_set
from pyapp.evaluation.rebuild import rebuild

EXPORT_FORMAT = 1
EXPORT_NAME = "kd-tree-explorer-audit"
EXPORT_KEYS = ("format", "format_version", "eval_set_version", "run_id", "entries")

# Bounds for an imported file: far above what a visitor's log reaches (a run is
# about twenty entries of a few kB), far below what would stall the page.
MAX_IMPORT_CHARS = 300_000_000
MAX_IMPORT_ENTRIES = 200_000
# An export nests four deep (file, entries, entry, settings); anything much deeper is hostile.
MAX_IMPORT_DEPTH = 8
# A log's first line is read alone to tell a log from an export; an entry is at most a few MB.
MAX_LOG_LINE_PROBE = 8_000_000

CSV_COLUMNS = (
    "run_id", "case_id", "entry_id", "time", "eval_set_version", "prompt_version", "prompt_hash",
    "provider", "model", "max_tokens", "temperature", "base_url", "status", "stop", "input_tokens",
    "output_tokens", "answer_ms", "total_ms", "retries", "logged_outcome", "error", "counted_as",
    "graded_outcome", "failure", "failed_checks", "message", "answer",
)
TOO_DEEP = (f"The file nests lists or objects more than {MAX_IMPORT_DEPTH} deep, which an export never does; "
            "nothing was imported.")
UTF8_ONLY = ("The file is not UTF-8 text; an export is always UTF-8 (with or without a byte order mark). "
             "Nothing was imported.")
# A spreadsheet runs a cell starting with one of these as a formula.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


# --------------------------------------------------------------------------- export


def select_entries(entries: Iterable[dict], run_id: str | None = None, *, explorer: bool = False) -> list[dict]:
    """The valid entries of one run (or every run) in log order: calls, cancels, and the decisions, ratings and
    judgements on its calls.

    Every export holds the visitor's own cases (``own_case`` entries). Every run's export holds the plans
    too (they compare configurations, not one run).
    With ``explorer`` the explorer's own calls (no run) and the decisions and ratings on them
    instead. ``ValueError`` when ``run_id`` names no run in the log.
    """
    valid = [e for e in entries if not validate_entry(e)]
    if explorer:
        in_scope = [e for e in valid if e["type"] == EntryType.CALL and e["run_id"] is None]
    else:
        in_scope = [e for e in valid if e["type"] in (EntryType.CALL, EntryType.CANCEL) and e["run_id"] is not None
                    and (run_id is None or e["run_id"] == run_id)]
        if run_id is None:
            in_scope += [e for e in valid if e["type"] == EntryType.PLAN]
        if run_id is not None and not in_scope:
            raise ValueError(f"no run {run_id!r} in the audit log")
    calls = {e["id"] for e in in_scope if e["type"] == EntryType.CALL}
    chosen = {e["id"] for e in in_scope}
    # The visitor's own cases go with every export: a run of an own set is rebuilt from them
    # (pyapp.evaluation.own_cases).
    return [e for e in valid if e["id"] in chosen or e["type"] == EntryType.OWN_CASE
            or (e["type"] in ON_A_CALL and e["call_id"] in calls)]


def export_json(entries: Iterable[dict], run_id: str | None = None, *, explorer: bool = False) -> str:
    """A JSON export of one run, every run, or the explorer's calls (module doc), one entry per line."""
    chosen = select_entries(entries, run_id, explorer=explorer)
    # One run's export names that run's set (pyapp.evaluation.runs, rule 1); a file of many runs, the default set.
    known = (e["eval_set_version"] for e in chosen
             if e["type"] == EntryType.CALL and (e["eval_set_version"] in SET_VERSIONS
                                                 or is_own_set(e["eval_set_version"])))
    version = EVAL_SET_VERSION if run_id is None else next(known, EVAL_SET_VERSION)
    head = {"format": EXPORT_NAME, "format_version": EXPORT_FORMAT, "eval_set_version": version,
            "run_id": run_id}
    opening = json.dumps(head, ensure_ascii=False)[:-1] + ', "entries": ['
    lines = ",\n".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in chosen)
    return opening + ("\n" + lines + "\n" if lines else "") + "]}\n"


def _cell(value: object, text: bool = False) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    out = str(value)
    if text and out.startswith(_FORMULA_START):
        out = "'" + out  # shown as text, never run as a formula
    return out


def _ms_cell(value: float | None) -> str:
    """A latency to a tenth of a millisecond, half up (DR-006): the clock's float noise is not data."""
    return "" if value is None else fmt_fixed(value, 1)


def export_csv(entries: Iterable[dict], run_id: str | None = None) -> str:
    """One row per call of one run (or every run), columns ``CSV_COLUMNS``, calls in time order.

    ``counted_as`` says what the call is in the rebuilt run: counted, repeat,
    stale_input, infrastructure_failure or cancelled; ``graded_outcome`` and
    ``failed_checks`` are today's grade of a counted answer. ``answer_ms`` and
    ``total_ms`` have one decimal, rounded half up (131.49999999999818 -> 131.5);
    the JSON export keeps the logged values. Text cells that a spreadsheet would
    run as a formula start with an apostrophe.
    """
    chosen = select_entries(entries, run_id)
    role: dict[str, tuple[str, object]] = {}
    for run in rebuild(chosen, validated=True):
        for result in run.cases:
            if result.status == CaseStatus.GRADED:
                role[result.entry_id] = ("counted", result.grade)
        for name, notes in (("repeat", run.repeats), (CaseStatus.STALE, run.stale),
                            (CaseStatus.INFRA_FAILURE, run.infrastructure_failures),
                            (CaseStatus.CANCELLED, run.cancelled)):
            for note in notes:
                role[note.entry_id] = (name, None)
    calls = sorted((e for e in chosen if e["type"] == EntryType.CALL), key=lambda e: (e["run_id"], e["time"]))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for e in calls:
        counted_as, grade = role.get(e["id"], ("", None))
        s = e["settings"]
        writer.writerow([
            _cell(e["run_id"], True), _cell(e["case_id"], True), _cell(e["id"], True), _cell(e["time"]),
            _cell(e["eval_set_version"], True), _cell(e["prompt_version"], True), _cell(e["prompt_hash"]),
            _cell(s["provider"], True), _cell(s["model"], True), _cell(s["max_tokens"]),
            _cell(s["temperature"]),
            _cell(s["base_url"], True), _cell(e["status"]), _cell(e["stop"]), _cell(e["input_tokens"]),
            _cell(e["output_tokens"]), _ms_cell(e["answer_ms"]), _ms_cell(e["total_ms"]), _cell(e["retries"]),
            _cell(e["outcome"]), _cell(e["error"]), counted_as,
            "" if grade is None else grade.outcome,
            _cell(grade.failure if grade is not None else e["failure"], True),
            "" if grade is None else " ".join(grade.failed_checks),
            _cell(e["message"], True), _cell(e["answer"], True),
        ])
    return out.getvalue()


# --------------------------------------------------------------------------- the JSON-lines log


def log_line(entry: dict) -> str:
    """One entry as a line of a JSON-lines log: compact JSON, then a line break."""
    return json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n"


def is_log(text: str) -> bool:
    """True when the first line is one audit entry on its own (an export's first line never is)."""
    first = text.lstrip().split("\n", 1)[0]
    if len(first) > MAX_LOG_LINE_PROBE:
        return False
    try:
        doc = strict_json.loads(first, MAX_IMPORT_DEPTH)
    except (ValueError, RecursionError):
        return False
    return isinstance(doc, dict) and doc.get("format") != EXPORT_NAME and "type" in doc


def _log_entries(text: str) -> list:
    """The entries of log ``text``, whose nesting :func:`parse_import` has bounded: each line is parsed after
    whole ones only (the first that is not stops the reading), so no line nests deeper than the text does."""
    lines = [(number, line) for number, line in enumerate(text.split("\n"), 1) if line.strip()]
    if len(lines) > MAX_IMPORT_ENTRIES:
        raise ImportFileError(
            f"The log has {len(lines):,} entries; an import takes at most {MAX_IMPORT_ENTRIES:,}. "
            "Nothing was imported."
        )
    return [parse_log_line(number, line, last=position == len(lines) - 1)
            for position, (number, line) in enumerate(lines)]


def parse_log_line(number: int, line: str, *, last: bool) -> object:
    """The JSON value of line ``number`` of a log, whose nesting the caller has bounded; ``ImportFileError``
    naming the line when it is not JSON, and saying it was cut off mid-write when it is the ``last`` and stops
    before its value ends."""
    try:
        return strict_json.loads(line, max_depth=None)
    except json.JSONDecodeError as exc:
        if last and exc.pos >= len(line.rstrip()):
            raise ImportFileError(
                f"Line {number}, the last, is cut off (the log was written until it stopped, mid-entry), "
                "so nothing was imported. Remove that line to import the rest."
            ) from None
        raise _not_json(f"Line {number} of the log", f"{exc.msg} at column {exc.colno}") from None
    except (ValueError, RecursionError) as exc:
        raise _not_json(f"Line {number} of the log", shown(str(exc), 200)) from None


# --------------------------------------------------------------------------- import


def _load(text: str) -> object:
    """The export ``text``, parsed; :func:`parse_import` has bounded its nesting."""
    try:
        return strict_json.loads(text, max_depth=None)
    except json.JSONDecodeError as exc:
        # The text ran out inside a value, or inside a string (JSON strings cannot hold a raw line break).
        if exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string"):
            raise ImportFileError(
                "The file ends too early: it is cut off (truncated), so nothing was imported. "
                "Export it again and import the complete file."
            ) from None
        raise _not_json("The file", f"{exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except (ValueError, RecursionError) as exc:
        raise _not_json("The file", shown(str(exc), 200)) from None


def _not_json(what: str, reason: str) -> ImportFileError:
    """``what`` (the file, or one line of a log) does not parse as JSON, for ``reason``: nothing is imported."""
    return ImportFileError(f"{what} is not valid JSON ({reason}); nothing was imported.")


def _check_head(doc: object) -> list:
    if not isinstance(doc, dict) or doc.get("format") != EXPORT_NAME:
        raise ImportFileError(
            "This is not an evaluation export of this site: it needs \"format\": "
            f"\"{EXPORT_NAME}\". Nothing was imported."
        )
    version = doc.get("format_version")
    if not is_int(version):
        raise ImportFileError("The export has no whole-number format_version; nothing was imported.")
    if not 0 <= version <= 1_000:  # never echo a number of thousands of digits
        raise ImportFileError("The export's format_version is not one this site knows; nothing was imported.")
    if version > EXPORT_FORMAT:
        raise ImportFileError(
            f"The export is format {version}, made by a newer version of the site; this one reads format "
            f"{EXPORT_FORMAT}. Nothing was imported."
        )
    if version != EXPORT_FORMAT:
        raise ImportFileError(
            f"The export is format {version}; this site reads format {EXPORT_FORMAT}. Nothing was imported."
        )
    unknown = sorted(str(k)[:40] for k in doc if k not in EXPORT_KEYS)
    missing = [k for k in EXPORT_KEYS if k not in doc]
    if unknown or missing:
        parts = ([f"unknown fields {', '.join(unknown)}"] if unknown else []) + (
            [f"missing fields {', '.join(missing)}"] if missing else [])
        raise ImportFileError(f"The export has {' and '.join(parts)}; nothing was imported.")
    if not isinstance(doc["eval_set_version"], str) or hostile_values(doc["eval_set_version"]):
        raise ImportFileError("The export's eval_set_version must be text; nothing was imported.")
    run_id = doc["run_id"]
    if run_id is not None and not valid_id(run_id):
        raise ImportFileError("The export's run_id is not a valid run id; nothing was imported.")
    entries = doc["entries"]
    if not isinstance(entries, list):
        raise ImportFileError("The export's entries must be a list; nothing was imported.")
    if len(entries) > MAX_IMPORT_ENTRIES:
        raise ImportFileError(
            f"The export has {len(entries):,} entries; an import takes at most {MAX_IMPORT_ENTRIES:,}. "
            "Nothing was imported."
        )
    return entries


def parse_import(text: str | bytes) -> list[dict]:
    """The entries of a JSON export or a JSON-lines log after full validation; ``ImportFileError`` if not.

    Checks, in order: text (UTF-8 only, an optional byte order mark; the page and the
    command line both pass the file's bytes), size, nesting depth (before parsing, so a hostile
    file cannot exhaust the parser's stack), strict JSON (no NaN, no repeated keys),
    the export's own fields and version, the entry count, every entry against
    :func:`pyapp.auditlog.entries.validate_entry`, unique entry ids, and, for a one-run export,
    that every entry belongs to that run. A log (module doc) is an export of every run
    without the export's own fields.
    """
    if isinstance(text, (bytes, bytearray)):
        if len(text) > MAX_IMPORT_CHARS:
            raise ImportFileError(too_big(len(text)))
        # A JSON text never holds a NUL byte; UTF-16 and UTF-32 text of ASCII characters is full of them.
        if b"\x00" in text:
            raise ImportFileError(UTF8_ONLY)
        try:
            text = bytes(text).decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ImportFileError(UTF8_ONLY) from None
    if not isinstance(text, str):
        raise ImportFileError("The import needs the text of a JSON export; nothing was imported.")
    if len(text) > MAX_IMPORT_CHARS:
        raise ImportFileError(too_big(len(text)))
    if not text.strip():
        raise ImportFileError("The file is empty; nothing was imported.")
    if strict_json.nesting_exceeds(text, MAX_IMPORT_DEPTH):
        raise ImportFileError(TOO_DEEP)
    text = text.removeprefix("\ufeff")
    if is_log(text):
        entries, run_id = _log_entries(text), None
    else:
        doc = _load(text)
        entries, run_id = _check_head(doc), doc["run_id"]
    checks = EntryChecks(run_id)
    for entry in entries:
        checks.take(entry)
    checks.finish()
    return entries


def too_big(size: int) -> str:
    return (f"The file is {size / 1e6:,.1f} MB; an import takes at most {MAX_IMPORT_CHARS / 1e6:,.0f} MB. "
            "Nothing was imported.")


def merge(existing: Iterable[object], imported: list[dict]) -> list[dict]:
    """The imported entries that are not in ``existing`` yet, in file order: what to append to the log.

    An entry whose id is already in the log with the same content is skipped; with
    different content it is an ``ImportFileError`` and nothing is appended.
    """
    by_id = {e["id"]: e for e in existing if isinstance(e, dict) and isinstance(e.get("id"), str)}
    new = []
    for entry in imported:
        old = by_id.get(entry["id"])
        if old is None:
            new.append(entry)
            by_id[entry["id"]] = entry
        elif old != entry:
            raise ImportFileError(
                f"Entry {entry['id']} is already in the audit log with different content; the log is "
                "append-only, so nothing was imported."
            )
    return new
