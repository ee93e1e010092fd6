"""The audit log as the worker has read it, kept between operations, and the worker's one grader (DR-006)."""

from __future__ import annotations

import functools
import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from pyapp.browser.worker_io import read_from, start_append

if TYPE_CHECKING:  # the domain modules are imported by the operations that use them
    from pyapp.evaluation.evalset import CaseSets


class LogCache:
    """The audit log as this worker has read it: parsed and validated once (DR-006).

    Every read asks the store for the records from the last one seen on, so the worker's
    own appends and another tab's are both picked up without reading the rest again. If
    the last record seen is no longer there as it was (the site's storage was cleared,
    or the log's end removed), the log is read again from the start. The store is never
    asked how many records it holds: IndexedDB counts them one by one, 330 to 440 ms at
    100,000 records, and the site only ever appends. The runs index is fed the same way.
    A new worker starts from the checkpoint an earlier one kept (``pyapp.auditlog.checkpoint``)
    and reads only the records stored since, checked the same way. The entries keep one copy of
    each value they repeat (``pyapp.auditlog.shared_values``), and so does the checkpoint.
    """

    def __init__(self) -> None:
        self.reset()
        self.restored = False  # whether the first read has looked for a checkpoint

    def reset(self) -> None:
        self.entries: list[dict] = []
        self.corrupt = 0
        self.last: list = [0, None]  # the last record read: [sequence number, its text]
        self.records = 0
        self.checkpointed = (0, 0)  # records and outcomes in the checkpoint last restored or kept
        self.index = None  # a pyapp.evaluation.rebuild.RunIndex, made on first use
        self.shared = None  # a pyapp.auditlog.shared_values.SharedValues, made on first read
        # The stored texts' bytes as JSON lines, summed as they are read or appended (the storage line, DR-015);
        # None after a checkpoint is restored, which keeps the entries but not their texts.
        self.text_bytes: int | None = 0

    async def refresh(self) -> LogCache:
        if not self.restored:
            self.restored = True
            await self._restore()
        last = self.last
        reading = read_from(last[0], BLOCK)
        while reading is not None:
            rows = await reading
            if self.last is not last:  # another read, or this worker's append, took records meanwhile
                last = self.last
                reading = read_from(last[0], BLOCK)
                continue
            if last[0]:
                if not rows or rows[0] != last:  # the store was cleared, or its end removed: read it all again
                    self.reset()
                    last = self.last
                    reading = read_from(0, BLOCK)
                    continue
            # The next block is asked for before this one is taken: the browser reads it meanwhile.
            reading = read_from(rows[-1][0], BLOCK) if len(rows) == BLOCK else None
            if last[0]:
                rows = rows[1:]
            self._take(rows)
            self.records += len(rows)
            last = self.last
        return self

    def took(self, texts: list[str], written: dict) -> None:
        """Take the worker's own appended entries (their ``texts``) as read, without reading them back or
        checking them again, when nothing else was stored since this read: the store gave the first of them
        (``written``, its answer to the append) the sequence number after the last record read. Otherwise
        the next :meth:`refresh` reads them as any others."""
        seqs = written["seqs"]
        if not (self.restored and seqs and self.records == len(self.entries) + self.corrupt
                and seqs[0] == self.last[0] + 1):
            return
        # Parsed again, as a read would, so the kept entries hold plain JSON values (an entry built by
        # pyapp may hold a str enum), but not checked again: pyapp built and checked them.
        entries = [self._shared().share(json.loads(text)) for text in texts]
        self.entries.extend(entries)
        self._count_bytes(texts)
        if self.index is not None:
            self.index.add(entries)
        self.last = [seqs[-1], texts[-1]]
        self.records += len(seqs)

    def _take(self, rows: list) -> None:
        from pyapp.auditlog.validation import validate_entry
        from pyapp.core import strict_json
        from pyapp.core.collector import gc_paused

        self._count_bytes([row[1] for row in rows if isinstance(row[1], str)])
        shared = self._shared()
        added = []
        with gc_paused():  # thousands of small dicts and no cycles: the collector's passes only cost time
            for row in rows:
                self.last = row
                text = row[1]
                if not isinstance(text, str):  # a record without its JSON text
                    self.corrupt += 1
                    continue
                try:
                    # Bounded for the parser's sake only: no valid entry nests more than two levels,
                    # so a deeper one is refused by its validation below, as an import refuses it.
                    entry = strict_json.loads(text)
                except (ValueError, RecursionError):
                    self.corrupt += 1
                    continue
                if validate_entry(entry):
                    self.corrupt += 1
                else:
                    added.append(shared.share(entry))
        self.entries.extend(added)
        if self.index is not None:
            self.index.add(added)

    async def _restore(self) -> None:
        """Start from the checkpoint this browser kept for this build, if it has a sound one (DR-006)."""
        from kdt_worker import kept_log, mark

        from pyapp.auditlog.checkpoint import loads
        from pyapp.core.collector import gc_paused

        kept = await kept_log()
        if kept is None:
            return
        with gc_paused():
            checkpoint = loads(kept.to_bytes())
        if checkpoint is None:
            return
        self.entries, self.corrupt, self.last = checkpoint.entries, checkpoint.corrupt, checkpoint.last
        self.records = checkpoint.records
        self.text_bytes = None
        grader().know(checkpoint.outcomes)
        self.checkpointed = (checkpoint.records, len(grader().outcomes()))
        mark("audit-log-restored", checkpoint.records)

    def _shared(self):
        """What keeps one copy of each value the entries repeat (``pyapp.auditlog.shared_values``)."""
        if self.shared is None:
            from pyapp.auditlog.shared_values import SharedValues

            self.shared = SharedValues()
        return self.shared

    def _count_bytes(self, texts: list[str]) -> None:
        if self.text_bytes is not None:
            # An ASCII text's length is its size in UTF-8, known without encoding it (str.isascii is a flag). A
            # record may hold a lone surrogate (it is then unreadable): counted as the three bytes it would take.
            self.text_bytes += sum(len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
                                   for text in texts) + len(texts)

    def keep_when_due(self) -> None:
        """Keep a checkpoint of this read once it holds enough records or outcomes the last one did not.

        The worker compresses and stores it in the background; a write that fails costs only the
        next reopened page a full read (DR-006).
        """
        from kdt_worker import keep_log
        from pyodide.ffi import to_js

        from pyapp.auditlog.checkpoint import EVERY, Checkpoint, dumps

        outcomes = grader().outcomes()
        if self.records != len(self.entries) + self.corrupt or (
                self.records - self.checkpointed[0] < EVERY and len(outcomes) - self.checkpointed[1] < EVERY):
            return
        keep_log(to_js(dumps(Checkpoint(self.entries, self.corrupt, self.last, self.records, outcomes))))
        self.checkpointed = (self.records, len(outcomes))

    def runs(self):
        """The runs index of the entries read so far, graded by the worker's grader."""
        if self.index is None:
            from pyapp.evaluation.rebuild import RunIndex

            self.index = RunIndex(grader(), validated=True).add(self.entries)
        return self.index


