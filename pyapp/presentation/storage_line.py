"""The storage line of the evaluation page: what the browser holds of the audit log, whether it has promised to
keep it, and what it may delete when it has not (DR-015).

The page measures (``navigator.storage``) and the log counts; this module only words them.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyapp.core.formatting import counted, fmt_fixed

# What each engine documents it may delete while the site's storage is not persisted (DR-015).
MAY_DELETE = {
    "webkit": "Safari deletes everything this site stores, the log with it, after 7 days of using Safari "
              "without a visit here, and clearing the site's data deletes it at once.",
    "other": "This browser may delete the log when the disk runs low, and clearing the site's data deletes it "
             "at once.",
}


@dataclass(frozen=True)
class StorageFacts:
    """What the page and the worker measured: the log's records and their bytes, ``storage.estimate()``
    (None where the browser has none), ``storage.persisted()`` (None: unknown), the date of the last export
    of the whole log (ISO, or None), the engine (``webkit`` or another) and the kept file's name, if any."""

    entries: int
    entry_bytes: int
    usage: int | None
    quota: int | None
    persisted: bool | None
    last_export: str | None
    engine: str
    kept_file: str | None


def fmt_bytes(n: int) -> str:
    """A size in bytes, kB, MB or GB (powers of 1,000, one decimal above bytes): 2_345_678 -> "2.3 MB"."""
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if n >= scale:
            return f"{fmt_fixed(n / scale, 1)} {unit}"
    return counted(n, "byte")


def storage_line(facts: StorageFacts) -> dict:
    """``text``: the log's entries and size, the space used and left, persisted or not, the last export and the
    kept file; ``warning``: one sentence on what this browser may delete, or None when the storage is persisted."""
    parts = [f"Your audit log: {counted(facts.entries, 'entry', 'entries')}, {fmt_bytes(facts.entry_bytes)}."]
    if facts.usage is not None and facts.quota:
        left = max(facts.quota - facts.usage, 0)
        parts.append(f"This site uses {fmt_bytes(facts.usage)} of this browser's storage, "
                     f"{fmt_bytes(left)} left.")
    parts.append({True: "Persisted: the browser has promised to keep it.",
                  False: "Not persisted: the browser may delete it.",
                  None: "This browser does not say whether it will keep it."}[facts.persisted])
    parts.append(f"Last export: {facts.last_export[:10]}." if facts.last_export else "Never exported.")
    if facts.kept_file:
        parts.append(f"Every entry is also written to {facts.kept_file}.")
    warning = None
    if not facts.persisted:
        warning = MAY_DELETE["webkit" if facts.engine == "webkit" else "other"]
        warning += " Export it, or keep a copy in a file you choose." if not facts.kept_file else ""
    return {"text": " ".join(parts), "warning": warning, "persisted": facts.persisted}


def kept_file_lost(name: str, reason: str) -> str:
    """Said once when the kept file ``name`` can no longer be written (``reason``, the browser's error)."""
    return (f"Your file {name} can no longer be written ({reason}); the log goes on in this browser. Choose a "
            "file again to keep a copy.")


def unstored_downloaded(count: int) -> str:
    """Said when ``count`` entries the browser could not store were handed to the visitor as a download."""
    return (f"This browser could not store {counted(count, 'entry', 'entries')}: "
            f"{'it was' if count == 1 else 'they were'} downloaded, so import that file once there is room.")
