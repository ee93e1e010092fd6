"""The SHA-256 of the files a build reads or writes, kept by each file's status between builds (DR-001).

The site holds 20 MB of files that rarely change: the Pyodide runtime and its precompiled
standard library. Hashing them for the service worker's list and reading ``dist/`` back to
compare took a third of a build with nothing changed. A kept digest stands for a file only
while its size, modification and change times, inode and device are those it had when it was
hashed, and only if its last change came at least ``SETTLED_NS`` before it was read: a write
within the same tick of the file system's clock would otherwise leave its status as it was
(Git's "racily clean" entries). The change time (ctime) cannot be set back by a program.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

SETTLED_NS = 2_000_000_000


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a file of this process's own beside it, so no reader, nor another
    build writing the same path, ever sees half of it."""
    partial = path.with_suffix(f".{os.getpid()}.part")
    partial.write_bytes(data)
    partial.replace(path)


def status(path: Path) -> list[int]:
    found = os.stat(path)
    return [found.st_size, found.st_mtime_ns, found.st_ctime_ns, found.st_ino, found.st_dev]


class KeptEntries:
    """Entries by key, read from a JSON file (an unreadable one counts as empty); ``save`` writes back only
    the entries this build used (``used``), so entries nothing asks for any more do not pile up."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.entries = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self.entries = {}
        if not isinstance(self.entries, dict):
            self.entries = {}
        self.used: dict[str, object] = {}

    def save(self) -> None:
        if self.used == self.entries:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(self.path, json.dumps(self.used).encode("utf-8"))


class FileDigests(KeptEntries):
    """Digests by absolute path, kept between builds."""

    def kept(self, path: Path, seen: list[int]) -> str | None:
        """The digest kept for ``path`` if its status ``seen`` is the one it was hashed with, long settled."""
        entry = self.entries.get(str(path))
        if (isinstance(entry, dict) and entry.get("status") == seen and isinstance(entry.get("sha256"), str)
                and isinstance(entry.get("read_at"), int) and seen[2] < entry["read_at"] - SETTLED_NS):
            self.used[str(path)] = entry
            return entry["sha256"]
        return None

    def note(self, path: Path, seen: list[int], read_at: int, digest: str) -> None:
        """Keep ``digest`` for ``path``, whose status was ``seen`` before ``read_at`` and after its bytes were read."""
        self.used[str(path)] = {"status": seen, "read_at": read_at, "sha256": digest}

    def read(self, path: Path) -> tuple[bytes, str]:
        """The bytes of ``path`` and their SHA-256 (hex), hashed only when no kept digest stands for them."""
        path = path.absolute()
        before, read_at = status(path), time.time_ns()
        data = path.read_bytes()
        after = status(path)
        digest = self.kept(path, before) if after == before else None
        if digest is None:
            digest = hashlib.sha256(data).hexdigest()
            if after == before:
                self.note(path, before, read_at, digest)
        return data, digest

    def holds(self, path: Path, data: bytes, digest: str) -> bool:
        """True when the file ``path`` holds ``data`` (whose SHA-256 is ``digest``), read only when not known."""
        path = path.absolute()
        try:
            before, read_at = status(path), time.time_ns()
        except OSError:
            return False
        if before[0] != len(data):
            return False
        kept = self.kept(path, before)
        if kept is not None:
            return kept == digest
        try:
            same = path.read_bytes() == data
        except OSError:
            return False
        if same and status(path) == before:
            self.note(path, before, read_at, digest)
        return same