LOG = LogCache()

# Records asked of the store at a time (see LogCache.refresh); each block after the first starts with the last
# record of the one before, which is how a read finds the store unchanged under it.
BLOCK = 5_000

# A first read, or this many new entries, is kept out of the garbage collector's passes (pyapp.core.collector).
KEPT_FROM = 1_000


def over_the_log(operation: Callable[..., Awaitable]) -> Callable[..., Awaitable]:
    """``operation`` run with the garbage collector paused (``pyapp.core.collector``, DR-006).

    Reading, rebuilding and grading the log make many small objects and no cycles. When the operation
    made the runs index or read at least :data:`KEPT_FROM` new entries, what it made lives on with the
    worker, so it is moved out of the collector's generations as the pause ends. Operations that wait
    on a provider are not paused.
    """
    @functools.wraps(operation)
    async def paused(**args: object) -> object:
        from pyapp.core.collector import gc_paused

        first, before = LOG.index is None, len(LOG.entries)
        with gc_paused(keep=lambda: (first and LOG.index is not None) or len(LOG.entries) - before >= KEPT_FROM):
            return await operation(**args)

    return paused


async def append_entries(entries: list[dict], while_stored: Callable[[], object] | None = None,
                         from_file: bool = False) -> None:
    """Append entries built and checked by pyapp to the audit log, in one write, and keep them as read.

    ``while_stored`` runs while the browser stores them (a thousand entries take it a few hundred ms):
    work that must not count on the write, since the write may still fail. Entries ``from_file`` (an
    import) are not offered as a download when the store refuses them: the visitor's file holds them.
    """
    from pyapp.evaluation.export import log_line

    texts = [log_line(entry).rstrip("\n") for entry in entries]
    written = start_append(texts, from_file)
    try:
        if while_stored is not None:
            while_stored()
    finally:  # the write is awaited whatever happened meanwhile
        answer = await written
    LOG.took(texts, answer)


def grade_ahead(entries: list[dict]) -> None:
    """Grade the answers of ``entries`` into the worker's grader, not into the log's runs: what the next
    view of the runs grades is then known (an import does this while the browser stores the file)."""
    from pyapp.evaluation.rebuild import RunIndex

    RunIndex(grader(), validated=True).add(entries).rebuilt()


async def read_entries() -> tuple[list[dict], int]:
    """Every valid audit entry, oldest first, and the number of unreadable ones skipped (never raises on one)."""
    log = await LOG.refresh()
    return list(log.entries), log.corrupt


@functools.cache
def grader():
    """The worker's one grader: the set, its prompts and the data never change while the worker runs,
    so each distinct answer is graded once however often the pages ask."""
    from pyapp.evaluation.grader import Grader

    return Grader()


async def sets_for(set_version: str | None) -> CaseSets:
    """What set names mean to the visitor's log. The log is read only when ``set_version`` names a set of
    the visitor's own cases: those cases are in it."""
    from pyapp.evaluation.evalset import FIXED_SETS, is_own_set

    return (await LOG.refresh()).runs().own.sets if is_own_set(set_version) else FIXED_SETS
