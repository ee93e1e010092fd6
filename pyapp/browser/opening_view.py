"""The answers /ai-eval/ opens with, kept with the state of the log they were made from (DR-006).

Opening the page asks the worker for the runs list, the configurations, the matrix of cases against
runs, the plans, the visitor's own set and the newest run's detail. Each answer is a function of the
stored log and of this build alone. Once a worker has made all of them from one state of the log
(how many records it had read, and the last of them), it keeps them, as JSON, beside its kept read
of the log and under the same build key. A new tab's worker answers those calls from them while it
has read nothing yet and the store still ends with that record, which one small read of the store
tells. So a reopened page shows a log of any size without loading, rebuilding or
grading it. Any other call reads the log as before (from the kept read,
:mod:`pyapp.browser.log_cache`), and from then on every call does.

It is kept only for logs of at least :data:`pyapp.auditlog.checkpoint.EVERY` records: below that,
reading the log costs less than keeping the view.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Awaitable, Callable

from pyapp.browser import log_cache
from pyapp.browser.worker_io import read_from

FORMAT = 1
# The calls the page opens with (site_src/static/js/eval/), besides the newest run's detail.
OPENING = ("eval_overview", "configurations", "case_matrix", "plans", "own_set")
NOT_KEPT = object()


def _key(name: str, args: dict) -> str:
    return json.dumps([name, args], sort_keys=True)


class OpeningView:
    """The kept view, once read from storage, and the answers this worker made for the log as it last read it."""

    def __init__(self) -> None:
        self.kept: dict | None = None
        self.looked = False  # whether the kept view was read from storage
        self.made: dict[str, object] = {}
        self.made_at: tuple | None = None  # (records, last record) of the log ``made`` was answered from
        self.kept_at: tuple | None = None  # the state of the view this worker last kept

    async def kept_answer(self, key: str) -> object:
        """The kept answer to ``key`` if the store is still as it was when it was made, else ``NOT_KEPT``."""
        from kdt_worker import mark

        if not await self._current() or key not in self.kept["answers"]:
            return NOT_KEPT
        mark("audit-view-used", json.loads(key)[0])
        return self.kept["answers"][key]

    async def kept_size(self) -> tuple[int, int] | None:
        """The records the store held and the bytes of their JSON lines when the view was kept, if the store is
        still as it was then: the storage line (DR-015) drawn without reading the log."""
        if not await self._current() or "size" not in self.kept:
            return None
        return tuple(self.kept["size"])

    async def _current(self) -> bool:
        """Whether a kept view exists and the store still ends with its last record."""
        from kdt_worker import kept_view

        if not self.looked:
            self.looked = True
            found = await kept_view()
            self.kept = _well_formed(found.to_bytes()) if found is not None else None
        if self.kept is None:
            return False
        last = self.kept["last"]
        if await read_from(last[0], 2) != ([last] if last[0] else []):
            self.kept = None  # the log has changed since: this worker reads it from now on
            return False
        return True

    def note(self, key: str, answer: object) -> None:
        """Remember ``answer``, made from the log as the worker has just read it."""
        log = log_cache.LOG
        state = (log.records, list(log.last))
        if state != self.made_at:
            self.made, self.made_at = {}, state
        self.made[key] = answer

    def keep_when_due(self) -> None:
        """Keep the view once every opening answer has been made from the log as it now is (in the background)."""
        from pyapp.auditlog import checkpoint

        log = log_cache.LOG
        if self.made_at is None or self.made_at == self.kept_at or self.made_at != (log.records, list(log.last)):
            return
        overview = self.made.get(_key("eval_overview", {}))
        if log.records < checkpoint.EVERY or overview is None:
            return
        wanted = [_key(name, {}) for name in OPENING]
        if overview["runs"]:
            wanted.append(_key("run_detail", {"run_id": overview["runs"][0]["run_id"]}))
        if not all(key in self.made for key in wanted):
            return
        from kdt_worker import keep_view
        from pyodide.ffi import to_js

        view = {"format": FORMAT, "records": log.records, "last": log.last,
                "answers": {key: self.made[key] for key in wanted}}
        if log.text_bytes is not None:
            view["size"] = [len(log.entries) + log.corrupt, log.text_bytes]
        keep_view(to_js(json.dumps(view).encode("utf-8")))
        self.kept_at = self.made_at


def _well_formed(data: bytes) -> dict | None:
    """The view in ``data``, or None when it is not one this module wrote."""
    try:
        view = json.loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    if not (isinstance(view, dict) and view.get("format") == FORMAT and isinstance(view.get("answers"), dict)):
        return None
    records, last = view.get("records"), view.get("last")
    if not (type(records) is int and records >= 0 and isinstance(last, list) and len(last) == 2
            and type(last[0]) is int and last[0] >= 0 and (last[1] is None or isinstance(last[1], str))):
        return None
    size = view.get("size")
    if size is not None and not (isinstance(size, list) and len(size) == 2
                                 and all(type(n) is int and n >= 0 for n in size)):
        return None
    return view


VIEW = OpeningView()


def opening(operation: Callable[..., Awaitable]) -> Callable[..., Awaitable]:
    """``operation`` answered from the kept view while this worker has read nothing (see the module)."""
    @functools.wraps(operation)
    async def answered(**args: object) -> object:
        key = _key(operation.__name__, args)
        if not log_cache.LOG.restored:
            found = await VIEW.kept_answer(key)
            if found is not NOT_KEPT:
                return found
        answer = await operation(**args)
        VIEW.note(key, answer)
        return answer

    return answered
